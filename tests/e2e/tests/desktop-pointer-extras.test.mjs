// Pointer and keyboard extras on desktops (issue 23): click with modifiers
// held, hover, drag between elements, and typing at a set pace — each
// checked by what the application did.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchShell, element, outputOf, settledSnapshot, startDesktop } from '../lib/desktop.mjs';
import { ms, startServer, tempDir, until, desktopOpts as topts } from '../lib/terminal.mjs';

const mid = (b) => ({ x: b.x + Math.floor(b.width / 2), y: b.y + Math.floor(b.height / 2) });

const settled = (srv, session) => settledSnapshot(srv, session);

test('click with modifiers ["ctrl"] adds a row to a multiple-choice list', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'multi', `zenity --list --multiple --title Many --text Pick --column Item Apple Banana Cherry`);
  await srv.ok('wait_for', { session, text: 'Cherry', timeout_ms: ms(15000) });
  // Each click is seen by the list (its cells' selected state) before the
  // next: on a busy machine a first click can land while the window still
  // settles under the window manager.
  const selected = async (name) => {
    const cells = (await srv.ok('snapshot', { session })).sc.elements.filter((e) => e.role === 'table cell' && e.name === name);
    return cells.some((c) => c.states.includes('selected'));
  };
  await until(async () => {
    await srv.ok('click', { session, ...mid(element((await settled(srv, session)).sc, 'table cell', 'Apple').bounds) });
    return until(() => selected('Apple'), ms(2000), 'Apple selected').then(() => true, () => false);
  }, ms(15000), 'a click to select Apple');
  const now = await settled(srv, session);
  await srv.ok('click', { session, ...mid(element(now.sc, 'table cell', 'Cherry').bounds), modifiers: ['ctrl'] });
  await until(() => selected('Cherry'), ms(5000), 'Cherry selected too');
  assert.ok(await selected('Apple'), 'ctrl kept Apple selected');
  await srv.ok('click', { session, text: 'OK', role: 'push button' });
  assert.equal(await outputOf(out), 'Apple|Cherry\nstatus=0\n');
  await srv.err('click', { session, x: 1, y: 1, modifiers: ['hyperdrive'] }, /modifiers/);
});

test('hover puts the pointer on an element without pressing it', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'q', `zenity --question --text 'Hover here?'`);
  await srv.ok('wait_for', { session, text: 'Hover here?', timeout_ms: ms(15000) });
  const snap = await settled(srv, session);
  const yes = element(snap.sc, 'push button', 'Yes');
  const h = await srv.ok('hover', { session, ref: yes.ref });
  assert.deepEqual({ x: h.sc.x, y: h.sc.y }, mid(yes.bounds));
  const where = await srv.ok('computer', { session, action: 'cursor_position' });
  assert.match(JSON.stringify(where.sc), new RegExp(`"x":${mid(yes.bounds).x},"y":${mid(yes.bounds).y}`));
  // GTK shows the hover as the button's "prelight" — and nothing was pressed.
  await srv.ok('hover', { session, x: 3, y: 3 });
  await srv.err('hover', { session }, /give x and y, or ref/);
  await srv.ok('click', { session, text: 'No', role: 'push button' });
  assert.equal(await outputOf(out), 'status=1\n');
});

test('drag from a point to an element, and from an element to a point, moves a scale', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'scale', `zenity --scale --text Level --min-value 0 --max-value 100 --value 0`);
  await srv.ok('wait_for', { session, text: 'Level', timeout_ms: ms(15000) });
  const snap = await settled(srv, session);
  const slider = element(snap.sc, 'slider');
  const b = slider.bounds;
  await srv.ok('drag', { session, from_ref: slider.ref, to: { x: b.x + b.width + 40, y: mid(b).y } });
  assert.equal((await srv.ok('inspect', { session, ref: slider.ref })).sc.range.current, 100);
  const d = await srv.ok('drag', { session, from: { x: b.x + 12, y: mid(b).y }, to_ref: slider.ref });
  assert.deepEqual(d.sc.to, mid(b));
  const now = (await srv.ok('inspect', { session, ref: slider.ref })).sc.range.current;
  assert.ok(now > 20 && now < 80, `the middle of the scale gave ${now}`);
  await srv.err('drag', { session, from_ref: slider.ref }, /give one start .* and one end/);
  await srv.err('drag', { session, from_ref: 'e99999', to: { x: 1, y: 1 } }, /e99999 is unknown/);
  await srv.ok('click', { session, text: 'OK', role: 'push button' });
  assert.match(await outputOf(out), /^\d+\nstatus=0\n$/);
});

