// Desktop input through MCP only, on real GTK dialogs (zenity) in a private
// Xvfb desktop: clicks at coordinates (also read off a scaled screenshot),
// double clicks, drags, the mouse wheel, Unicode typing and key chords.
// What is checked is what a user would see: the program's output.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { launchShell, element, outputOf, settledSnapshot, startDesktop } from '../lib/desktop.mjs';
import { decodePng, imageOf, ms, pixel, startServer, tempDir, desktopOpts as topts, until } from '../lib/terminal.mjs';
import { needs } from '../lib/server.mjs';

/** A dialog launched on a fresh desktop, once its accessibility tree shows `text`. */
async function dialog(t, line, text, name = 'dialog') {
  const srv = await startServer(t);
  const dir = tempDir(t, 'glovebox-input-');
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, name, line);
  await srv.ok('wait_for', { session, text, timeout_ms: ms(15000) });
  const snap = await settledSnapshot(srv, session);
  return { srv, session, out, snap: snap.sc };
}

const centre = (e) => ({ x: e.bounds.x + e.bounds.width / 2, y: e.bounds.y + e.bounds.height / 2 });

test('Unicode text typed into a GTK entry comes out of the program exactly', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(t, `zenity --entry --title Who --text 'Your name'`, 'Your name');
  const entry = element(snap, 'text');
  const text = 'Grüße, José — 日本語 ✓ Ωμέγα';
  const typed = await srv.ok('type_text', { session, ref: entry.ref, text });
  assert.equal(typed.sc.characters, [...text].length);
  assert.equal((await srv.ok('read_text', { session, ref: entry.ref })).sc.text, text);
  await srv.ok('press_key', { session, key: 'Enter' });
  assert.equal(await outputOf(out), `${text}\nstatus=0\n`);
});

test('key chords edit the text: ctrl+a then typing replaces it, shift+Home selects', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(t, `zenity --entry --title Edit --text 'Edit me'`, 'Edit me');
  const entry = element(snap, 'text');
  await srv.ok('type_text', { session, ref: entry.ref, text: 'first draft' });
  await srv.ok('press_key', { session, key: 'ctrl+a' });
  await srv.ok('type_text', { session, text: 'second' });
  await srv.ok('press_key', { session, key: 'shift+Home' });
  await srv.ok('type_text', { session, text: 'final' });
  await srv.ok('press_key', { session, key: 'Left', repeat: 5 });
  await srv.ok('type_text', { session, text: 'the ' });
  await srv.ok('press_key', { session, key: 'Return' });
  assert.equal(await outputOf(out), 'the final\nstatus=0\n');
});

test('a click at coordinates read off a half-size screenshot presses the button there', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(t, `zenity --question --title Sure --text 'Proceed?'`, 'Proceed?');
  const no = element(snap, 'push button', 'No');
  const shot = await srv.ok('screenshot', { session, max_width: 640 });
  assert.equal(shot.sc.scale, 0.5);
  const { x, y } = centre(no);
  const clicked = await srv.ok('click', { session, x: x * shot.sc.scale, y: y * shot.sc.scale, scale: shot.sc.scale });
  assert.equal(clicked.sc.x, Math.floor(x));
  assert.equal(await outputOf(out), 'status=1\n');
});

test('a double click on a list row chooses it', topts(), async (t) => {
  const { srv, session, out } = await dialog(
    t, `zenity --list --title Fruit --column Fruit apple banana cherry`, 'banana');
  const row = (await srv.ok('find', { session, text: 'banana', exact: true })).sc.matches[0];
  const { x, y } = centre(row);
  const r = await srv.ok('click', { session, x, y, count: 2 });
  assert.equal(r.sc.count, 2);
  assert.equal(await outputOf(out), 'banana\nstatus=0\n');
});

test('dragging a slider sets its value; a long press takes as long as asked', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(
    t, `zenity --scale --title Level --text Level --min-value 0 --max-value 100 --value 10`, 'Level');
  const slider = element(snap, 'slider');
  const b = slider.bounds;
  const y = b.y + b.height / 2;
  await srv.ok('drag', { session, from: { x: b.x + b.width * 0.1, y }, to: { x: b.x + b.width - 2, y }, duration_ms: 200 });
  const started = Date.now();
  await srv.ok('click', { session, text: 'OK', role: 'push button', hold_ms: 300 });
  assert.ok(Date.now() - started >= 300, 'the press was held');
  assert.equal(await outputOf(out), '100\nstatus=0\n');
});

