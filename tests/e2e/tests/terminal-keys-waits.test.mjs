// press_key and wait_for: keys reach programs encoded as they expect, and
// waits answer on text, regex, disappearance, quiet, exit and timeout, and
// can be cancelled.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { childrenOf, ms, startServer, textOf, terminalOpts as topts, until } from '../lib/terminal.mjs';

test('ctrl+c interrupts a running command and the prompt returns', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  await srv.type(s.id, 'sleep 100\n');
  // The sleep is running (a child of bash) before the key is pressed.
  await until(() => childrenOf(s.pid).some((p) => p.comm === 'sleep'), ms(5000), 'sleep to start');
  const k = await srv.key(s.id, 'ctrl+c');
  assert.equal(k.bytes, 1);
  assert.equal(k.key, 'ctrl+c');
  // Typed while sleep ran, this would wait 100 s; it runs only if ^C worked.
  await srv.run(s.id, 'echo "rc=$?"', '^rc=130$');
  assert.ok(!childrenOf(s.pid).some((p) => p.comm === 'sleep'), 'sleep is still running');
});

test('Up recalls history (repeat presses it more than once); Home and End edit the line', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 10 });
  await srv.run(s.id, 'echo hist-$((40+2))', '^hist-42$');
  await srv.type(s.id, 'clear\n');
  await srv.waitFor(s.id, { text: 'hist-42', gone: true });
  await srv.waitFor(s.id, { text: 'gb$ ' });
  // History: "clear", then "echo hist-...": two presses of Up.
  const up = await srv.key(s.id, 'Up', { repeat: 2 });
  assert.equal(up.repeat, 2);
  assert.ok(up.bytes >= 6, `two Up keys are at least 6 bytes, got ${up.bytes}`);
  await srv.waitFor(s.id, { text: 'gb$ echo hist-$((40+2))' });
  await srv.key(s.id, 'Enter');
  await srv.waitFor(s.id, { regex: '^hist-42$' });
  // Type only once bash shows its next prompt: keys sent before readline
  // reads them are echoed by the terminal, not edited (a loaded machine
  // shows that).
  await srv.waitFor(s.id, { regex: '^gb\\$ ?$' });

  // Home and End: type the middle, add the start and the end.
  await srv.type(s.id, 'cho mid');
  await srv.waitFor(s.id, { text: 'gb$ cho mid' });
  await srv.key(s.id, 'Home');
  await srv.type(s.id, 'e');
  await srv.key(s.id, 'End');
  await srv.type(s.id, 'dle-$((1+1))\n');
  await srv.waitFor(s.id, { regex: '^middle-2$' });
  await srv.waitFor(s.id, { regex: '^gb\\$ ?$' });

  // A character key repeated, then Backspace repeated.
  const x = await srv.key(s.id, 'x', { repeat: 5 });
  assert.equal(x.bytes, 5);
  await srv.waitFor(s.id, { regex: '^gb\\$ xxxxx$' });
  await srv.key(s.id, 'Backspace', { repeat: 3 });
  await srv.waitFor(s.id, { regex: '^gb\\$ xx$' });
  await srv.key(s.id, 'ctrl+u');
  await srv.type(s.id, 'echo "tab:" | cat -A\n');
  await srv.waitFor(s.id, { regex: '^tab:\\$$' });
});

test('an unknown key is an error listing the valid names', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['cat'] });
  const text = await srv.err('press_key', { session: s.id, key: 'ctrl+foo' });
  assert.match(text, /unknown key "foo"/);
  for (const name of ['Enter', 'Tab', 'Escape', 'Backspace', 'Up', 'PageDown', 'F12', 'ctrl']) {
    assert.ok(text.includes(name), `the error does not list ${name}: ${text}`);
  }
  await srv.err('press_key', { session: s.id, key: 'hyp+x' }, /unknown modifier "hyp"/);
  // hyper is a modifier, but none a terminal program can receive.
  await srv.err('press_key', { session: s.id, key: 'hyper+x' }, /hyper in "hyper\+x" is not supported by terminal sessions/);
  await srv.err('press_key', { session: s.id, key: 'Enter', repeat: 0 }, /"repeat"/);
  await srv.err('press_key', { session: s.id, key: 'Enter', repeat: 1001 }, /"repeat"/);
  await srv.err('press_key', { session: s.id }, /"key"/);
  // Nothing was sent: cat still shows an empty screen, and keys still work.
  assert.equal((await srv.readText(s.id)).text, '');
  await srv.key(s.id, 'a');
  await srv.waitFor(s.id, { regex: '^a$' });
});

