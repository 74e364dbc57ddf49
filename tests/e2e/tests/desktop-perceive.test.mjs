// Desktop perception through MCP only: zenity dialogs read with snapshot
// and find, filled in with type_text, answered with click on refs and text,
// and read with OCR. What is checked is what a user would see: zenity's
// output, the outline a model reads, the words on the screen.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchShell, element, outputOf, startDesktop } from '../lib/desktop.mjs';
import { ms, startServer, tempDir, desktopOpts as topts, terminalOpts, until } from '../lib/terminal.mjs';
import { needs } from '../lib/server.mjs';


test('an entry dialog is filled in and confirmed through refs', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'entry', `zenity --entry --title Who --text 'Your name'`);

  const seen = await srv.ok('wait_for', { session, text: 'Your name', timeout_ms: ms(15000) });
  assert.equal(seen.sc.matched, true);
  assert.equal(seen.sc.source, 'accessibility');

  const snap = await srv.ok('snapshot', { session, app: 'zenity' });
  assert.match(snap.sc.outline, /dialog "Who"/);
  assert.match(snap.sc.outline, /label "Your name"/);
  assert.match(snap.sc.outline, /push button "OK"/);
  const entry = element(snap.sc, 'text');
  assert.ok(entry.states.includes('editable'));
  assert.ok(entry.bounds.width > 0 && entry.bounds.height > 0);
  const okFromSnapshot = element(snap.sc, 'push button', 'OK').ref;

  await srv.ok('type_text', { session, ref: entry.ref, text: 'Grace Hopper' });
  const typed = await srv.ok('read_text', { session, ref: entry.ref });
  assert.equal(typed.sc.text, 'Grace Hopper');

  // find takes a fresh look: new refs, and the snapshot's stop working.
  const found = await srv.ok('find', { session, text: 'ok', role: 'push button' });
  assert.equal(found.sc.source, 'accessibility');
  assert.equal(found.sc.count, 1);
  await srv.err('click', { session, ref: okFromSnapshot }, /is from an older snapshot; take a new snapshot/);

  await srv.ok('click', { session, ref: found.sc.matches[0].ref });
  assert.equal(await outputOf(out), 'Grace Hopper\nstatus=0\n');
  const gone = await srv.ok('wait_for', { session, text: 'Your name', gone: true, timeout_ms: ms(5000) });
  assert.equal(gone.sc.matched, true);
});

test('a question dialog is answered by the text on its button', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'question', `zenity --question --text 'Delete the draft?'`);
  await srv.ok('wait_for', { session, text: 'Delete the draft?', timeout_ms: ms(15000) });
  const found = await srv.ok('find', { session, role: 'push button' });
  assert.deepEqual(found.sc.matches.map((m) => m.name).sort(), ['No', 'Yes']);
  // The budget by the name browsers use; scope is the browsers' own.
  const small = await srv.ok('snapshot', { session, app: 'zenity', max_elements: 2 });
  assert.equal(small.sc.truncated, true);
  assert.ok(small.sc.elements.length <= 2, JSON.stringify(small.sc.elements.length));
  await srv.err('snapshot', { session, max_elements: 2, max_nodes: 2 }, /max_elements, max_nodes: the same budget by two names; give one/);
  const scoped = await srv.call('snapshot', { session, scope: found.sc.matches[0].ref });
  assert.equal(scoped.isError, true);
  assert.equal(scoped.structuredContent.error.code, 'not_supported');
  assert.match(scoped.content[0].text, /"scope" is for browser sessions; on a desktop narrow with "app" or "window"/);
  await srv.ok('click', { session, text: 'No', role: 'push button' });
  assert.equal(await outputOf(out), 'status=1\n');
});

test('the words of a window are read with OCR, with their boxes', needs('ocr', topts()), async (t) => {
  const srv = await startServer(t);
  if (!srv) return;
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  await launchShell(srv, session, dir, 'info', `zenity --info --title Report --text 'Quarterly report ready'`);
  await srv.ok('wait_for', { session, text: 'Quarterly report ready', timeout_ms: ms(15000) });
  const snap = await srv.ok('snapshot', { session, app: 'zenity' });
  const dialog = element(snap.sc, 'dialog');
  const r = await srv.ok('read_text', { session, ref: dialog.ref, ocr: true });
  assert.equal(r.sc.source, 'ocr');
  assert.match(r.sc.text, /Quarterly report ready/);
  const word = r.sc.words.find((w) => w.text === 'Quarterly');
  assert.ok(word, JSON.stringify(r.sc.words));
  // The word lies inside the dialog, in screen pixels.
  assert.ok(word.bounds.x >= dialog.bounds.x && word.bounds.x + word.bounds.width <= dialog.bounds.x + dialog.bounds.width);
  assert.ok(word.confidence > 50);
  await srv.err('read_text', { session, ocr: true, lang: 'klingon' }, /tesseract-ocr-klingon/);
});

test('find is for desktops; terminals say so', terminalOpts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['sleep', '30'] });
  await srv.err('find', { session: s.id, text: 'x' }, /cannot find elements: not supported by terminal sessions/);
  await srv.err('find', { session: s.id }, /find needs "text"/);
  await srv.err('find', { session: s.id, text: 'x', lang: '../../etc/passwd' }, /lang/);
  await srv.err('snapshot', { session: s.id, scope: 'e1' }, /"scope" is for browser sessions; a terminal's snapshot is its lines/);
});