test('the mouse wheel scrolls a long list', needs('ocr', topts()), async (t) => {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima',
    'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey', 'xray', 'yankee', 'zulu'];
  const { srv, session, snap } = await dialog(t, `zenity --list --title Words --column Word --height 300 ${words.join(' ')}`, 'alpha');
  const region = element(snap, 'table').bounds;
  const before = await srv.ok('read_text', { session, region, ocr: true });
  assert.match(before.sc.text, /alpha/);
  assert.doesNotMatch(before.sc.text, /zulu/);
  await srv.ok('scroll', { session, direction: 'down', amount: 15, ...centre({ bounds: region }) });
  // The list redraws at its own pace: look again for up to 5 s.
  let now;
  for (const end = Date.now() + ms(5000); Date.now() < end;) {
    now = await srv.ok('read_text', { session, region, ocr: true });
    if (/zulu/.test(now.sc.text)) break;
  }
  assert.doesNotMatch(now.sc.text, /alpha/);
  assert.match(now.sc.text, /zulu/);
});

test('bad input names the field and the screen; terminals have no pointer', needs('terminal', topts()), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 800, height: 600 });
  await srv.err('click', { session, x: 900, y: 10 }, /x,y = 900,10 is off the screen: .* is 800x600 pixels/);
  await srv.err('click', { session, x: 500, y: 10, scale: 0.5 }, /is off the screen.*after dividing by scale/);
  await srv.err('click', { session }, /give x and y, or ref .* or text/);
  await srv.err('click', { session, ref: 'e99' }, /snapshot/);
  await srv.err('drag', { session, from: { x: 1, y: 1 }, to: { x: 1, y: 700 } }, /off the screen/);
  await srv.err('scroll', { session, direction: 'sideways' }, /direction/);
  await srv.err('click', { session, x: 1, y: 1, button: 'fourth' }, /button/);
  await srv.err('press_key', { session, key: 'ctrl+nosuchkey' }, /valid keys: .*super/);
  const term = (await srv.ok('terminal_start', { name: 'shell' })).sc;
  await srv.err('click', { session: term.id, x: 1, y: 1 }, /cannot click: not supported by terminal sessions/);
  await srv.err('scroll', { session: term.id, direction: 'up' }, /not supported by terminal sessions/);
});

test('wait_for stable_ms answers once the screen stops changing, and not before', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t, 'glovebox-input-');
  const session = await startDesktop(srv);
  // A progress dialog that moves for ~1.5 s, then stands still.
  await launchShell(srv, session, dir, 'progress',
    `(for i in 10 20 30 40 50 60 70 80 90; do echo $i; sleep 0.15; done; sleep 600) | zenity --progress --title Busy --text Working`);
  await srv.ok('wait_for', { session, text: 'Working', timeout_ms: ms(15000) });
  const started = Date.now();
  const still = await srv.ok('wait_for', { session, stable_ms: 600, timeout_ms: ms(15000) });
  assert.equal(still.sc.matched, true);
  assert.equal(still.sc.source, 'pixels');
  assert.ok(still.sc.elapsed_ms >= 600);
  const progress = await srv.ok('snapshot', { session, app: 'zenity' });
  assert.match(progress.sc.outline, /progress bar.*(90|value="0\.9)/, 'it was still only once the bar stopped');
  assert.ok(Date.now() - started >= 600);
  const never = await srv.ok('wait_for', { session, stable_ms: 5000, timeout_ms: 300 });
  assert.equal(never.sc.matched, false);
  assert.equal(never.sc.reason, 'timeout');
  await srv.err('wait_for', { session, stable_ms: 100, text: 'x' }, /give it alone/);
});

