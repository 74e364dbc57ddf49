// What a client or a program in a terminal session sends never holds up the
// server or grows it without bound: regexes are bounded, answers to a
// program that does not read are capped, recordings stop at their limits,
// and screenshots have a pixel cap.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { decodeGif, decodePng, imageOf, ms, startServer, textOf, terminalOpts as topts, until } from '../lib/terminal.mjs';

/** The resident memory of a process, in bytes (/proc/<pid>/status VmRSS). */
function rss(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) * 1024;
}

test('a pathological regex never holds up the server: ping answers while wait_for runs', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 120, rows: 10 });
  await srv.type(s.id, "printf 'a%.0s' {1..100}; echo\n");
  await srv.waitFor(s.id, { regex: '^a{100}$' });

  // glibc's regcomp took 12 s on this pattern, on the loop thread.
  const wait = srv.call('wait_for', { session: s.id, regex: '(((a{0,50}){0,50}){0,50})x', timeout_ms: 300 });
  const t0 = Date.now();
  await srv.client.ping();
  const took = Date.now() - t0;
  const r = await wait;
  assert.ok(took < ms(2000), `ping took ${took} ms while a regex wait was starting`);
  if (r.isError) assert.match(textOf(r), /argument "regex": regex too complex/);
  else assert.equal(r.structuredContent.matched, false);

  // One more level of nesting is refused outright, naming the field.
  await srv.err(
    'wait_for',
    { session: s.id, regex: '((((a{0,50}){0,50}){0,50}){0,50})x', timeout_ms: 300 },
    /argument "regex": regex too complex/,
  );
  // A pattern that backtracks without end on a line on screen: a clear
  // error, not a silent "not matched".
  await srv.type(s.id, "clear; printf 'a%.0s' {1..90}; echo '!'\n");
  await srv.waitFor(s.id, { text: 'aaaa!' });
  const msg = await srv.err('wait_for', { session: s.id, regex: '^(\\w+\\s?)*$', timeout_ms: 2000 }, /regex too complex/);
  assert.match(msg, /argument "regex"/);
  // An invalid one names the field too; normal patterns still work.
  await srv.err('wait_for', { session: s.id, regex: '(unclosed', timeout_ms: 100 }, /argument "regex": not a valid regular expression/);
  await srv.type(s.id, 'echo done-$((6*7))\n');
  const hit = await srv.waitFor(s.id, { regex: '^done-\\d+$' });
  assert.equal(hit.line, 'done-42');
  await srv.ok('read_text', { session: s.id });
});

test('a program that asks for the cursor position and never reads does not grow the server', topts(), async (t) => {
  const srv = await startServer(t);
  // Raw mode (no echo, no line discipline), ESC[6n forever, stdin never read:
  // every answer the emulator makes waits for the program.
  const prog = "import os, tty\ntty.setraw(0)\nq = b'\\x1b[6n' * 4096\nwhile True:\n    os.write(1, q)\n";
  const s = await srv.start({ command: ['python3', '-c', prog], cols: 80, rows: 24 });
  await new Promise((r) => setTimeout(r, 500));
  const before = rss(srv.pid);
  await new Promise((r) => setTimeout(r, 3000));
  const grew = rss(srv.pid) - before;
  // Unbounded, the answers grew glovebox by ~12 MB/s.
  assert.ok(grew < 16 * 1024 * 1024, `glovebox grew by ${(grew / 1048576).toFixed(1)} MB in 3 s`);
  const text = await srv.ok('read_text', { session: s.id });
  assert.equal(text.sc.session, s.id);
  await srv.ok('session_stop', { session: s.id });
  assert.match(srv.stderr(), /does not read its input/);
});

test('a recording stops by itself at max_bytes and record_stop writes what it has', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 100, rows: 30 });
  await srv.ok('record_start', { session: s.id, fps: 50, max_bytes: 65536 * 4 });
  // Output that scrolls the whole screen for as long as it runs: every
  // frame is new rows (100×30 cells of 28 bytes, ~84 KB).
  await srv.type(s.id, 'end=$((SECONDS+4)); while [ $SECONDS -lt $end ]; do echo "noise $RANDOM $RANDOM"; sleep 0.01; done; echo loop-$((1+1))\n');
  await until(() => /recording recording-\d+ stopped after/.test(srv.stderr()), ms(20000), 'the recording to stop');
  await srv.waitFor(s.id, { regex: '^loop-2$' }, ms(20000));
  await srv.err('record_start', { session: s.id }, /stopped by itself .*max_bytes reached/);
  const stop = await srv.ok('record_stop', { session: s.id });
  assert.match(stop.sc.stopped_reason, /^max_bytes reached/);
  assert.equal(stop.sc.truncated, true);
  assert.ok(stop.sc.frames >= 2, `frames: ${stop.sc.frames}`);
  const gif = decodeGif(readFileSync(stop.sc.path));
  assert.equal(gif.numFrames(), stop.sc.frames);
  // A recording that ends normally says so.
  await srv.ok('record_start', { session: s.id });
  await srv.type(s.id, 'echo again\n');
  await srv.waitFor(s.id, { regex: '^again$' });
  const again = await srv.ok('record_stop', { session: s.id });
  assert.equal(again.sc.stopped_reason, null);
});

test('a recording stops by itself at max_duration_s', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 40, rows: 6 });
  await srv.ok('record_start', { session: s.id, max_duration_s: 1 });
  await srv.type(s.id, 'end=$((SECONDS+4)); while [ $SECONDS -lt $end ]; do date +%N; sleep 0.05; done\n');
  await until(() => /recording recording-\d+ stopped after .*max_duration_s reached/.test(srv.stderr()), ms(20000), 'the recording to stop');
  const stop = await srv.ok('record_stop', { session: s.id });
  assert.equal(stop.sc.stopped_reason, 'max_duration_s reached (1 s)');
  assert.equal(stop.sc.duration_ms, 1000);
  const gif = decodeGif(readFileSync(stop.sc.path));
  assert.equal(gif.numFrames(), stop.sc.frames);
});

test('screenshots of huge terminals: smaller glyphs up to 16 Mpx, a clear error beyond', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 300, rows: 300 });
  const shot = await srv.ok('screenshot', { session: s.id });
  const png = decodePng(imageOf(shot).data);
  assert.ok(png.width * png.height <= 16 * 1024 * 1024, `${png.width}×${png.height} is over 16 Mpx`);
  assert.ok(shot.sc.scale < 1, `scale ${shot.sc.scale}`);
  assert.equal(shot.sc.width, png.width);

  await srv.ok('resize', { session: s.id, cols: 1000, rows: 1000 });
  const before = rss(srv.pid);
  const calls = [1, 2, 3, 4].map(() => srv.call('screenshot', { session: s.id }));
  for (const r of await Promise.all(calls)) {
    assert.equal(r.isError, true);
    assert.match(textOf(r), /1000×1000 cells.*more than the 16 Mpx a screenshot may have.*resize/);
  }
  // Each was ~760 MB before the cap.
  const grew = rss(srv.pid) - before;
  assert.ok(grew < 200 * 1024 * 1024, `glovebox grew by ${(grew / 1048576).toFixed(0)} MB`);
  await srv.ok('resize', { session: s.id, cols: 80, rows: 24 });
  const small = await srv.ok('screenshot', { session: s.id });
  assert.equal(small.sc.scale, 1);
});
