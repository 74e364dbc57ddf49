// read_text on a terminal whose screen did not change gives its previous
// answer again (kept, its JSON written once): these check that the kept
// answer goes as soon as anything it says changes — the rows, the cursor
// alone, the title alone, the program's exit — and that a read with
// scrollback in between changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ms, startServer, terminalOpts as topts, textOf, until } from '../lib/terminal.mjs';

// A program that changes one thing per Enter, printing nothing else
// (no echo): the cursor, then the title, then it exits with 3.
const STEPS = [
  'stty -echo',
  "printf 'ready'",
  'read a',
  "printf '\\033[3;7H'",
  'read b',
  "printf '\\033]0;named\\007'",
  'read c',
  'exit 3',
].join('; ');

async function readTwice(srv, session) {
  const a = await srv.ok('read_text', { session });
  const b = await srv.ok('read_text', { session });
  assert.deepEqual(b.sc, a.sc, 'two reads of a still screen answer alike');
  assert.deepEqual(b.content, a.content);
  return b;
}

async function readUntil(srv, session, pred, what) {
  let last;
  await until(
    async () => {
      last = await srv.ok('read_text', { session });
      return pred(last.sc);
    },
    ms(10000),
    `${what}; last read: ${JSON.stringify(last?.sc)}`,
  );
  return last;
}

test('a repeated read_text follows the cursor, the title and the exit, each changing alone', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['sh', '-c', STEPS], cols: 30, rows: 5 });
  await srv.waitFor(s.id, { regex: '^ready$' });

  const first = await readTwice(srv, s.id);
  assert.deepEqual(first.sc.lines, ['ready', '', '', '', '']);
  assert.deepEqual(first.sc.cursor, { row: 0, col: 5, visible: true });
  assert.equal(textOf(first), 'ready');

  await srv.type(s.id, '\n');
  const moved = await readUntil(srv, s.id, (sc) => sc.cursor.row === 2, 'the cursor to move');
  assert.deepEqual(moved.sc.cursor, { row: 2, col: 6, visible: true });
  assert.deepEqual(moved.sc.lines, first.sc.lines);
  assert.equal(moved.sc.title, first.sc.title);
  await readTwice(srv, s.id);

  // A read with scrollback between two plain ones: its own answer, and
  // the plain one after it as before.
  const withHistory = await srv.ok('read_text', { session: s.id, scrollback: 10 });
  assert.deepEqual(withHistory.sc.scrollback, []);
  const after = await srv.ok('read_text', { session: s.id });
  assert.equal(after.sc.scrollback, undefined);
  assert.deepEqual(after.sc, moved.sc);

  await srv.type(s.id, '\n');
  const titled = await readUntil(srv, s.id, (sc) => sc.title === 'named', 'the title to change');
  assert.deepEqual(titled.sc.cursor, moved.sc.cursor);
  assert.deepEqual(titled.sc.lines, first.sc.lines);
  await readTwice(srv, s.id);

  await srv.type(s.id, '\n');
  const ended = await readUntil(srv, s.id, (sc) => sc.exited, 'the program to exit');
  assert.equal(ended.sc.exit_status, 3);
  assert.equal(ended.sc.signal, null);
  assert.equal(ended.sc.text, 'ready');
  assert.equal(textOf(ended), 'ready\n[program exited with status 3]');
  const again = await readTwice(srv, s.id);
  assert.deepEqual(again.sc, ended.sc);
});

test('a repeated read_text follows new rows', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['sh', '-c', "stty -echo; printf 'one'; read a; printf '\\ntwo'; read b"], cols: 30, rows: 4 });
  await srv.waitFor(s.id, { regex: '^one$' });
  const before = await readTwice(srv, s.id);
  assert.deepEqual(before.sc.lines, ['one', '', '', '']);
  await srv.type(s.id, '\n');
  await srv.waitFor(s.id, { regex: '^two$' });
  const after = await readTwice(srv, s.id);
  assert.deepEqual(after.sc.lines, ['one', 'two', '', '']);
  assert.equal(after.sc.text, 'one\ntwo');
  assert.equal(textOf(after), 'one\ntwo');
});