test('screenshot with cursor: true draws the pointer where it was moved', topts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 400, height: 300 });
  await srv.ok('click', { session, x: 200, y: 150, button: 'middle' });
  const region = { x: 180, y: 130, width: 40, height: 40 };
  const plain = decodePng(imageOf(await srv.ok('screenshot', { session, region })).data);
  const withCursor = decodePng(imageOf(await srv.ok('screenshot', { session, region, cursor: true })).data);
  const differing = (a, b) => { let n = 0; for (let i = 0; i < a.data.length; i += 4) n += a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] ? 1 : 0; return n; };
  const n = differing(plain, withCursor);
  assert.ok(n >= 20, `the pointer changed ${n} pixels near 200,150`);
  const far = { x: 0, y: 0, width: 40, height: 40 };
  assert.equal(differing(decodePng(imageOf(await srv.ok('screenshot', { session, region: far })).data),
    decodePng(imageOf(await srv.ok('screenshot', { session, region: far, cursor: true })).data)), 0, 'and nothing elsewhere');
});

test('a password field: what is typed into it is redacted in the audit log, and screenshots paint it over', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(t, `zenity --password --title Secret`, 'Password');
  const field = element(snap, 'password text');
  const secret = 'hunter2-ÄÖ';
  await srv.ok('type_text', { session, ref: field.ref, text: secret });

  const shot = await srv.ok('screenshot', { session });
  assert.equal(shot.sc.redacted, 1);
  const png = decodePng(imageOf(shot).data);
  const b = field.bounds;
  for (const [x, y] of [[b.x + 1, b.y + 1], [b.x + b.width - 2, b.y + b.height - 2], [b.x + b.width / 2, b.y + b.height / 2]])
    assert.deepEqual(pixel(png, Math.floor(x), Math.floor(y)), [0x60, 0x60, 0x60], `pixel ${x},${y} is painted over`);

  await srv.ok('press_key', { session, key: 'Enter' });
  assert.equal(await outputOf(out), `${secret}\nstatus=0\n`, 'the program got the real text');
  const db = join(srv.dataDir, 'audit.db');
  let rows;
  await until(() => {
    try {
      rows = execFileSync('sqlite3', ['-readonly', db, "SELECT arguments FROM calls WHERE tool = 'type_text'"]).toString();
    } catch { return false; }
    return rows.includes('redacted');
  }, ms(5000), 'the typing to be audited');
  assert.ok(!rows.includes('hunter2'), `the secret is not stored: ${rows}`);
});

/** The audit rows of a tool's calls, once one of them matches want. */
async function auditRows(srv, tool, want) {
  const db = join(srv.dataDir, 'audit.db');
  let rows = '';
  await until(() => {
    try {
      rows = execFileSync('sqlite3', ['-readonly', db, `SELECT arguments FROM calls WHERE tool = '${tool}'`]).toString();
    } catch { return false; }
    return want.test(rows);
  }, ms(10000), `the ${tool} call to be audited`);
  return rows;
}

test('a password field focused by a click, typed into without a ref: the text stays out of the audit log', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(t, `zenity --password --title Secret`, 'Password');
  const field = element(snap, 'password text');
  // The pointer puts the focus there, not a ref: type_text cannot know from
  // its arguments that this is a password field.
  await srv.ok('click', { session, ...centre(field) });
  const secret = 'sw0rdfish-Ü';
  await srv.ok('type_text', { session, text: secret });
  await srv.ok('press_key', { session, key: 'Enter' });
  assert.equal(await outputOf(out), `${secret}\nstatus=0\n`, 'the program got the real text');
  const rows = await auditRows(srv, 'type_text', /redacted/);
  assert.ok(!rows.includes('sw0rdfish'), `the secret is not stored: ${rows}`);
});

test('the audit row of text typed into a password field is written, redacted, even when the server stops right after the answer', topts(), async (t) => {
  const { srv, session, snap } = await dialog(t, `zenity --password --title Secret`, 'Password');
  const field = element(snap, 'password text');
  await srv.ok('click', { session, ...centre(field) });
  // The answer comes once the keys are sent; whether the focus was a
  // password field is found out after it. Stopping now must neither lose the
  // row nor store the text in clear.
  await srv.ok('type_text', { session, text: 'qu1ckstop-Ä' });
  await srv.close();
  const rows = execFileSync('sqlite3', ['-readonly', join(srv.dataDir, 'audit.db'),
    "SELECT arguments FROM calls WHERE tool = 'type_text'"]).toString();
  assert.match(rows, /redacted/, 'the type_text row is there');
  assert.ok(!rows.includes('qu1ckstop'), `the secret is not stored: ${rows}`);
});

