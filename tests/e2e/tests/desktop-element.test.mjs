// One element looked at closely on a desktop: element_at (the element under
// a point), inspect (everything known about a ref) and set_value (a
// slider), on zenity dialogs, through the official SDK.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchShell, element, outputOf, settledSnapshot, startDesktop } from '../lib/desktop.mjs';
import { ms, startServer, tempDir, until, desktopOpts as topts } from '../lib/terminal.mjs';
import { needs, textOf } from '../lib/server.mjs';

function centre(b) {
  return { x: b.x + Math.floor(b.width / 2), y: b.y + Math.floor(b.height / 2) };
}

test('element_at names the button under a point, inspect tells all about it, and its ref clicks', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'entry', `zenity --entry --title Who --text 'Your name'`);
  await srv.ok('wait_for', { session, text: 'Your name', timeout_ms: ms(15000) });
  const snap = await srv.ok('snapshot', { session, app: 'zenity' });
  const ok = element(snap.sc, 'push button', 'OK');
  const entry = element(snap.sc, 'text');

  const at = await srv.ok('element_at', { session, ...centre(ok.bounds) });
  assert.equal(at.sc.role, 'push button');
  assert.equal(at.sc.name, 'OK');
  assert.equal(at.sc.app, 'zenity');
  assert.equal(at.sc.window, 'Who');
  assert.ok(at.sc.actions.map((a) => a.toLowerCase()).includes('click'), JSON.stringify(at.sc.actions));
  assert.ok(at.sc.states.includes('enabled') && at.sc.states.includes('showing'), JSON.stringify(at.sc.states));
  assert.deepEqual(at.sc.bounds, ok.bounds);
  // The path runs from the window down to the button.
  assert.equal(at.sc.path[0].role, 'dialog');
  assert.equal(at.sc.path[0].name, 'Who');
  assert.equal(at.sc.path.at(-1).ref, at.sc.ref);
  // An element the snapshot already had keeps its ref.
  assert.equal(at.sc.ref, ok.ref);
  assert.match(textOf(at), /push button "OK"/);
  assert.match(textOf(at), /app "zenity", window "Who"/);

  // The text field: editable, its value read live.
  await srv.ok('type_text', { session, ref: entry.ref, text: 'Ada' });
  const field = await srv.ok('element_at', { session, ...centre(entry.bounds) });
  assert.equal(field.sc.role, 'text');
  assert.equal(field.sc.editable, true);
  assert.equal(field.sc.value, 'Ada');
  const again = await srv.ok('inspect', { session, ref: field.sc.ref });
  assert.equal(again.sc.value, 'Ada');
  assert.ok(again.sc.states.includes('editable'));
  assert.equal(again.sc.window, 'Who');

  // Refs handed out before element_at still work; the new ref clicks.
  const label = await srv.ok('inspect', { session, ref: element(snap.sc, 'label', 'Your name').ref });
  assert.equal(label.sc.name, 'Your name');
  await srv.ok('click', { session, ref: at.sc.ref });
  assert.equal(await outputOf(out), 'Ada\nstatus=0\n');
});

test('element_at and inspect say clearly when nothing is there', topts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv);
  await srv.err('element_at', { session, x: 5, y: 5 }, /no accessible element at 5,5/);
  await srv.err('inspect', { session, ref: 'e1' }, /no snapshot has been taken/);
  await srv.err('inspect', { session, ref: 'x1' }, /ref/);
  await srv.err('element_at', { session, y: 5 }, /x/);
});

test('set_value moves a zenity scale, and refuses what is out of range or not a value', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'scale', `zenity --scale --title Volume --text Level --min-value 0 --max-value 100 --value 10`);
  await srv.ok('wait_for', { session, text: 'Level', timeout_ms: ms(15000) });
  const snap = await srv.ok('snapshot', { session, app: 'zenity' });
  const slider = element(snap.sc, 'slider');
  const set = await srv.ok('set_value', { session, ref: slider.ref, value: 42 });
  assert.equal(set.sc.range.current, 42);
  assert.equal(set.sc.range.maximum, 100);
  assert.equal(set.sc.value, '42');
  await srv.err('set_value', { session, ref: slider.ref, value: 500 }, /out of range for e\d+: 0 to 100/);
  await srv.err('set_value', { session, ref: element(snap.sc, 'push button', 'OK').ref, value: 1 }, /has no value to set/);
  await srv.ok('click', { session, text: 'OK', role: 'push button' });
  assert.equal(await outputOf(out), '42\nstatus=0\n');
});