test('wait_for text and regex report the matching line and row', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 10 });
  await srv.type(s.id, `clear; printf '%s\\n' alpha-1 beta-22 gamma-333\n`);
  const re = await srv.waitFor(s.id, { regex: '^gamma-[0-9]{3}$' });
  assert.equal(re.line, 'gamma-333');
  assert.equal(re.row, 2);
  // The command line is gone (cleared): only the output has the text.
  const text = await srv.waitFor(s.id, { text: 'beta-2' });
  assert.equal(text.matched, true);
  assert.equal(text.reason, 'matched');
  assert.equal(text.line, 'beta-22');
  assert.equal(text.row, 1);
  assert.equal(text.session, s.id);
  assert.ok(Number.isInteger(text.elapsed_ms) && text.elapsed_ms >= 0);
  // A prompt's trailing space counts, though lines are trimmed.
  const prompt = await srv.waitFor(s.id, { text: 'gb$ ' });
  assert.equal(prompt.line, 'gb$');
  assert.equal(prompt.row, 3);
  // The mirror says what matched.
  const raw = await srv.call('wait_for', { session: s.id, text: 'alpha' });
  assert.match(textOf(raw), /matched after \d+ ms: alpha-1/);
});

test('wait_for gone: waits for text to disappear', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 10 });
  await srv.run(s.id, `printf '%s-%s\\n' GONE SOON`, '^GONE-SOON$');
  // Not gone yet: a short wait times out.
  const early = await srv.ok('wait_for', { session: s.id, text: 'GONE-SOON', gone: true, timeout_ms: 200 });
  assert.equal(early.sc.matched, false);
  assert.equal(early.sc.reason, 'timeout');
  // Wait first, then clear the screen: the pending wait answers.
  const waiting = srv.waitFor(s.id, { text: 'GONE-SOON', gone: true });
  await srv.status(); // the wait is registered before the clear is typed
  await srv.type(s.id, 'clear\n');
  const gone = await waiting;
  assert.equal(gone.matched, true);
  assert.equal(gone.line, null);
  const r = await srv.readText(s.id);
  assert.ok(!r.text.includes('GONE-SOON'), r.text);
  // gone with a regex.
  await srv.waitFor(s.id, { regex: '^GONE', gone: true });
});

test('wait_for stable_ms waits until output has been quiet that long', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 20 });
  // Output every 150 ms for about 1.2 s: never quiet for 600 ms until it ends.
  await srv.type(s.id, 'for i in $(seq 1 8); do echo step-$i; sleep 0.15; done\n');
  await srv.waitFor(s.id, { regex: '^step-1$' });
  const w = await srv.waitFor(s.id, { stable_ms: 600 }, ms(15000));
  assert.equal(w.matched, true);
  assert.ok(w.elapsed_ms >= 600, `elapsed ${w.elapsed_ms}`);
  const r = await srv.readText(s.id);
  assert.ok(r.lines.includes('step-8'), `answered before the output ended:\n${r.text}`);
  // Text and stable together: both must hold.
  const both = await srv.waitFor(s.id, { text: 'step-8', stable_ms: 100 });
  assert.equal(both.line, 'step-8');
});

test('wait_for exit, and a wait for text ended by the program exiting', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['bash', '-c', 'echo started; read x; echo "bye $x"; exit 4'] });
  await srv.waitFor(s.id, { text: 'started' });
  const waiting = srv.ok('wait_for', { session: s.id, text: 'never-printed', timeout_ms: ms(30000) });
  const exiting = srv.waitFor(s.id, { exit: true });
  await srv.status();
  await srv.type(s.id, 'now\n');
  const w = await exiting;
  assert.equal(w.exit_status, 4);
  const notext = (await waiting).sc;
  assert.equal(notext.matched, false);
  assert.equal(notext.reason, 'the program exited');
  assert.equal(notext.exit_status, 4);
  assert.ok(notext.elapsed_ms < ms(10000), `answered after ${notext.elapsed_ms} ms`);
  // Text that is on the final screen still matches after the exit.
  const after = await srv.waitFor(s.id, { text: 'bye now' });
  assert.equal(after.exit_status, 4);
  // Text that is not answers at once.
  const miss = await srv.ok('wait_for', { session: s.id, text: 'absent', timeout_ms: ms(20000) });
  assert.equal(miss.sc.reason, 'the program exited');
  // Exit and text together.
  const both = await srv.waitFor(s.id, { exit: true, regex: '^bye' });
  assert.equal(both.line, 'bye now');
});