test('a click right after typing into a password field does not make the check see the next field', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(t,
    `zenity --forms --title Login --text Login --add-entry User --add-password Pass`, 'User');
  const pass = element(snap, 'password text');
  const user = element(snap, 'text');
  await srv.ok('click', { session, ...centre(pass) });
  // Sent together: the click must not move the focus before the typed
  // text's password check has seen where it went.
  await Promise.all([
    srv.ok('type_text', { session, text: 'l3ftbehind' }),
    srv.ok('click', { session, ...centre(user) }),
  ]);
  await srv.ok('type_text', { session, text: 'ann' });
  await srv.ok('click', { session, ref: element(snap, 'push button', 'OK').ref });
  assert.equal(await outputOf(out), 'ann|l3ftbehind\nstatus=0\n', 'the program got both fields');
  // Both type_text rows (one a line). The second is "ann" in clear when
  // the form took the click before the check asked where the focus is; on
  // a slow machine it may still be on the password field then, and a
  // "secret" answer is final (the safe side): so only its presence counts.
  const rows = await auditRows(srv, 'type_text', /^[^\n]+\n[^\n]+/);
  assert.match(rows, /redacted/, 'the password is redacted');
  assert.ok(!rows.includes('l3ftbehind'), `the secret is not stored: ${rows}`);
});

test('text typed into an ordinary field is audited as typed', topts(), async (t) => {
  const { srv, session, out, snap } = await dialog(t, `zenity --entry --title Who --text 'Your name'`, 'Your name');
  await srv.ok('click', { session, ...centre(element(snap, 'text')) });
  await srv.ok('type_text', { session, text: 'plain-words' });
  await srv.ok('press_key', { session, key: 'Enter' });
  assert.equal(await outputOf(out), 'plain-words\nstatus=0\n');
  const rows = await auditRows(srv, 'type_text', /plain-words/);
  assert.doesNotMatch(rows, /redacted/);
});

test('an application that crashes mid-session: its refs say so, the desktop goes on; Xvfb dying ends the session', topts(), async (t) => {
  const { srv, session, snap } = await dialog(t, `zenity --question --title Crash --text 'Still here?'`, 'Still here?');
  const yes = element(snap, 'push button', 'Yes');
  const zenity = (await srv.ok('session_list', {})).sc.sessions.find((s) => s.id === session);
  // The dialog's process: the shell's child named zenity.
  const pid = Number(execFileSync('pgrep', ['-x', 'zenity', '-P', String(zenity.app_pids[0])]).toString().trim());
  process.kill(pid, 'SIGKILL');
  await srv.ok('wait_for', { session, text: 'Still here?', gone: true, timeout_ms: ms(5000) });
  await srv.err('click', { session, ref: yes.ref }, /element e\d+ is gone: its application no longer answers .* take a new snapshot/);
  const after = await srv.ok('snapshot', { session });
  assert.doesNotMatch(after.sc.outline, /Still here/);
  await srv.ok('screenshot', { session });
  await srv.ok('click', { session, x: 5, y: 5 });

  process.kill(zenity.xvfb_pid, 'SIGKILL');
  const find = async () => (await srv.ok('session_list', { include_ended: true })).sc.sessions.find((s) => s.id === session);
  await until(async () => (await find()).state === 'ended', ms(5000), 'the session to end');
  const ended = await find();
  assert.match(ended.end_reason, /X server \(Xvfb\) exited/);
  await srv.err('click', { session, x: 5, y: 5 }, /has ended \(its X server \(Xvfb\) exited\)/);
});

