// Many clients hand the model only a result's text content: the text must
// carry the items, values and states of structuredContent (compactly), not
// a count such as "2 windows" or an element without its value.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchShell, startDesktop } from '../lib/desktop.mjs';
import { desktopOpts, ms, startServer, tempDir, terminalOpts, textOf } from '../lib/terminal.mjs';

test('session_list and status name each session with its kind, state and facts', terminalOpts(), async (t) => {
  const srv = await startServer(t);
  const a = await srv.start({ command: ['cat'], name: 'the cat' });
  const b = await srv.start({ command: ['sh'], cols: 90, rows: 20 });
  const list = await srv.ok('session_list');
  const lines = textOf(list).split('\n');
  assert.equal(lines[0], '2 sessions');
  assert.match(textOf(list), new RegExp(`^${a.id} terminal live name="the cat" pid=${a.pid} cols=120 rows=40 command=\\[cat\\]$`, 'm'));
  assert.match(textOf(list), new RegExp(`^${b.id} terminal live pid=${b.pid} cols=90 rows=20 command=\\[sh\\]$`, 'm'));
  const status = textOf(await srv.ok('status'));
  assert.match(status, new RegExp(`^session ${a.id} terminal live name="the cat" pid=${a.pid} `, 'm'));
  await srv.ok('session_stop', { session: b.id });
  const ended = textOf(await srv.ok('session_list', { include_ended: true }));
  assert.match(ended, new RegExp(`^${b.id} terminal ended end_reason=`, 'm'));
});

test('window_list and find on a desktop give titles, apps, values, states and bounds', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv);
  await launchShell(srv, session, tempDir(t, 'glovebox-mirror-'), 'scale', `zenity --scale --title 'Pick a level' --text Level --value 30`);
  await srv.ok('wait_for', { session, text: 'Level', timeout_ms: ms(15000) });

  const windows = await srv.ok('window_list', { session });
  const w = windows.sc.windows[0];
  assert.match(textOf(windows), /^1 window, top-most first$/m);
  assert.ok(
    textOf(windows).includes(`${w.id} "Pick a level" app=Zenity pid=${w.pid} (${w.bounds.x},${w.bounds.y} ${w.bounds.width}x${w.bounds.height})`),
    textOf(windows),
  );

  const slider = await srv.ok('find', { session, role: 'slider' });
  const e = slider.sc.matches[0];
  assert.equal(e.value, '30');
  // States (focused, under a window manager) come between value and bounds.
  const line = textOf(slider).split('\n').find((l) => l.startsWith(`${e.ref} slider "" value=30`));
  assert.ok(
    line && line.endsWith(`(${e.bounds.x},${e.bounds.y} ${e.bounds.width}x${e.bounds.height})`),
    textOf(slider),
  );
  const ok = textOf(await srv.ok('find', { session, text: 'OK', role: 'push button' }));
  assert.match(ok, /^e\d+ push button "OK" .*\(\d+,\d+ \d+x\d+\)$/m);
});
