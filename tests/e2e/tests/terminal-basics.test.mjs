// Terminal sessions, the basics: run bash, type into it, read the screen,
// exit codes, titles, scrollback, the end of a session, names and defaults,
// resizing and bracketed paste.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PROMPT, startServer, textOf, terminalOpts as topts } from '../lib/terminal.mjs';

test('terminal_start runs bash and returns the session facts', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 12 });
  assert.match(s.id, /^terminal-\d+$/);
  assert.equal(s.kind, 'terminal');
  assert.equal(s.state, 'live');
  assert.ok(Number.isInteger(s.pid) && s.pid > 1, `pid ${s.pid}`);
  assert.equal(s.cols, 60);
  assert.equal(s.rows, 12);
  assert.deepEqual(s.command, ['bash', '--norc', '--noprofile']);
  assert.equal(s.exited, false);
  // The program sees the terminal glovebox promised.
  await srv.run(s.id, 'echo "term=$TERM colorterm=$COLORTERM"', /^term=xterm-256color colorterm=truecolor$/.source);
});

test('bash runs commands and their exit codes come back', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 80, rows: 20 });
  const hit = await srv.run(s.id, `printf '%s-%s\\n' hello world`, '^hello-world$');
  assert.equal(hit.matched, true);
  assert.equal(hit.reason, 'matched');
  assert.equal(hit.line, 'hello-world');
  assert.ok(Number.isInteger(hit.row) && hit.row > 0, `row ${hit.row}`);
  await srv.run(s.id, 'false; echo "rc=$?"', '^rc=1$');
  await srv.run(s.id, 'true; echo "rc=$?"', '^rc=0$');
  await srv.run(s.id, '(exit 7); echo "rc=$?"', '^rc=7$');
  // The environment given at start reaches the program.
  const s2 = await srv.bash({ env: { GB_GREETING: 'from-env' } });
  await srv.run(s2.id, 'echo "got=$GB_GREETING"', '^got=from-env$');
});

test('programs get a UTF-8 locale when glovebox was given none, and keep one that was chosen', topts(), async (t) => {
  const srv = await startServer(t, { env: { LANG: '', LC_ALL: '', LC_CTYPE: '' } });
  const s = await srv.bash();
  await srv.run(s.id, 'echo "lang=$LANG charmap=$(locale charmap)"', '^lang=C.UTF-8 charmap=UTF-8$');
  const chosen = await srv.bash({ env: { LC_ALL: 'C' } });
  await srv.run(chosen.id, 'echo "lang=$LANG charmap=$(locale charmap)"', '^lang= charmap=ANSI_X3.4-1968$');
});

test('read_text gives the lines, the cursor and the title', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 8 });
  await srv.type(s.id, `clear; printf '\\e]0;my title\\a'; printf '%s\\n%s\\n' first second\n`);
  await srv.waitFor(s.id, { regex: '^second$' });
  await srv.waitFor(s.id, { regex: '^gb\\$$' });
  const r = await srv.readText(s.id);
  assert.deepEqual(r.lines, ['first', 'second', 'gb$', '', '', '', '', '']);
  assert.equal(r.text, 'first\nsecond\ngb$');
  assert.deepEqual(r.cursor, { row: 2, col: PROMPT.length, visible: true });
  assert.equal(r.title, 'my title');
  assert.equal(r.exited, false);
  assert.equal(r.exit_status, null);
  // The text mirror is the screen as text.
  const raw = await srv.call('read_text', { session: s.id });
  assert.equal(textOf(raw), 'first\nsecond\ngb$');

  // OSC 2 sets the title too; snapshot reports the same screen.
  await srv.type(s.id, `printf '\\e]2;%s\\a' other-title; echo "t=$?"\n`);
  await srv.waitFor(s.id, { regex: '^t=0$' });
  const snap = await srv.snapshot(s.id);
  assert.equal(snap.title, 'other-title');
  assert.equal(snap.kind, 'terminal');
  assert.equal(snap.alternate_screen, false);
  assert.equal(snap.cols, 60);
  assert.equal(snap.rows, 8);
  assert.equal(snap.lines.length, 8);
  assert.ok(snap.lines.includes('t=0'), JSON.stringify(snap.lines));
});