test('a large GTK application (the GTK 3 widget factory) is read and driven while it starts, and never told off', topts(), async (t) => {
  const srv = await startServer(t);
  // wait_for from the first moment: it walks the tree again and again while
  // the application is still building its window.
  const started = (await srv.ok('desktop_start', { command: ['gtk3-widget-factory'] })).sc;
  const session = started.id;
  const seen = await srv.ok('wait_for', { session, text: 'Page 2', timeout_ms: ms(20000) });
  assert.equal(seen.sc.source, 'accessibility');
  for (let i = 0; i < 3; i++) {
    const snap = await srv.ok('snapshot', { session });
    assert.equal(snap.sc.truncated, false, snap.sc.truncation);
    assert.match(snap.sc.outline, /radio button "Page 1" \[checked\]/);
    assert.ok(snap.sc.count > 100, `${snap.sc.count} elements`);
  }
  await srv.ok('click', { session, text: 'Page 2', role: 'radio button' });
  await until(async () => /radio button "Page 2" \[checked\]/.test((await srv.ok('snapshot', { session })).sc.outline), ms(5000), 'page 2 to be chosen');
  // Asking an element for an interface it lacks makes GTK log a CRITICAL to
  // the application's stderr: hundreds per snapshot (once enough to fill a
  // pipe nobody read and freeze the application).
  await srv.ok('session_stop', { session });
  const { readFileSync } = await import('node:fs');
  assert.doesNotMatch(readFileSync(started.log, 'utf8'), /CRITICAL/);
});

test('programs get a UTF-8 locale when the client gave glovebox none (SDK clients pass no LANG)', topts(), async (t) => {
  const srv = await startServer(t, { env: { LANG: '', LC_ALL: '', LC_CTYPE: '' } });
  const label = 'Grüße aus Köln ✓';
  const session = (await srv.ok('desktop_start', { command: ['zenity', '--info', '--title=Locale', `--text=${label}`] })).sc.id;
  const seen = await srv.ok('wait_for', { session, text: label, timeout_ms: ms(15000) });
  assert.equal(seen.sc.source, 'accessibility');
  await srv.ok('session_stop', { session });
});

test('wait_for answers at its timeout even when the application stops answering, and never calls it gone', topts(), async (t) => {
  const srv = await startServer(t);
  const started = (await srv.ok('desktop_start', { command: ['zenity', '--info', '--text=Frozen soon'] })).sc;
  await srv.ok('wait_for', { session: started.id, text: 'Frozen soon', timeout_ms: ms(15000) });
  // A frozen application: its accessibility calls go unanswered (each may
  // take 1.5 s to give up on) and OCR of the screen takes its time too.
  const pid = started.app_pids[0];
  process.kill(pid, 'SIGSTOP');
  t.after(() => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {}
  });
  const w = await srv.ok('wait_for', { session: started.id, text: 'never there', timeout_ms: 1000 });
  assert.equal(w.sc.reason, 'timeout');
  assert.ok(w.sc.elapsed_ms < 1000 + ms(500), `answered after ${w.sc.elapsed_ms} ms`);
  // An application that does not answer has not gone: its text is not
  // reported gone because the walk could not read it.
  const gone = await srv.ok('wait_for', { session: started.id, text: 'Frozen soon', gone: true, timeout_ms: 1000 });
  assert.equal(gone.sc.matched, false, JSON.stringify(gone.sc));
  assert.equal(gone.sc.reason, 'timeout');
  process.kill(pid, 'SIGCONT');
  // Answering again, it is seen to be there; closed, it is gone.
  await srv.ok('wait_for', { session: started.id, text: 'Frozen soon', timeout_ms: ms(10000) });
  await srv.ok('click', { session: started.id, text: 'OK', role: 'push button' });
  const closed = await srv.ok('wait_for', { session: started.id, text: 'Frozen soon', gone: true, timeout_ms: ms(10000) });
  assert.equal(closed.sc.matched, true);
  await srv.ok('session_stop', { session: started.id });
});

test('read_text {ref} reads a field as it is now, not as the snapshot saw it (GTK entry with an icon)', topts(), async (t) => {
  const srv = await startServer(t);
  const session = (await srv.ok('desktop_start', { command: ['gtk3-widget-factory'] })).sc.id;
  await srv.ok('wait_for', { session, text: 'Page 2', timeout_ms: ms(20000) });
  const snap = await srv.ok('snapshot', { session });
  // The entry whose icon is an element inside it: its snapshot's text was
  // answered instead of what the field holds.
  const els = snap.sc.elements;
  const at = els.findIndex((e, i) => e.role === 'text' && e.states.includes('enabled') && els[i + 1]?.role === 'icon' && els[i + 1].parent === e.ref);
  assert.ok(at >= 0, 'an entry with an icon inside');
  const ref = els[at].ref;
  await srv.ok('click', { session, ref });
  await srv.ok('press_key', { session, key: 'ctrl+a' });
  await srv.ok('type_text', { session, ref, text: 'def' });
  await until(async () => (await srv.ok('read_text', { session, ref })).sc.text === 'def', ms(5000), 'read_text to show "def"');
  await srv.ok('press_key', { session, key: 'ctrl+a' });
  await srv.ok('press_key', { session, key: 'BackSpace' });
  // Cleared: an empty field, read from the field (no OCR guess, no stale text).
  await until(async () => {
    const r = (await srv.ok('read_text', { session, ref })).sc;
    return r.text === '' && r.source === 'accessibility';
  }, ms(5000), 'read_text to show the cleared field');
  await srv.ok('session_stop', { session });
});
