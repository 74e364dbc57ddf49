// Takeover of desktops in the live viewer, in a real browser against a real
// Xvfb desktop: the person's pointer and keys on the canvas reach the
// desktop, the agent's input (and the computer tool's) is refused meanwhile,
// the agent's input in flight is stopped by the takeover, and wait_for
// {control: "agent"} answers with the hand-back's note.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ms, needs, runCli, sleep, textOf } from '../lib/server.mjs';
import { tempDir, until } from '../lib/terminal.mjs';
import { browserOpts, launchBrowser, makeLink, startViewerServer, waitInPage } from '../lib/viewer.mjs';

const topts = (extra = {}) => needs('desktop', browserOpts({ timeout: ms(120000), ...extra }));

const XTERM = ['xterm', '-geometry', '60x10+0+0', '-bg', 'white', '-fg', 'black', '-fa', 'DejaVu Sans Mono', '-fs', '14',
  '-e', 'bash', '--norc', '--noprofile'];

/** A desktop showing a bash in an xterm at the top left; resolves its id. */
async function xtermDesktop(srv) {
  const desk = (await srv.ok('desktop_start', { width: 800, height: 600 })).sc.id;
  await srv.ok('launch_app', { session: desk, command: XTERM });
  await until(async () => (await srv.ok('window_list', { session: desk })).sc.windows.some((w) => /xterm/i.test(`${w.app} ${w.title}`)),
    ms(20000), 'the xterm window');
  return desk;
}

/** A control page on desk, with control taken. */
async function takeOver(t, srv, desk) {
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto((await makeLink(srv, ['--role', 'control', '--session', desk])).link);
  await waitInPage(page, () => window.gbView.view?.frames > 0, null, 'the first desktop frame');
  await waitInPage(page, () => !document.getElementById('take').hidden, null, 'the Take control button');
  page.takenAt = Date.now();
  await page.click('#take');
  await waitInPage(page, () => !document.getElementById('handback').hidden, null, 'control taken');
  return page;
}

/** Clicks the canvas where the desktop's pixel x,y is drawn. */
async function clickDesktop(page, x, y) {
  const box = await page.locator('#desk').boundingBox();
  const [w, h] = await page.evaluate(() => [document.getElementById('desk').width, document.getElementById('desk').height]);
  await page.mouse.click(box.x + (x + 0.5) * box.width / w, box.y + (y + 0.5) * box.height / h);
}

const fileText = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