test('read_text returns scrollback, oldest first, continuing into the screen', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 40, rows: 10 });
  await srv.run(s.id, 'seq 1 50', '^50$');
  await srv.waitFor(s.id, { regex: '^gb\\$$' });
  const r = await srv.readText(s.id, { scrollback: 5 });
  assert.equal(r.scrollback.length, 5, JSON.stringify(r.scrollback));
  const numbers = [...r.scrollback, ...r.lines].filter((l) => /^\d+$/.test(l)).map(Number);
  assert.ok(numbers.length >= 13, `numbers: ${numbers}`);
  assert.equal(numbers.at(-1), 50);
  numbers.forEach((n, i) => i > 0 && assert.equal(n, numbers[i - 1] + 1, `not consecutive: ${numbers}`));
  // Without scrollback, only the screen.
  const plain = await srv.readText(s.id);
  assert.equal(plain.scrollback, undefined);
  assert.equal(plain.lines.length, 10);
});

test('CJK and emoji read back exactly, each wide character once', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 40, rows: 10 });
  // Octal escapes, so the characters appear on screen only as output.
  await srv.type(s.id, "printf '\\346\\227\\245\\346\\234\\254\\350\\252\\236 \\360\\237\\231\\202\\n'\n");
  const hit = await srv.waitFor(s.id, { text: '日本語 🙂' });
  assert.equal(hit.line, '日本語 🙂');
  const r = await srv.readText(s.id);
  assert.ok(r.lines.includes('日本語 🙂'), JSON.stringify(r.lines));
});

test('a program that exits: exit status, errors naming it, the last screen, the ended list', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 10 });
  await srv.run(s.id, `printf '%s-%s\\n' last screen`, '^last-screen$');
  await srv.type(s.id, 'exit 3\n');
  const w = await srv.waitFor(s.id, { exit: true });
  assert.equal(w.exit_status, 3);

  const typed = await srv.err('type_text', { session: s.id, text: 'echo hi\n' });
  assert.match(typed, /cannot type: session terminal-\d+ has ended/);
  assert.match(typed, /exited with status 3/);
  await srv.err('press_key', { session: s.id, key: 'Enter' }, /exited with status 3/);
  await srv.err('resize', { session: s.id, cols: 50, rows: 10 }, /has ended/);

  // The last screen stays readable.
  const r = await srv.readText(s.id);
  assert.equal(r.exited, true);
  assert.equal(r.exit_status, 3);
  assert.equal(r.signal, null);
  assert.ok(r.lines.includes('last-screen'), JSON.stringify(r.lines));
  assert.ok(r.lines.includes('gb$ exit 3'), JSON.stringify(r.lines));
  const snap = await srv.snapshot(s.id);
  assert.equal(snap.exited, true);
  assert.equal(snap.exit_status, 3);

  // session_list hides it unless asked, then says why it ended.
  assert.deepEqual(await srv.list(), []);
  const ended = await srv.list(true);
  const e = ended.find((x) => x.id === s.id);
  assert.ok(e, JSON.stringify(ended));
  assert.equal(e.state, 'ended');
  assert.equal(e.end_reason, 'exited with status 3');
  assert.equal(e.exited, true);
  assert.equal(e.exit_status, 3);

  // Stopping it now reports how it had ended.
  const stop = await srv.stop(s.id);
  assert.equal(stop.was_live, false);
  assert.equal(stop.session.end_reason, 'exited with status 3');
  // A wait for the exit of an ended session answers at once.
  const again = await srv.waitFor(s.id, { exit: true });
  assert.equal(again.exit_status, 3);
});

test('a program killed by a signal reports the signal, not a status', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['bash', '-c', 'echo ready; kill -KILL $$'] });
  const w = await srv.waitFor(s.id, { exit: true });
  assert.equal(w.exit_status, null);
  const r = await srv.readText(s.id);
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.exit_status, null);
  assert.ok(r.lines.includes('ready'));
  await srv.err('type_text', { session: s.id, text: 'x' }, /killed by SIGKILL/);
  const e = (await srv.list(true)).find((x) => x.id === s.id);
  assert.equal(e.end_reason, 'killed by SIGKILL');
  assert.equal(e.exit_status, null);
});

