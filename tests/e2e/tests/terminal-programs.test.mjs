// Real interactive programs in a terminal session: vim, the python REPL,
// less and top, each driven the way a person would.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { startServer, tempDir, terminalOpts as topts } from '../lib/terminal.mjs';

test('vim: insert text, :wq, and the file is on disk', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const s = await srv.start({ command: ['vim', '-u', 'NONE', '-N', 'file.txt'], cwd: dir, cols: 60, rows: 12 });
  // Vim probes the terminal at start; act once it has settled.
  await srv.waitFor(s.id, { text: '"file.txt" [New]', stable_ms: 200 });
  const during = await srv.snapshot(s.id);
  assert.equal(during.alternate_screen, true);
  assert.equal(during.lines.length, 12);
  assert.equal(during.lines[1], '~');

  await srv.key(s.id, 'i');
  await srv.waitFor(s.id, { text: '-- INSERT --' });
  await srv.type(s.id, 'hello from glovebox\nsecond line');
  await srv.waitFor(s.id, { regex: '^second line$' });
  await srv.key(s.id, 'Escape');
  await srv.waitFor(s.id, { text: '-- INSERT --', gone: true });
  // One line of text is typed as keys, so ":wq" is a command in normal mode.
  await srv.type(s.id, ':wq\n');
  const w = await srv.waitFor(s.id, { exit: true });
  assert.equal(w.exit_status, 0);

  assert.equal(readFileSync(join(dir, 'file.txt'), 'utf8'), 'hello from glovebox\nsecond line\n');
  const after = await srv.snapshot(s.id);
  assert.equal(after.alternate_screen, false);
  assert.equal(after.exited, true);
});

test('python3 REPL evaluates what is typed', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['python3', '-q'], env: { PYTHONSTARTUP: '' } });
  await srv.waitFor(s.id, { text: '>>> ' });
  await srv.type(s.id, 'print(6*7)\n');
  const hit = await srv.waitFor(s.id, { regex: '^42$' });
  assert.equal(hit.line, '42');
  await srv.type(s.id, 'import sys; sys.exit(5)\n');
  const w = await srv.waitFor(s.id, { exit: true });
  assert.equal(w.exit_status, 5);
});

test('less runs on the alternate screen, pages with keys, and q brings the shell back', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 40, rows: 10, env: { LESS: '', LESSHISTFILE: '-' } });
  await srv.type(s.id, 'seq 1 100 | less\n');
  await srv.waitFor(s.id, { regex: '^9$' });
  await srv.waitFor(s.id, { regex: '^:$' });
  const inLess = await srv.snapshot(s.id);
  assert.equal(inLess.alternate_screen, true);
  assert.equal(inLess.lines[0], '1');
  // Space pages down; End (sent in application cursor-key mode) goes to the end.
  await srv.key(s.id, 'Space');
  await srv.waitFor(s.id, { regex: '^18$' });
  await srv.key(s.id, 'End');
  await srv.waitFor(s.id, { text: '(END)' });
  assert.equal((await srv.readText(s.id)).lines.at(-2), '100');
  await srv.key(s.id, 'q');
  await srv.waitFor(s.id, { regex: '^gb\\$$' });
  const back = await srv.snapshot(s.id);
  assert.equal(back.alternate_screen, false);
  assert.equal(back.lines[0], 'gb$ seq 1 100 | less');
  await srv.run(s.id, 'echo "rc=$?"', '^rc=0$');
});

// procps-ng top draws on the normal screen (it sends no smcup), so only
// less is checked for the alternate screen.
test('top refreshes its screen and q quits it', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['top', '-d', '0.5'], cols: 100, rows: 20 });
  await srv.waitFor(s.id, { regex: 'load average' });
  await srv.waitFor(s.id, { regex: 'PID +USER' });
  // It keeps redrawing: the screen changes again after a frame.
  const first = await srv.readText(s.id);
  await srv.waitFor(s.id, { regex: `^top - ${first.lines[0].slice(6, 14)} `, gone: true });
  await srv.key(s.id, 'q');
  const w = await srv.waitFor(s.id, { exit: true });
  assert.equal(w.exit_status, 0);
  const after = await srv.snapshot(s.id);
  assert.equal(after.alternate_screen, false);
  assert.equal(after.exited, true);
});
