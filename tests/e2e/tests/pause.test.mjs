// The person's stop button: `glovebox stop` (or SIGUSR1) pauses every
// input action of the running servers at once — calls in flight are stopped
// and new ones refused — until `glovebox resume` (or SIGUSR2).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, deadline, ms, needs, opts, runCli, sleep, textOf } from '../lib/server.mjs';

function setup() {
  const tmp = mkdtempSync(join(tmpdir(), 'gb-pause-'));
  const policy = join(tmp, 'policy.json');
  writeFileSync(policy, JSON.stringify({ mode: 'autopilot', allow: ['*'] }));
  // A private data dir: `glovebox stop` must only find this test's servers.
  const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config'), XDG_DATA_HOME: join(tmp, 'data') };
  return { tmp, policy, env, dataDir: join(tmp, 'data', 'glovebox') };
}

async function status(client) {
  return (await client.callTool({ name: 'status', arguments: {} })).structuredContent;
}

const PAUSED = /^Paused by the person at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: input actions are stopped\. The person can resume with `glovebox resume` or SIGUSR2/;

test('glovebox stop stops typing in flight and refuses input until glovebox resume', needs('terminal', opts({ timeout: ms(60000) })), async (t) => {
  const { policy, env, dataDir } = setup();
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env });
  const pid = srv.child.pid;
  assert.ok(existsSync(join(dataDir, `serve-${pid}.pid`)), 'serve keeps a pid file');
  assert.deepEqual([(await status(srv.client)).paused, (await status(srv.client)).paused_since], [false, null]);

  // A program that never reads its terminal: a large text cannot all be typed.
  const started = await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['sh', '-c', 'stty raw -echo; exec sleep 600'] } });
  const id = started.structuredContent.id;
  await sleep(300);
  let answered = false;
  const typing = srv.client
    .callTool({ name: 'type_text', arguments: { session: id, text: 'y'.repeat(4 * 1024 * 1024) } }, undefined, { timeout: ms(30000) })
    .finally(() => (answered = true));
  await sleep(500);
  assert.equal(answered, false, 'typing is still going on');

  // A stale pid file (a server that died) is ignored and removed.
  writeFileSync(join(dataDir, 'serve-999999999.pid'), '999999999\n');
  const stop = await runCli(['stop'], { env });
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(stop.stdout, `paused glovebox serve pid ${pid}\n`);
  assert.ok(!existsSync(join(dataDir, 'serve-999999999.pid')), 'the stale pid file is gone');

  const r = await deadline(typing, ms(5000), 'the typing call to be stopped');
  assert.equal(r.isError, true);
  assert.match(textOf(r), PAUSED);
  assert.match(textOf(r), /This call was stopped: stopped after typing \d+ of 4194304 bytes$/);

  const st = await status(srv.client);
  assert.equal(st.paused, true);
  assert.match(st.paused_since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const refused = await srv.client.callTool({ name: 'press_key', arguments: { session: id, key: 'Enter' } });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), PAUSED);
  // Reading the screen still works.
  const read = await srv.client.callTool({ name: 'read_text', arguments: { session: id } });
  assert.ok(!read.isError, textOf(read));

  const resume = await runCli(['resume'], { env });
  assert.equal(resume.code, 0, resume.stderr);
  assert.equal(resume.stdout, `resumed glovebox serve pid ${pid}\n`);
  assert.equal((await status(srv.client)).paused, false);
  // (Not typing: the program still does not read, so its terminal is full.)
  const ok = await srv.client.callTool({ name: 'resize', arguments: { session: id, cols: 100, rows: 30 } });
  assert.ok(!ok.isError, textOf(ok));

  await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
  await srv.close();
  assert.deepEqual(readdirSync(dataDir).filter((f) => f.endsWith('.pid')), [], 'the pid file is removed at exit');
  const none = await runCli(['stop'], { env });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no running glovebox serve found/);
});