test('a person pausing input stops a long drag or press at once, with the button released', topts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 400, height: 300 });
  const started = Date.now();
  const dragging = srv.call('drag', { session, from: { x: 10, y: 10 }, to: { x: 390, y: 290 }, duration_ms: 8000 });
  await new Promise((r) => setTimeout(r, 300));
  process.kill(srv.pid, 'SIGUSR1');
  const r = await dragging;
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /Paused by the person/);
  assert.match(r.content.map((c) => c.text).join(' '), /stopped before it was done: the drag was let go midway/);
  assert.ok(Date.now() - started < ms(4000), 'it did not run its 8 s');
  await srv.err('click', { session, x: 5, y: 5 }, /Paused by the person/);
  process.kill(srv.pid, 'SIGUSR2');
  await until(async () => !(await srv.call('click', { session, x: 5, y: 5 })).isError, ms(3000), 'input to be allowed again');
  const held = srv.call('click', { session, x: 50, y: 50, hold_ms: 8000 });
  await new Promise((res) => setTimeout(res, 300));
  process.kill(srv.pid, 'SIGUSR1');
  const h = await held;
  assert.match(h.content.map((c) => c.text).join(' '), /the button was released early/);
  process.kill(srv.pid, 'SIGUSR2');
});

test('long presses on one desktop never hold up another session: they wait their turn on the desktop\'s own input thread', needs('terminal', topts()), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 400, height: 300 });
  // Four 10 s presses queued at once: they once took all four shared
  // workers (one pressing, three waiting for the input), and a terminal's
  // screenshot waited for the first press to end.
  const order = [];
  const clicks = [0, 1, 2, 3].map((i) =>
    srv.call('click', { session, x: 20 + i, y: 20, hold_ms: 10000 }).then((r) => {
      order.push(`click${i}`);
      return r;
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  const term = await srv.start({ command: ['sleep', '60'] });
  const shot = await srv.ok('screenshot', { session: term.id });
  order.push('screenshot');
  assert.equal(shot.sc.session, term.id);
  assert.deepEqual(order, ['screenshot'], 'the terminal answered while the presses went on');
  // A person's stop ends the press under way and the ones still queued,
  // with every button released.
  process.kill(srv.pid, 'SIGUSR1');
  const results = await Promise.all(clicks);
  for (const r of results) {
    assert.equal(r.isError, true);
    assert.match(r.content.map((c) => c.text).join(' '), /Paused by the person/);
  }
  process.kill(srv.pid, 'SIGUSR2');
});

test('a 1920×1080 desktop screenshot comes back 1568 wide, and a click at its image coordinates with its scale lands on that pixel', topts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 1920, height: 1080 });
  const shot = await srv.ok('screenshot', { session });
  const png = decodePng(imageOf(shot).data);
  assert.equal(png.width, 1568);
  assert.equal(png.height, 882);
  assert.equal(shot.sc.width, 1568);
  assert.ok(Math.abs(shot.sc.scale - 1568 / 1920) < 1e-9, `scale ${shot.sc.scale}`);
  assert.ok(imageOf(shot).data.length * 3 / 4 <= 1000000, 'at most 1 MB');
  // Image pixel 1225,735 is screen pixel 1500,900.
  const clicked = await srv.ok('click', { session, x: 1225, y: 735, scale: shot.sc.scale, button: 'middle' });
  assert.deepEqual([clicked.sc.x, clicked.sc.y], [1500, 900]);
  // The pointer is drawn where a click at 1500,900 itself puts it: the
  // pixels it changes sit at the same offsets from the spot (whatever the
  // pointer's shape) as after a click at 1000,500 given in screen pixels.
  const drawn = async (cx, cy) => {
    const region = { x: cx - 20, y: cy - 20, width: 40, height: 40 };
    const a = decodePng(imageOf(await srv.ok('screenshot', { session, region })).data);
    const b = decodePng(imageOf(await srv.ok('screenshot', { session, region, cursor: true })).data);
    const at = [];
    for (let i = 0; i < a.data.length; i += 4) if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1]) at.push(i / 4);
    return at;
  };
  const scaled = await drawn(1500, 900);
  await srv.ok('click', { session, x: 1000, y: 500, button: 'middle' });
  const direct = await drawn(1000, 500);
  assert.ok(direct.length >= 10, `the pointer changed ${direct.length} pixels`);
  assert.deepEqual(scaled, direct);
  // fit: false is the screen's own size.
  const full = await srv.ok('screenshot', { session, fit: false });
  assert.equal(full.sc.width, 1920);
  assert.equal(full.sc.scale, 1);
});
