// Windows of a private desktop (no window manager): listed, focused, moved,
// resized and closed through MCP, and keys sent to the window named by
// `window`. Checked against what the programs print.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchShell, outputOf, startDesktop } from '../lib/desktop.mjs';
import { join } from 'node:path';

import { ms, startServer, tempDir, desktopOpts as topts, until } from '../lib/terminal.mjs';
import { needs } from '../lib/server.mjs';

async function twoDialogs(t) {
  const srv = await startServer(t);
  const dir = tempDir(t, 'glovebox-windows-');
  // Exact geometry, as the programs set it: no window manager framing and
  // placing the windows (its frame would offset them by its border and title).
  const session = await startDesktop(srv, { window_manager: false });
  const first = await launchShell(srv, session, dir, 'first', `zenity --entry --title First --text 'First one'`);
  await srv.ok('wait_for', { session, text: 'First one', timeout_ms: ms(15000) });
  const second = await launchShell(srv, session, dir, 'second', `zenity --entry --title Second --text 'Second one'`);
  await srv.ok('wait_for', { session, text: 'Second one', timeout_ms: ms(15000) });
  return { srv, session, first, second };
}

const byTitle = (list, title) => list.windows.find((w) => w.title === title);

test('window_list shows each dialog with its app, pid and bounds; focus follows window_manage', topts(), async (t) => {
  const { srv, session } = await twoDialogs(t);
  const list = (await srv.ok('window_list', { session })).sc;
  assert.equal(list.count, 2);
  const first = byTitle(list, 'First');
  assert.ok(first, JSON.stringify(list));
  assert.equal(first.app, 'Zenity');
  assert.ok(Number.isInteger(first.pid) && first.pid > 1);
  assert.match(first.id, /^0x[0-9a-f]+$/);
  assert.ok(first.bounds.width > 50 && first.bounds.height > 50);
  assert.equal(list.windows[0].title, 'Second', 'the newest window is on top');

  const focused = (await srv.ok('window_manage', { session, window: 'first', action: 'focus' })).sc;
  assert.equal(focused.window.focused, true);
  const after = (await srv.ok('window_list', { session })).sc;
  assert.equal(byTitle(after, 'First').focused, true);
  assert.equal(byTitle(after, 'Second').focused, false);
  assert.equal(after.windows[0].title, 'First', 'focus raises');
});

test('keys go to the window named by window, whichever has the focus', topts(), async (t) => {
  const { srv, session, first, second } = await twoDialogs(t);
  await srv.ok('type_text', { session, window: 'Second', text: 'to the second' });
  await srv.ok('press_key', { session, window: 'Second', key: 'Enter' });
  assert.equal(await outputOf(second), 'to the second\nstatus=0\n');
  const list = (await srv.ok('window_list', { session })).sc;
  await srv.ok('type_text', { session, window: byTitle(list, 'First').id, text: 'to the first' });
  await srv.ok('press_key', { session, window: 'First', key: 'Enter' });
  assert.equal(await outputOf(first), 'to the first\nstatus=0\n');
});

test('windows move, resize and close when asked', topts(), async (t) => {
  const { srv, session, first } = await twoDialogs(t);
  const moved = (await srv.ok('window_manage', { session, window: 'First', action: 'move', x: 10, y: 20 })).sc;
  assert.deepEqual([moved.window.bounds.x, moved.window.bounds.y], [10, 20]);
  const resized = (await srv.ok('window_manage', { session, window: 'First', action: 'resize', width: 500, height: 300 })).sc;
  assert.deepEqual([resized.window.bounds.width, resized.window.bounds.height], [500, 300]);
  await srv.ok('window_manage', { session, window: 'First', action: 'close' });
  assert.match(await outputOf(first), /^status=[1-9]\d*\n$/, 'the program saw its window closed');
  const list = (await srv.ok('window_list', { session })).sc;
  assert.deepEqual(list.windows.map((w) => w.title), ['Second']);
});

test('window errors name what was asked for', needs('terminal', topts()), async (t) => {
  const { srv, session } = await twoDialogs(t);
  await srv.err('window_manage', { session, window: 'Third', action: 'focus' }, /no window whose title contains "Third" \(window_list shows the windows\)/);
  await srv.err('window_manage', { session, window: '0xdead', action: 'focus' }, /no window with id "0xdead"/);
  await srv.err('window_manage', { session, window: 'First', action: 'move' }, /"move" needs x and\/or y/);
  await srv.err('window_manage', { session, window: 'First', action: 'spin' }, /action/);
  await srv.err('type_text', { session, window: 'Third', text: 'x' }, /no window whose title contains "Third"/);
  const term = (await srv.ok('terminal_start', {})).sc;
  await srv.err('window_list', { session: term.id }, /not supported by terminal sessions/);
});

test('a resize the program refuses is reported as the size the window kept, with a note', topts(), async (t) => {
  const srv = await startServer(t);
  // A window that resizes itself back to at least 400x300 (tests/fixtures).
  const program = join(process.env.GLOVEBOX_BUILD, 'x-min-size-window');
  const session = (await srv.ok('desktop_start', { command: [program], window_manager: false })).sc.id;
  let win;
  await until(async () => (win = (await srv.ok('window_list', { session })).sc.windows.find((w) => w.title === 'Stubborn')), ms(10000), 'the window');
  const r = (await srv.ok('window_manage', { session, window: 'Stubborn', action: 'resize', width: 200, height: 350 })).sc;
  assert.deepEqual([r.window.bounds.width, r.window.bounds.height], [400, 350], JSON.stringify(r));
  assert.match(r.note, /the window took 0,0 400x350, not what was asked \(width 200, height 350\)/);
  // What was reported is what the window has.
  const after = (await srv.ok('window_list', { session })).sc.windows.find((w) => w.id === win.id);
  assert.deepEqual(r.window.bounds, after.bounds);
  // A size the window takes comes without a note.
  const fits = (await srv.ok('window_manage', { session, window: 'Stubborn', action: 'resize', width: 600, height: 450 })).sc;
  assert.deepEqual([fits.window.bounds.width, fits.window.bounds.height], [600, 450]);
  assert.equal(fits.note, undefined);
  await srv.ok('session_stop', { session });
});