test('scroll_to brings a row of a 300-row zenity list into view, and says when the list ends first', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const rows = Array.from({ length: 300 }, (_, i) => `'Row ${i + 1}'`).join(' ');
  const out = await launchShell(srv, session, dir, 'list', `zenity --list --title Pick --text 'Pick one' --column Item --height 400 ${rows}`);
  await srv.ok('wait_for', { session, text: 'Row 1', timeout_ms: ms(15000) });
  // Row 240 is far below the fold: GTK lists it, placed outside the scroll pane.
  const before = await srv.ok('snapshot', { session, app: 'zenity', max_nodes: 2000 });
  const pane = element(before.sc, 'scroll pane');
  const hidden = element(before.sc, 'table cell', 'Row 240').bounds;
  assert.ok(hidden.y < pane.bounds.y || hidden.y > pane.bounds.y + pane.bounds.height, JSON.stringify(hidden));

  const r = await srv.ok('scroll_to', { session, text: 'Row 240', exact: true });
  assert.ok(r.sc.scrolls > 0, JSON.stringify(r.sc));
  assert.equal(r.sc.name, 'Row 240');
  assert.match(textOf(r), /"Row 240" shows at/);
  const mid = r.sc.bounds.y + r.sc.bounds.height / 2;
  assert.ok(mid >= pane.bounds.y && mid < pane.bounds.y + pane.bounds.height, `${JSON.stringify(r.sc.bounds)} outside ${JSON.stringify(pane.bounds)}`);

  // Already in view: no scroll at all.
  const again = await srv.ok('scroll_to', { session, text: 'Row 240', exact: true });
  assert.equal(again.sc.scrolls, 0);

  await srv.err('scroll_to', { session, text: 'Row 999' }, /reached the bottom end of the .* scrollable area after \d+ scrolls without seeing Row 999/);
  await srv.err('scroll_to', { session, text: 'Row 1', exact: true, max_scrolls: 2, direction: 'down' }, /still does not show after 2 scrolls|reached the bottom/);
  const up = await srv.ok('scroll_to', { session, text: 'Row 230', exact: true, direction: 'up' });
  assert.ok(up.sc.scrolls > 0);
  assert.equal(up.sc.direction, 'up');

  // The row's ref selects it; OK prints it.
  const row = await srv.ok('scroll_to', { session, text: 'Row 240', exact: true });
  await srv.ok('click', { session, x: row.sc.bounds.x + 5, y: row.sc.bounds.y + Math.floor(row.sc.bounds.height / 2) });
  await srv.ok('click', { session, text: 'OK', role: 'push button' });
  assert.equal(await outputOf(out), 'Row 240\nstatus=0\n');
  await srv.err('scroll_to', { session }, /scroll_to needs "text", "ref" or "role"/);
});

test('find by text without an accessible match reads the screen again once it changed (OCR reused only for the same pixels)', needs('ocr', topts()), async (t) => {
  const srv = await startServer(t);
  if (!srv) return;
  // xterm exposes no accessibility tree: text is found by OCR alone.
  const session = (await srv.ok('desktop_start', { command: ['xterm', '-fa', 'DejaVu Sans Mono', '-fs', '16', '-geometry', '60x10+0+0', '-e', 'sh'] })).sc.id;
  await until(async () => (await srv.ok('window_list', { session })).sc.windows.length > 0, ms(15000), 'the xterm window');
  await srv.ok('wait_for', { session, stable_ms: 300, timeout_ms: ms(10000) });
  await srv.ok('type_text', { session, text: 'echo alphaword\n' });
  await until(async () => (await srv.ok('find', { session, text: 'alphaword' })).sc.count >= 2, ms(10000), 'alphaword on screen');
  const before = await srv.ok('find', { session, text: 'bravoword' });
  assert.equal(before.sc.source, 'ocr');
  assert.equal(before.sc.count, 0);
  const again = await srv.ok('find', { session, text: 'bravoword' });
  assert.equal(again.sc.count, 0);
  await srv.ok('type_text', { session, text: 'echo bravoword\n' });
  await until(async () => (await srv.ok('find', { session, text: 'bravoword' })).sc.count >= 2, ms(10000), 'bravoword once the screen changed');
});

test('element_at sees a window opened since its last answer at the same point', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  await launchShell(srv, session, dir, 'first', `zenity --entry --title First --text 'First here'`);
  await srv.ok('wait_for', { session, text: 'First here', timeout_ms: ms(15000) });
  const first = element((await settledSnapshot(srv, session)).sc, 'dialog', 'First').bounds;
  const point = centre(first);
  assert.equal((await srv.ok('element_at', { session, ...point })).sc.window, 'First');
  assert.equal((await srv.ok('element_at', { session, ...point })).sc.window, 'First');
  // A second dialog opens centred, over the first.
  await launchShell(srv, session, dir, 'second', `zenity --entry --title Second --text 'Second here'`);
  await srv.ok('wait_for', { session, text: 'Second here', timeout_ms: ms(15000) });
  await settledSnapshot(srv, session);
  assert.equal((await srv.ok('element_at', { session, ...point })).sc.window, 'Second');
});