test('type_text delay_ms paces the keys: at least 50 ms a character', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  await launchShell(srv, session, dir, 'entry', `zenity --entry --text Slowly`);
  await srv.ok('wait_for', { session, text: 'Slowly', timeout_ms: ms(15000) });
  const field = element((await srv.ok('snapshot', { session, app: 'zenity' })).sc, 'text');
  const text = 'pacedkeys!';
  const t0 = performance.now();
  await srv.ok('type_text', { session, ref: field.ref, text, delay_ms: 50 });
  const took = performance.now() - t0;
  assert.ok(took >= 50 * text.length, `${text.length} characters took ${took.toFixed(0)} ms`);
  assert.equal((await srv.ok('read_text', { session, ref: field.ref })).sc.text, text);
  // wpm 600 = 20 ms a character.
  const t1 = performance.now();
  await srv.ok('type_text', { session, ref: field.ref, text: '12345', wpm: 600 });
  assert.ok(performance.now() - t1 >= 100);
  // Cancelled midway: the rest is never typed.
  const field2 = element((await srv.ok('snapshot', { session, app: 'zenity' })).sc, 'text');
  await srv.ok('press_key', { session, key: 'ctrl+a' });
  await srv.ok('press_key', { session, key: 'BackSpace' });
  const ac = new AbortController();
  const slow = srv.call('type_text', { session, ref: field2.ref, text: 'abcdefghijklmnopqrst', delay_ms: 100 }, { signal: ac.signal });
  await new Promise((r) => setTimeout(r, 500));
  ac.abort();
  await assert.rejects(slow);
  // Longer than the whole text would have taken (20 × 100 ms).
  await new Promise((r) => setTimeout(r, 2500));
  const left = (await srv.ok('read_text', { session, ref: field2.ref })).sc.text;
  assert.ok(left.length > 0 && left.length < 20 && 'abcdefghijklmnopqrst'.startsWith(left), `typed ${JSON.stringify(left)}`);
  const term = await srv.start({ command: ['sleep', '30'] });
  await srv.err('type_text', { session: term.id, text: 'x', delay_ms: 10 }, /typing pace \(delay_ms, wpm\) is for desktops/);
});

test('restore_focus puts the keyboard focus back after typing into another window', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const outA = await launchShell(srv, session, dir, 'a', `zenity --entry --title Alpha --text 'First field'`);
  await srv.ok('wait_for', { session, text: 'First field', timeout_ms: ms(15000) });
  const outB = await launchShell(srv, session, dir, 'b', `zenity --entry --title Beta --text 'Second field'`);
  await srv.ok('wait_for', { session, text: 'Second field', timeout_ms: ms(15000) });
  // Beta opens centred, over Alpha: move it well aside (restoring raises Alpha).
  await srv.ok('window_manage', { session, window: 'Beta', action: 'move', x: 920, y: 560 });
  const snap = await settled(srv, session);
  const fields = snap.sc.elements.filter((e) => e.role === 'text');
  assert.equal(fields.length, 2);
  const inWindow = (title) => {
    const win = element(snap.sc, 'dialog', title);
    return fields.find((f) => f.bounds.x >= win.bounds.x && f.bounds.x < win.bounds.x + win.bounds.width && f.bounds.y >= win.bounds.y && f.bounds.y < win.bounds.y + win.bounds.height);
  };
  const a = inWindow('Alpha'), b = inWindow('Beta');
  assert.ok(a && b, JSON.stringify(fields));
  await srv.ok('type_text', { session, ref: a.ref, text: 'one' });
  // Into Beta, and the focus goes back to Alpha: the next keys land there.
  await srv.ok('type_text', { session, ref: b.ref, text: 'two', restore_focus: true });
  // A click in Beta's field with restore_focus: the keys still go to Alpha
  // (under a window manager the click itself would have activated Beta).
  await srv.ok('click', { session, x: b.bounds.x + 5, y: b.bounds.y + 5, restore_focus: true });
  await srv.ok('type_text', { session, text: '+three' });
  await srv.ok('press_key', { session, key: 'Enter' });
  assert.equal(await outputOf(outA), 'one+three\nstatus=0\n');
  assert.equal((await srv.ok('read_text', { session, ref: b.ref })).sc.text, 'two');
  await srv.ok('press_key', { session, key: 'Enter', window: 'Beta' });
  assert.equal(await outputOf(outB), 'two\nstatus=0\n');
});