test('SIGUSR1 pauses and SIGUSR2 resumes; a question waiting for the person is withdrawn', needs('terminal', opts()), async (t) => {
  const { tmp, env } = setup();
  const policy = join(tmp, 'assist.json');
  writeFileSync(policy, JSON.stringify({ mode: 'assist', allow: ['*'] }));
  let withdrawn = false;
  let asked;
  const askedNow = new Promise((r) => (asked = r));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env, capabilities: { elicitation: {} } });
  srv.client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    asked();
    return new Promise((resolve) => {
      extra.signal.addEventListener('abort', () => {
        withdrawn = true;
        resolve({ action: 'accept', content: { confirm: true } });
      });
    });
  });
  const call = srv.client.callTool({ name: 'terminal_start', arguments: { command: ['true'] } });
  await deadline(askedNow, ms(5000), 'the question');
  process.kill(srv.child.pid, 'SIGUSR1');
  const r = await deadline(call, ms(5000), 'the call to be stopped');
  assert.equal(r.isError, true);
  assert.match(textOf(r), PAUSED);
  assert.match(textOf(r), /This call was stopped: it was waiting for the person's confirmation, and terminal_start did not run\.$/);
  assert.ok(withdrawn, 'the client heard the question withdrawn');
  assert.equal((await status(srv.client)).paused, true);
  // set_mode only lowers privileges: it still works while paused.
  const lowered = await srv.client.callTool({ name: 'set_mode', arguments: { mode: 'assist' } });
  assert.ok(!lowered.isError, textOf(lowered));
  process.kill(srv.child.pid, 'SIGUSR2');
  for (let i = 0; i < 50 && (await status(srv.client)).paused; i++) await sleep(20);
  assert.equal((await status(srv.client)).paused, false);
  const listed = await srv.client.callTool({ name: 'session_list', arguments: {} });
  assert.equal(listed.structuredContent.sessions.length, 0, 'nothing was started');
  await srv.close();
});

test('glovebox stop --pid signals only a glovebox server', opts(), async (t) => {
  const { policy, env } = setup();
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env });
  const other = await runCli(['stop', '--pid', String(process.pid)], { env });
  assert.equal(other.code, 1);
  assert.match(other.stderr, new RegExp(`process ${process.pid} is not a glovebox serve of yours`));
  const bad = await runCli(['stop', '--pid', 'x'], { env });
  assert.equal(bad.code, 2);
  const one = await runCli(['stop', '--pid', String(srv.child.pid)], { env });
  assert.equal(one.code, 0, one.stderr);
  // A signal: the server pauses when its loop takes it, not before stop returns.
  await deadline(
    (async () => {
      while (!(await status(srv.client)).paused) await sleep(20);
    })(),
    ms(5000),
    'the server to pause',
  );
  await srv.close();
});

test('typing that is stopped midway leaves the text typed after it intact', needs('terminal', opts()), async (t) => {
  const { policy, env } = setup();
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env });
  // The program reads nothing for a while, then echoes what it reads.
  const started = await srv.client.callTool({
    name: 'terminal_start',
    arguments: { command: ['sh', '-c', 'stty raw -echo; sleep 2; exec cat'] },
  });
  const id = started.structuredContent.id;
  await sleep(300);
  const ac = new AbortController();
  const big = srv.client.callTool({ name: 'type_text', arguments: { session: id, text: 'y'.repeat(1024 * 1024) } }, undefined, { signal: ac.signal });
  const after = srv.client.callTool({ name: 'type_text', arguments: { session: id, text: 'marker-after' } });
  await sleep(200);
  ac.abort('stop typing');
  await assert.rejects(big, /abort|stop typing/i);
  // The second text is typed in full once the program reads again.
  const r = await deadline(after, ms(10000), 'the text queued behind the stopped one');
  assert.ok(!r.isError, textOf(r));
  const w = await srv.client.callTool({ name: 'wait_for', arguments: { session: id, text: 'marker-after', timeout_ms: ms(5000) } });
  assert.equal(w.structuredContent.matched, true);
  await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
  await srv.close();
});