test('viewer takeover of a desktop: the person clicks and types from the page, agent and computer input are refused, wait_for control answers with the hand-back note', topts(), async (t) => {
  const { srv } = await startViewerServer(t);
  const dir = tempDir(t, 'glovebox-takeover-');
  const desk = await xtermDesktop(srv);
  // The agent has control: the wait answers at once.
  const now = await srv.ok('wait_for', { session: desk, control: 'agent' });
  assert.equal(now.sc.control, 'agent');
  assert.equal(now.sc.elapsed_ms, 0);

  const page = await takeOver(t, srv, desk);
  const waiting = srv.call('wait_for', { session: desk, control: 'agent', timeout_ms: ms(90000) });
  let settled = false;
  waiting.then(() => { settled = true; }, () => { settled = true; });

  await srv.err('type_text', { session: desk, text: 'agent' }, /a person has control of session desktop-\d+/);
  await srv.err('click', { session: desk, x: 10, y: 10 }, /a person has control of session/);
  await srv.err('computer', { session: desk, action: 'left_click', coordinate: [10, 10] }, /a person has control of session/);
  await srv.err('computer', { session: desk, action: 'type', text: 'agent' }, /a person has control of session/);
  await srv.err('hover', { session: desk, x: 10, y: 10 }, /a person has control of session/);
  // Looking is not input.
  await srv.ok('computer', { session: desk, action: 'screenshot' });
  await srv.ok('computer', { session: desk, action: 'cursor_position' });
  const short = await srv.call('wait_for', { session: desk, control: 'agent', timeout_ms: 200 });
  assert.equal(short.isError, true);
  assert.equal(short.structuredContent.error.code, 'timeout', textOf(short));
  assert.match(textOf(short), /a person still has control of session/);

  // Bad pointer messages get an error; the page stays open.
  await page.evaluate(() => window.gbView.ws.send(JSON.stringify({ type: 'pointer', x: 'left', y: 3 })));
  await waitInPage(page, () => /pointer: expected numbers x and y/.test(document.getElementById('message').textContent), null, 'the error');

  // The person clicks into the xterm and types a command with shifted characters.
  const out = join(dir, 'person.out');
  await clickDesktop(page, 200, 60);
  await page.keyboard.type(`echo "Person-$((6*7))!" > ${out}`);
  await page.keyboard.press('Enter');
  await until(() => fileText(out) === 'Person-42!\n', ms(15000), `the typed command to write ${out} (it holds ${JSON.stringify(fileText(out))})`);
  // Ctrl chords reach the program: ctrl+u clears the line typed so far.
  const out2 = join(dir, 'chord.out');
  await page.keyboard.type('echo wrong');
  await page.keyboard.press('Control+u');
  await page.keyboard.type(`echo right > ${out2}`);
  await page.keyboard.press('Enter');
  await until(() => fileText(out2) === 'right\n', ms(15000), `ctrl+u and the second command (${JSON.stringify(fileText(out2))})`);
  assert.equal(settled, false, 'wait_for control waits while the person has control');

  await page.fill('#note', 'the xterm is ready');
  await page.click('#handback');
  const back = await waiting;
  assert.ok(!back.isError, textOf(back));
  assert.equal(back.structuredContent.control, 'agent');
  assert.equal(back.structuredContent.note, 'the xterm is ready');
  assert.match(textOf(back), /the xterm is ready/);
  // The page's input no longer reaches the desktop; the agent's does.
  const out3 = join(dir, 'agent.out');
  await srv.ok('type_text', { session: desk, text: `echo agent-again > ${out3}\n` });
  await until(() => fileText(out3) === 'agent-again\n', ms(15000), 'the agent typing again');
});

test('viewer takeover stops the agent typing in flight: its call ends with "a person has control" long before it would have finished, with fewer characters typed', topts(), async (t) => {
  const { srv } = await startViewerServer(t);
  const dir = tempDir(t, 'glovebox-takeover-');
  const desk = await xtermDesktop(srv);
  const out = join(dir, 'cat.out');
  await srv.ok('type_text', { session: desk, text: `cat > ${out}\n` });
  await until(() => existsSync(out), ms(15000), 'cat to start');
  // 60 characters at 300 ms each: 18 s if nothing stops it.
  const started = Date.now();
  const typing = srv.call('type_text', { session: desk, text: 'x'.repeat(60), delay_ms: 300 });
  await sleep(1500);
  const page = await takeOver(t, srv, desk);
  const r = await typing;
  const took = Date.now() - started;
  t.diagnostic(`the typing call ended ${Date.now() - page.takenAt} ms after Take control was clicked (${took} ms after it started)`);
  assert.equal(r.isError, true, textOf(r));
  assert.equal(r.structuredContent.error.code, 'denied');
  assert.match(textOf(r), /a person has control of session desktop-\d+/);
  const m = /typed (\d+) characters/.exec(textOf(r));
  assert.ok(m && Number(m[1]) < 60, textOf(r));
  assert.ok(took < 12000, `the call ended ${took} ms after it started, well before the 18 s it would have taken`);
  // The person ends cat's input: the file holds only what the agent typed before.
  await clickDesktop(page, 200, 60);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+d');
  await until(() => /^x*\n$/.test(fileText(out) ?? ''), ms(15000), `cat to write ${out} (${JSON.stringify(fileText(out))})`);
  const typed = fileText(out).length - 1;
  assert.ok(typed < 60, `${typed} characters arrived, fewer than the 60 asked`);
  assert.equal(typed, Number(m[1]), 'the call says how many it typed');
});

