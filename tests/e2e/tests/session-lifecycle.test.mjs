// A session's life: starting (tools wait; nothing reaches a backend that is
// not ready), live, ended (still found by its name), and many sessions ended
// at shutdown without touching freed memory.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

import { decodePng, desktopOpts, imageOf, ms, startServer, terminalOpts, textOf, topts } from '../lib/terminal.mjs';

/** An X server of the test's own; resolves { display, proc }. */
async function ownXvfb(t, size = '640x480x24') {
  const proc = spawn('Xvfb', ['-screen', '0', size, '-nolisten', 'tcp', '-displayfd', '1', '-noreset'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => proc.kill('SIGKILL'));
  const display = await new Promise((resolve) => proc.stdout.once('data', (d) => resolve(`:${d.toString().trim()}`)));
  return { display, proc };
}

/** Records pointer and keyboard events on display's root window (xev). */
function watchInput(t, display) {
  const xev = spawn('xev', ['-display', display, '-root', '-event', 'mouse', '-event', 'keyboard'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => xev.kill('SIGKILL'));
  let out = '';
  xev.stdout.on('data', (d) => {
    out += d.toString();
  });
  return { events: () => out.split('\n').filter((l) => /^(KeyPress|KeyRelease|ButtonPress|ButtonRelease|MotionNotify) event/.test(l)) };
}

test('names of ended sessions resolve: wait_for exit and read_text by name after the program ended', terminalOpts(), async (t) => {
  const srv = await startServer(t);
  const first = await srv.start({ command: ['cat'], name: 'cat' });
  await srv.ok('type_text', { session: 'cat', text: 'bye\n' });
  await srv.ok('press_key', { session: 'cat', key: 'ctrl+d' });
  await srv.ok('wait_for', { session: first.id, exit: true, timeout_ms: ms(10000) });
  // Ended now; its name still finds it.
  const exited = await srv.ok('wait_for', { session: 'cat', exit: true, timeout_ms: ms(10000) });
  assert.equal(exited.sc.matched, true);
  assert.equal(exited.sc.exit_status, 0);
  assert.match(textOf(await srv.ok('read_text', { session: 'cat' })), /bye/);
  // A live session of the same name wins over the ended one.
  const second = await srv.start({ command: ['cat'], name: 'cat' });
  await srv.ok('type_text', { session: 'cat', text: 'again\n' });
  await srv.ok('wait_for', { session: second.id, text: 'again', timeout_ms: ms(10000) });
  assert.doesNotMatch(textOf(await srv.ok('read_text', { session: first.id })), /again/);
  await srv.ok('session_stop', { session: 'cat' });
  const list = (await srv.ok('session_list', { include_ended: true })).sc.sessions;
  assert.deepEqual(list.map((s) => s.state), ['ended', 'ended']);
  await srv.close();
});

test('calls sent right after desktop_start wait for the desktop: no input on glovebox\'s own $DISPLAY, no crash', desktopOpts(), async (t) => {
  const own = await ownXvfb(t);
  const watch = watchInput(t, own.display);
  const srv = await startServer(t, { env: { DISPLAY: own.display } });
  // Everything below is sent before desktop_start answers (the SDK writes
  // each request at once).
  const started = srv.ok('desktop_start', { width: 720, height: 400 });
  const calls = {
    click: srv.call('click', { x: 5, y: 5 }),
    type_text: srv.call('type_text', { text: 'x' }),
    press_key: srv.call('press_key', { key: 'a' }),
    screenshot: srv.call('screenshot', {}),
    snapshot: srv.call('snapshot', {}),
    find: srv.call('find', { text: 'nothing' }),
    read_text: srv.call('read_text', {}),
    wait_for: srv.call('wait_for', { text: 'nothing here', timeout_ms: 500 }),
    list: srv.call('session_list', {}),
  };
  const resource = srv.client.readResource({ uri: 'glovebox://session/desktop-1/screen' });
  const id = (await started).sc.id;
  assert.equal(id, 'desktop-1');
  const r = Object.fromEntries(await Promise.all(Object.entries(calls).map(async ([k, p]) => [k, await p])));
  for (const k of ['click', 'type_text', 'press_key', 'screenshot']) assert.ok(!r[k].isError, `${k}: ${textOf(r[k])}`);
  // The new desktop's own pixels, not those of the display glovebox runs on.
  assert.equal(decodePng(imageOf(r.screenshot).data).width, 720);
  const blob = (await resource).contents[0].blob;
  assert.equal(decodePng(blob).width, 720);
  // A session listed while it starts says so.
  assert.ok(['starting', 'live'].includes(r.list.structuredContent.sessions[0].state));
  await srv.ok('session_list', {});
  assert.deepEqual(watch.events(), [], 'nothing was typed or clicked on glovebox\'s own display');
  await srv.ok('session_stop', { session: id });
  await srv.close();
});

test('a session_list while a desktop starts shows it as starting', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const started = srv.ok('desktop_start', {});
  const list = await srv.ok('session_list', {});
  assert.deepEqual(list.sc.sessions.map((s) => [s.id, s.state]), [['desktop-1', 'starting']]);
  await started;
  assert.equal((await srv.ok('session_list', {})).sc.sessions[0].state, 'live');
  await srv.close();
});

test('shutdown with 34 attached desktops (no programs) exits cleanly', desktopOpts({ timeout: ms(120000) }), async (t) => {
  const own = await ownXvfb(t);
  const srv = await startServer(t);
  for (let i = 0; i < 34; i++) await srv.ok('desktop_start', { display: own.display });
  assert.equal((await srv.ok('session_list', {})).sc.sessions.length, 34);
  await srv.close({ timeoutMs: ms(20000) });
});
