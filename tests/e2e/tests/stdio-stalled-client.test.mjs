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
// Each tools/list answer is tens of kilobytes: 300 of them are far more than
// a pipe and Node's read-ahead hold, so most stay queued in glovebox.
const REQUESTS = 300;
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
