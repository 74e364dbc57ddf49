// terminal_run: a command typed at the shell prompt, answered with its
// output and exit status (zero, non-zero, the shell's own exit), or with
// what it printed so far when its time is up.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ms, startServer, textOf, terminalOpts as topts } from '../lib/terminal.mjs';

test('terminal_run answers the output and exit status of a command', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 10 });
  const r = await srv.ok('terminal_run', { session: s.id, command: 'printf "one\\ntwo\\n"; echo three' });
  assert.equal(r.sc.output, 'one\ntwo\nthree\n');
  assert.equal(r.sc.exit_status, 0);
  assert.equal(r.sc.timed_out, false);
  assert.equal(r.sc.exited, false);
  assert.ok(Number.isInteger(r.sc.elapsed_ms));
  assert.match(textOf(r), /^exit status 0 after \d+ ms\none\ntwo\nthree/);

  // Longer than the screen, colours stripped, non-zero status.
  const long = await srv.ok('terminal_run', {
    command: 'for i in $(seq 40); do printf "\\033[31mrow%d\\033[0m\\n" $i; done; (exit 3)',
  });
  assert.equal(long.sc.output, Array.from({ length: 40 }, (_, i) => `row${i + 1}\n`).join(''));
  assert.equal(long.sc.exit_status, 3);

  // What would break a plain `cmd; echo $?`: a comment, a background job.
  const odd = await srv.ok('terminal_run', { command: 'false # a comment' });
  assert.equal(odd.sc.exit_status, 1);
  assert.equal(odd.sc.output, '');
  const bg = await srv.ok('terminal_run', { command: 'sleep 0.1 &' });
  assert.equal(bg.sc.exit_status, 0);
  // Output that looks like a mark is output.
  const look = await srv.ok('terminal_run', { command: "echo '133;D;9;x'; exit_code_is() { return 5; }; exit_code_is" });
  assert.equal(look.sc.output, '133;D;9;x\n');
  assert.equal(look.sc.exit_status, 5);
  // The shell is still at its prompt afterwards, ready for the next one.
  const again = await srv.ok('terminal_run', { command: 'echo $((2+3))' });
  assert.equal(again.sc.output, '5\n');
});

test('terminal_run answers what was printed when the time is up, and the command keeps running', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  const r = await srv.ok('terminal_run', { session: s.id, command: 'echo started; sleep 30', timeout_ms: ms(800) });
  assert.equal(r.sc.timed_out, true);
  assert.equal(r.sc.exit_status, null);
  assert.equal(r.sc.output, 'started\n');
  assert.match(textOf(r), /still running/);
  // It still runs: ctrl+c ends it and the prompt comes back.
  await srv.key(s.id, 'ctrl+c');
  const next = await srv.ok('terminal_run', { session: s.id, command: 'echo back' });
  assert.equal(next.sc.output, 'back\n');
});

test('terminal_run reports the shell exiting, and refuses what is not a prompt', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  const bye = await srv.ok('terminal_run', { session: s.id, command: 'echo bye; exit 4' });
  assert.equal(bye.sc.exited, true);
  assert.equal(bye.sc.exit_status, 4);
  assert.match(bye.sc.output, /^bye\n/);
  await srv.err('terminal_run', { session: s.id, command: 'true' }, /has ended/);

  const s2 = await srv.bash();
  await srv.type(s2.id, 'printf "\\033[?1049h"; sleep 30\n');
  for (let i = 0; i < 100 && !(await srv.snapshot(s2.id)).alternate_screen; i++) await new Promise((r) => setTimeout(r, 50));
  await srv.err('terminal_run', { session: s2.id, command: 'true' }, /full-screen program/);
  await srv.err('terminal_run', { session: s2.id, command: 'a\u0003b' }, /control characters/);
  await srv.err('terminal_run', { session: s2.id }, /command/);
});