test('sessions are found by name, and tools default to the newest live session', topts(), async (t) => {
  const srv = await startServer(t);
  const a = await srv.bash({ name: 'alpha' });
  const b = await srv.bash({ name: 'beta' });
  assert.notEqual(a.id, b.id);
  const list = await srv.list();
  assert.deepEqual(
    list.map((x) => [x.id, x.name, x.state]),
    [
      [a.id, 'alpha', 'live'],
      [b.id, 'beta', 'live'],
    ],
  );
  // By name.
  await srv.type('alpha', `printf '%s-%s\\n' in alpha\n`);
  const hit = await srv.waitFor('alpha', { regex: '^in-alpha$' });
  assert.equal(hit.session, a.id);
  // No session: the newest live one (beta).
  const typed = await srv.ok('type_text', { text: `printf '%s-%s\\n' in default\n` });
  assert.equal(typed.sc.session, b.id);
  await srv.waitFor(b.id, { regex: '^in-default$' });
  const ra = await srv.readText(a.id);
  assert.ok(!ra.lines.includes('in-default'), 'typed into the wrong session');
  // Once beta is stopped, the default is alpha.
  await srv.stop('beta');
  const r = await srv.ok('read_text', {});
  assert.equal(r.sc.session, a.id);
});

test('resize changes the size the program sees', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 40, rows: 10 });
  await srv.run(s.id, 'echo "size=$(tput cols)x$(tput lines)"', '^size=40x10$');
  const r = await srv.ok('resize', { session: s.id, cols: 100, rows: 30 });
  assert.equal(r.sc.cols, 100);
  assert.equal(r.sc.rows, 30);
  const snap = await srv.snapshot(s.id);
  assert.equal(snap.cols, 100);
  assert.equal(snap.rows, 30);
  assert.equal(snap.lines.length, 30);
  await srv.run(s.id, 'echo "size=$(tput cols)x$(tput lines)"', '^size=100x30$');
  const listed = (await srv.list()).find((x) => x.id === s.id);
  assert.equal(listed.cols, 100);
  assert.equal(listed.rows, 30);
  // Out of range.
  await srv.err('resize', { session: s.id, cols: 1, rows: 10 }, /"cols"/);
  await srv.err('resize', { session: s.id, cols: 5000, rows: 10 }, /"cols"/);
  await srv.err('resize', { session: s.id, cols: 80, rows: 0 }, /"rows"/);
  assert.equal((await srv.snapshot(s.id)).cols, 100);
});

test('type_text types one line as keys and pastes several (bracketed paste) into bash', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 80, rows: 20 });
  const typed = await srv.type(s.id, `printf '%s-%s\\n' typed line\n`);
  assert.equal(typed.bracketed_paste, false);
  assert.ok(typed.bytes > 'printf'.length, JSON.stringify(typed));
  await srv.waitFor(s.id, { regex: '^typed-line$' });
  // bash turns bracketed paste off while a command runs and on again at its
  // next prompt: wait for that prompt.
  await srv.waitFor(s.id, { regex: '^gb\\$$' });
  // Several lines pasted at once: bash runs them all after the Enter.
  const pasted = await srv.type(s.id, `printf '%s-%s\\n' multi one\nprintf '%s-%s\\n' multi two\n`);
  assert.equal(pasted.bracketed_paste, true);
  await srv.waitFor(s.id, { regex: '^multi-two$' });
  const r = await srv.readText(s.id);
  assert.ok(r.lines.includes('multi-one'), JSON.stringify(r.lines));

  // A program that did not ask for bracketed paste gets the text as typed.
  const cat = await srv.start({ command: ['cat', '-A'] });
  const plain = await srv.type(cat.id, 'plain text\n');
  assert.equal(plain.bracketed_paste, false);
  assert.equal(plain.bytes, 'plain text\n'.length);
  // The terminal echoes the line, then cat prints it back ($ marks its end).
  await srv.waitFor(cat.id, { regex: '^plain text\\$$' });
  const c = await srv.readText(cat.id);
  assert.deepEqual(c.lines.slice(0, 2), ['plain text', 'plain text$']);
  assert.ok(!c.text.includes('200~'), 'paste markers reached a program that did not ask for them');
});

test('session_stop ends a live bash session', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  const stop = await srv.stop(s.id);
  assert.equal(stop.was_live, true);
  assert.equal(stop.session.id, s.id);
  assert.equal(stop.session.state, 'ended');
  assert.equal(stop.session.end_reason, 'stopped by session_stop');
  assert.deepEqual(await srv.list(), []);
  await srv.err('type_text', { session: s.id, text: 'x' }, /has ended/);
  // Stopping twice is harmless.
  assert.equal((await srv.stop(s.id)).was_live, false);
});
