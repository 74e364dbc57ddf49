// What agents reading a terminal need every day: read_text {since: "last"}
// answers only the output that is new since the caller's last read;
// wait_for {at_cursor} waits for a prompt (trailing space included) and not
// for the echo of the command just typed; every wait_for says elapsed_ms.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PROMPT, ms, startServer, textOf, terminalOpts as topts } from '../lib/terminal.mjs';

test('read_text since last answers only the output new since the previous read', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 40, rows: 6 });
  // A plain read marks everything so far as read.
  await srv.readText(s.id);
  await srv.run(s.id, 'for i in 1 2 3 4 5 6 7 8 9 10; do echo n$i; done', '^n10$');
  const first = await srv.readText(s.id, { since: 'last' });
  assert.equal(first.since, 'last');
  // More lines than the screen holds: none lost, none from before the mark.
  const ns = first.lines.filter((l) => /^n\d+$/.test(l));
  assert.deepEqual(ns, Array.from({ length: 10 }, (_, i) => `n${i + 1}`));
  assert.ok(!first.text.includes('gb$ gb$'), first.text);

  // Nothing new: an empty answer that says so.
  const none = await srv.readText(s.id, { since: 'last' });
  assert.equal(none.text, '');
  assert.deepEqual(none.lines, []);
  const r = await srv.ok('read_text', { session: s.id, since: 'last' });
  assert.match(textOf(r), /no new output/);

  await srv.run(s.id, 'printf "\\033[1;32mgreen\\033[0m\\n"', '^green$');
  const next = await srv.readText(s.id, { since: 'last' });
  assert.match(next.text, /^green$/m, 'escape sequences are taken out');
  assert.ok(!next.text.includes('n10'), next.text);
});

test('wait_for at_cursor waits for the prompt, not the echo of the command just typed', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 10 });
  // The command's echo holds the prompt text ("gb$ " appears in the
  // echoed line) and the old prompt is still on screen when the wait
  // starts; only the prompt after the command's output may match.
  await srv.type(s.id, `sleep 0.5; echo '${PROMPT}not-yet'; sleep 0.3; echo done-now\n`);
  const hit = await srv.waitFor(s.id, { text: PROMPT, at_cursor: true }, ms(10000));
  assert.equal(hit.matched, true);
  assert.ok(Number.isInteger(hit.elapsed_ms) && hit.elapsed_ms >= 0, JSON.stringify(hit));
  const screen = await srv.readText(s.id);
  assert.ok(screen.lines.includes('done-now'), `the wait ended after the command: ${screen.text}`);
  // Right after typing, a plain wait for the prompt text matches the old
  // prompt at once; at_cursor with a regex works the same way.
  await srv.type(s.id, 'sleep 0.3; echo second\n');
  await srv.waitFor(s.id, { regex: 'gb\\$ $', at_cursor: true });
  assert.ok((await srv.readText(s.id)).lines.includes('second'));
  await srv.err('wait_for', { session: s.id, at_cursor: true, stable_ms: 10 }, /"at_cursor" needs "text" or "regex"/);
});

test('every wait_for answer says how long it took', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  const miss = await srv.ok('wait_for', { session: s.id, text: 'never-there', timeout_ms: ms(300) });
  assert.equal(miss.sc.matched, false);
  assert.ok(miss.sc.elapsed_ms >= ms(300) - 5, JSON.stringify(miss.sc));
  assert.match(textOf(miss), /not matched after \d+ ms: timeout/);
  await srv.type(s.id, "sleep 0.2; echo tim''ed\n");
  const hit = await srv.ok('wait_for', { session: s.id, text: 'timed', timeout_ms: ms(10000) });
  assert.equal(hit.sc.matched, true);
  assert.ok(hit.sc.elapsed_ms >= 100, JSON.stringify(hit.sc));
  assert.match(textOf(hit), /matched after \d+ ms/);
  const quiet = await srv.ok('wait_for', { session: s.id, stable_ms: 100 });
  assert.ok(Number.isInteger(quiet.sc.elapsed_ms));
});