test('wait_for timeout is an answer, not an error', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['cat'] });
  const r = await srv.call('wait_for', { session: s.id, text: 'never', timeout_ms: 300 });
  assert.ok(!r.isError, textOf(r));
  assert.equal(r.structuredContent.matched, false);
  assert.equal(r.structuredContent.reason, 'timeout');
  assert.equal(r.structuredContent.line, null);
  assert.ok(r.structuredContent.elapsed_ms >= 290, `elapsed ${r.structuredContent.elapsed_ms}`);
  assert.match(textOf(r), /not matched after \d+ ms: timeout/);
  // timeout_ms 0 checks once.
  const now = await srv.ok('wait_for', { session: s.id, text: 'never', timeout_ms: 0 });
  assert.equal(now.sc.matched, false);
  // An exit that does not come in time.
  const ex = await srv.ok('wait_for', { session: s.id, exit: true, timeout_ms: 200 });
  assert.equal(ex.sc.matched, false);
  assert.equal(ex.sc.reason, 'timeout');
});

test('wait_for argument errors: invalid regex, nothing to wait for, text and regex', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['cat'] });
  const bad = await srv.err('wait_for', { session: s.id, regex: '(unclosed' });
  assert.match(bad, /"regex"/);
  assert.match(bad, /regular expression/);
  await srv.err('wait_for', { session: s.id }, /needs something to wait for/);
  await srv.err('wait_for', { session: s.id, timeout_ms: 100 }, /needs something to wait for/);
  await srv.err('wait_for', { session: s.id, text: 'a', regex: 'b' }, /either "text" or "regex"/);
  await srv.err('wait_for', { session: s.id, text: '' }, /"text"/);
  await srv.err('wait_for', { session: s.id, stable_ms: 0 }, /"stable_ms"/);
  await srv.err('wait_for', { session: 'terminal-999', text: 'x' }, /unknown session "terminal-999"; live sessions: terminal-1/);
  // Still serving this session.
  await srv.type(s.id, 'ok\n');
  await srv.waitFor(s.id, { regex: '^ok$' });
});

test('several waits on one session answer independently', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  const a = srv.waitFor(s.id, { regex: '^first-1$' });
  const b = srv.waitFor(s.id, { regex: '^second-2$' });
  const never = srv.ok('wait_for', { session: s.id, text: 'third-3', timeout_ms: 500 });
  await srv.status();
  await srv.type(s.id, `printf '%s-%s\\n' first 1; read x; printf '%s-%s\\n' second 2\n`);
  assert.equal((await a).line, 'first-1');
  await srv.type(s.id, 'go\n');
  assert.equal((await b).line, 'second-2');
  assert.equal((await never).sc.reason, 'timeout');
});

test('cancelling a long wait_for leaves the server responsive', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  const ac = new AbortController();
  const long = srv.call('wait_for', { session: s.id, text: 'never-ever', timeout_ms: 600000 }, { signal: ac.signal });
  await srv.status(); // the wait is in place
  const t0 = performance.now();
  ac.abort();
  await assert.rejects(long);
  // The server goes on: quickly, and with the session intact.
  const st = await srv.status();
  assert.ok(st.elapsed < 1000, `status took ${st.elapsed} ms`);
  await srv.run(s.id, `printf '%s-%s\\n' after cancel`, '^after-cancel$');
  const list = await srv.list();
  assert.equal(list.length, 1);
  assert.ok(performance.now() - t0 < ms(10000));
  // More cancelled waits do not pile up trouble.
  for (let i = 0; i < 5; i++) {
    const c = new AbortController();
    const p = srv.call('wait_for', { session: s.id, regex: '^nope$', timeout_ms: 600000 }, { signal: c.signal });
    await srv.status();
    c.abort();
    await assert.rejects(p);
  }
  await srv.run(s.id, 'echo "rc=$?"', '^rc=0$');
  // A cancelled request gets no answer.
  const answered = srv.handle.inbound.filter((m) => m.result?.structuredContent?.reason === 'cancelled');
  assert.deepEqual(answered, [], 'a cancelled wait_for was answered');
});