test('viewer takeover lets go of a button the agent held down: the person moving the pointer selects nothing', topts(), async (t) => {
  const { srv } = await startViewerServer(t);
  const desk = await xtermDesktop(srv);
  await srv.ok('type_text', { session: desk, text: 'echo SELECT-ME-PLEASE; echo and more text on this line\n' });
  await sleep(1000);
  // The agent presses the left button in the xterm's text and leaves it down.
  await srv.ok('computer', { session: desk, action: 'left_mouse_down', coordinate: [10, 40] });
  const page = await takeOver(t, srv, desk);
  // The person moves over the text without pressing: with the agent's
  // button still down this would be a drag that selects it.
  const box = await page.locator('#desk').boundingBox();
  const scale = box.width / 800;
  await page.mouse.move(box.x + 10 * scale, box.y + 40 * scale);
  await page.mouse.move(box.x + 400 * scale, box.y + 90 * scale, { steps: 20 });
  await sleep(500);
  await page.click('#handback');
  await waitInPage(page, () => document.getElementById('handback').hidden, null, 'handed back');
  // Both are in the audit log, with the link that did them.
  await until(async () => {
    const r = await runCli(['audit', '--json', '--tool', 'viewer/*', '--data-dir', srv.dataDir]);
    const rows = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return ['viewer/take_control', 'viewer/hand_back'].every((tool) =>
      rows.some((x) => x.tool === tool && x.session === desk && x.client.transport === 'viewer' && /"link":"/.test(JSON.stringify(x.arguments))));
  }, ms(10000), 'audit rows viewer/take_control and viewer/hand_back');
  const none = await srv.ok('clipboard_get', { session: desk, selection: 'primary' });
  assert.doesNotMatch(none.sc.text, /SELECT|more/, 'nothing was selected while the person moved the pointer');
  // The same motion with the button down does select (the check above can fail).
  await srv.ok('drag', { session: desk, from: { x: 10, y: 40 }, to: { x: 400, y: 90 } });
  await until(async () => /SELECT|more/.test((await srv.ok('clipboard_get', { session: desk, selection: 'primary' })).sc.text),
    ms(10000), 'a drag by the agent to select the text');
});

test('viewer takeover of a terminal stops the agent typing into a program that does not read; wait_for control on a terminal', needs('terminal', browserOpts({ timeout: ms(90000) })), async (t) => {
  const { srv } = await startViewerServer(t);
  // Raw mode: a full input queue blocks the writer (a line-mode terminal drops the excess).
  const term = await srv.start({ command: ['sh', '-c', 'stty raw -echo; exec sleep 600'] });
  await sleep(300);
  let answered = false;
  const typing = srv.call('type_text', { session: term.id, text: 'y'.repeat(4 * 1024 * 1024) }).finally(() => { answered = true; });
  await sleep(500);
  assert.equal(answered, false, 'typing is still going on (the program does not read)');
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto((await makeLink(srv, ['--role', 'control', '--session', term.id])).link);
  await waitInPage(page, () => !document.getElementById('take').hidden, null, 'the Take control button');
  await page.click('#take');
  const r = await typing;
  assert.equal(r.isError, true, textOf(r));
  assert.equal(r.structuredContent.error.code, 'denied');
  assert.match(textOf(r), /a person has control of session terminal-\d+ .*This call was stopped: stopped after typing \d+ of 4194304 bytes$/s);
  const waiting = srv.call('wait_for', { session: term.id, control: 'agent', timeout_ms: ms(60000) });
  await waitInPage(page, () => !document.getElementById('handback').hidden, null, 'control taken');
  await page.click('#handback');
  const back = await waiting;
  assert.ok(!back.isError, textOf(back));
  assert.equal(back.structuredContent.note, null);
  // Bad combinations are refused, naming the field.
  await srv.err('wait_for', { session: term.id, control: 'agent', text: 'x' }, /"control" waits alone: leave out "text"/);
});
