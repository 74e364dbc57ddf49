// A stdio client that stops reading stdout: replies pile up in glovebox's
// write queue, the shutdown deadline gives up waiting for them, and glovebox
// exits within the deadline, saying why, with no sanitizer report (the
// queued writes are cancelled before the transport is freed).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertNoSanitizerReport, binary, deadline, ms, serverEnv } from '../lib/server.mjs';

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stalled', version: '1' } },
};
// Each tools/list answer is tens of kilobytes: 150 of them are far more than
// a pipe and Node's read-ahead hold, so most stay queued in glovebox — yet
// less than the 16 MiB of queued replies at which glovebox stops reading
// (then it would never read the end of input; the third test covers that).
const REQUESTS = 150;
// serve's shutdown deadline (SHUTDOWN_DEADLINE_MS) plus room for a slow machine.
const EXIT_WITHIN = 10000 + ms(10000);

/** Bytes the process has written (stdout and stderr), from /proc/<pid>/io. */
function written(pid) {
  const m = /^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

function startStalled(t) {
  const child = spawn(binary(), ['serve'], { env: serverEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  // Never read: pause the stream so Node stops reading once its buffer is full.
  child.stdout.pause();
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  child.stdin.on('error', () => {});
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const stderrEnded = new Promise((r) => child.stderr.once('end', r));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines = [JSON.stringify(INIT), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })];
  for (let i = 1; i <= REQUESTS; i++) lines.push(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
  child.stdin.write(lines.join('\n') + '\n');
  return { child, exited, stderrEnded, stderr: () => stderr };
}

async function assertGaveUpCleanly(srv, started) {
  const status = await deadline(srv.exited, EXIT_WITHIN, 'glovebox to exit with replies stuck in its queue');
  await deadline(srv.stderrEnded, ms(2000), 'server stderr to close');
  assertNoSanitizerReport(srv.stderr());
  assert.equal(status.signal, null, `killed by ${status.signal}:\n${srv.stderr().slice(0, 4000)}`);
  assert.equal(status.code, 1, `exit status:\n${srv.stderr().slice(0, 4000)}`);
  assert.match(srv.stderr(), /shutdown took longer than 10000 ms; exiting anyway/);
  assert.ok(Date.now() - started < EXIT_WITHIN);
}

test('stdin closes while the client reads no replies: exits at the deadline, cleanly', { timeout: EXIT_WITHIN + ms(20000) }, async (t) => {
  const srv = startStalled(t);
  const started = Date.now();
  srv.child.stdin.end(); // every request is read before the end of input
  await assertGaveUpCleanly(srv, started);
});

test('SIGTERM while the client reads no replies: exits at the deadline, cleanly', { timeout: EXIT_WITHIN + ms(20000) }, async (t) => {
  const srv = startStalled(t);
  // It read every request at once and queued every reply before writing
  // any; once it has written more than a pipe holds, the rest wait in its queue.
  await deadline(
    (async () => {
      while (written(srv.child.pid) < 65536) await new Promise((r) => setTimeout(r, 50));
    })(),
    ms(10000),
    'glovebox to start answering',
  );
  const started = Date.now();
  srv.child.kill('SIGTERM');
  await assertGaveUpCleanly(srv, started);
});

/** Resident memory of a process in MiB, from /proc/<pid>/status. */
function rssMiB(pid) {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

test('a client that sends requests but reads no replies cannot grow glovebox past its output bound', { timeout: ms(120000) }, async (t) => {
  const child = spawn(binary(), ['serve'], { env: serverEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.pause();
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  child.stdin.on('error', () => {});
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const baseline = await (async () => {
    child.stdin.write(JSON.stringify(INIT) + '\n');
    while (written(child.pid) === 0) await new Promise((r) => setTimeout(r, 20));
    return rssMiB(child.pid);
  })();
  // About 200 MiB of replies if every request were answered at once.
  const one = JSON.stringify({ jsonrpc: '2.0', method: 'tools/list' });
  for (let batch = 0; batch < 20; batch++) {
    const lines = [];
    for (let i = 0; i < 300; i++) lines.push(one.replace('"method"', `"id":${batch * 300 + i + 1},"method"`));
    child.stdin.write(lines.join('\n') + '\n');
  }
  // Let it read what it will: once the replies it queued pass the bound, it stops reading.
  await deadline(
    (async () => {
      while (!/no more requests are read until it does/.test(stderr)) await new Promise((r) => setTimeout(r, 100));
    })(),
    ms(60000),
    'glovebox to stop reading requests',
  );
  await new Promise((r) => setTimeout(r, 500));
  const grown = rssMiB(child.pid) - baseline;
  t.diagnostic(`grew by ${grown.toFixed(0)} MiB`);
  // 16 MiB of queued replies and what building them takes; answering every
  // request at once grows it by several hundred. (ASan's quarantine keeps
  // freed memory resident, so only the plain build is measured.)
  if (!process.env.GLOVEBOX_SANITIZED) assert.ok(grown < 100, `glovebox grew by ${grown.toFixed(0)} MiB with a client that reads nothing`);
  // Reading again lets it go on: every request is answered in the end.
  let got = 0;
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      if (buf.slice(0, nl).includes('"tools"')) got++;
      buf = buf.slice(nl + 1);
    }
  });
  child.stdout.resume();
  await deadline(
    (async () => {
      while (got < 6000) await new Promise((r) => setTimeout(r, 100));
    })(),
    ms(60000),
    `every reply (got ${got})`,
  );
  child.stdin.end();
  const status = await deadline(new Promise((r) => child.once('exit', (code) => r(code))), ms(15000), 'exit');
  assertNoSanitizerReport(stderr);
  assert.equal(status, 0, stderr.slice(-2000));
});