test('a private desktop runs a window manager by default, and none with window_manager: false', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const started = (await srv.ok('desktop_start', {})).sc;
  assert.equal(started.window_manager.program, 'openbox');
  assert.ok(!started.app_pids.includes(started.window_manager.pid));
  await launchShell(srv, started.id, dir, 'one', `zenity --entry --title One --text 'First'`);
  await srv.ok('wait_for', { session: started.id, text: 'First', timeout_ms: ms(15000) });
  await launchShell(srv, started.id, dir, 'two', `zenity --entry --title Two --text 'Second'`);
  await srv.ok('wait_for', { session: started.id, text: 'Second', timeout_ms: ms(15000) });
  // Both open centred, one over the other: move the second aside.
  await srv.ok('window_manage', { session: started.id, window: 'Two', action: 'move', x: 800, y: 450 });
  // The newest window is the active one, framed by the window manager.
  const focused = async () => (await srv.ok('window_list', { session: started.id })).sc.windows.find((w) => w.focused)?.title;
  await until(async () => (await focused()) === 'Two', ms(5000), 'the new window to be focused');
  // A click in the other window activates it, as on a person's desktop...
  const snap = await settledSnapshot(srv, started.id);
  const one = element(snap.sc, 'dialog', 'One').bounds;
  await srv.ok('click', { session: started.id, x: one.x + 5, y: one.y + 5 });
  await until(async () => (await focused()) === 'One', ms(5000), 'the clicked window to be focused');
  // ...unless restore_focus puts the active window back.
  const two = element((await settledSnapshot(srv, started.id)).sc, 'dialog', 'Two').bounds;
  await srv.ok('click', { session: started.id, x: two.x + 5, y: two.y + 5, restore_focus: true });
  assert.equal(await focused(), 'One');

  const bare = (await srv.ok('desktop_start', { window_manager: false })).sc;
  assert.equal(bare.window_manager, undefined);
  await srv.err('desktop_start', { display: bare.display, window_manager: true }, /window_manager is for private desktops/);
});

test('wait_for {exit} waits for a program started in the desktop, with its status and its output', topts(), async (t) => {
  const srv = await startServer(t);
  const started = (await srv.ok('desktop_start', { command: ['sh', '-c', 'sleep 0.3; echo finished-now; exit 3'] })).sc;
  const done = await srv.ok('wait_for', { session: started.id, exit: true, timeout_ms: ms(10000) });
  assert.equal(done.sc.matched, true);
  assert.equal(done.sc.exit_status, 3);
  assert.equal(done.sc.pid, started.app_pids[0]);
  const { readFileSync } = await import('node:fs');
  assert.match(readFileSync(done.sc.log, 'utf8'), /finished-now/);
  // Its output in the answer, as on terminals (and in the text).
  assert.equal(done.sc.output, 'finished-now\n');
  assert.match(done.content[0].text, /exited with status 3.*:\nfinished-now/s);
  // Asked again after it ended: answered at once from what was kept.
  assert.equal((await srv.ok('wait_for', { session: started.id, exit: true, pid: done.sc.pid })).sc.exit_status, 3);

  const slow = (await srv.ok('launch_app', { session: started.id, command: ['sleep', '30'] })).sc.pid;
  const still = await srv.ok('wait_for', { session: started.id, exit: true, timeout_ms: 200 });
  assert.equal(still.sc.matched, false);
  assert.equal(still.sc.pid, slow);
  const quick = (await srv.ok('launch_app', { session: started.id, command: ['sh', '-c', 'sleep 0.2; echo second-program >&2'] })).sc.pid;
  const q = await srv.ok('wait_for', { session: started.id, exit: true, pid: quick, timeout_ms: ms(10000) });
  assert.equal(q.sc.exit_status, 0);
  assert.match(q.sc.output, /second-program/);
  assert.doesNotMatch(q.sc.output, /finished-now/, 'only what was printed while it ran');
  await srv.err('wait_for', { session: started.id, exit: true, pid: 1 }, /pid 1 is not a program of/);
});
