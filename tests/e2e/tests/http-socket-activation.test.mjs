// Socket activation (the glovebox.socket user unit): the listening socket
// comes as descriptor 3 with LISTEN_FDS/LISTEN_PID, as systemd passes it, and
// glovebox serves it instead of binding. A small python3 launcher binds,
// listens and execs glovebox with the socket on descriptor 3 (its pid is
// glovebox's, as LISTEN_PID must be). All traffic is to loopback.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

import { connectHttpClient } from '../lib/http.mjs';
import { assertCleanExit, binary, deadline, ms, serverEnv } from '../lib/server.mjs';

// Binds 127.0.0.1 on a free port, prints it, and execs the command with
// "{port}" in its arguments replaced by PORT + OFFSET.
const LAUNCHER = `
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
port = s.getsockname()[1]
print(port, flush=True)
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.environ["LISTEN_FDS"] = "1"
os.environ["LISTEN_PID"] = str(os.getpid())
offset = int(sys.argv[1])
args = [a.replace("{port}", str(port + offset)) for a in sys.argv[2:]]
os.execv(args[0], args)
`;

function activate(t, { portOffset = 0 } = {}) {
  const child = spawn(
    'python3',
    ['-c', LAUNCHER, String(portOffset), binary(), 'serve', '--http', '127.0.0.1:{port}'],
    { env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.after(() => child.exitCode === null && child.kill('SIGKILL'));
  const ready = async (pattern) => {
    const until = Date.now() + ms(10000);
    while (!pattern.test(stderr) && child.exitCode === null && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    return { port: Number(stdout.trim()), stderr };
  };
  return { child, exited, ready, stderr: () => stderr };
}

test('glovebox serves the listening socket passed as descriptor 3 (LISTEN_FDS)', async (t) => {
  const srv = activate(t);
  const { port, stderr } = await srv.ready(/serving MCP on/);
  assert.match(stderr, new RegExp(`serving MCP on http://127\\.0\\.0\\.1:${port}/mcp`), stderr);
  const { client } = await connectHttpClient(`http://127.0.0.1:${port}/mcp`);
  // Programs a session starts do not see the activation variables.
  const call = (name, args) => deadline(client.callTool({ name, arguments: args }), ms(20000), name);
  const started = await call('terminal_start', {
    command: ['bash', '--norc', '--noprofile'],
    env: { PS1: 'ready$ ', HISTFILE: '/dev/null' },
  });
  assert.ok(!started.isError, JSON.stringify(started));
  const session = started.structuredContent.id;
  await call('wait_for', { session, text: 'ready$', timeout_ms: ms(10000) });
  const r = await call('terminal_run', { session, command: 'env | grep -c ^LISTEN_' });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.equal(r.structuredContent.output.trim(), '0', JSON.stringify(r.structuredContent));
  await client.close();
  srv.child.kill('SIGTERM');
  assertCleanExit(await srv.exited, srv.stderr());
});

test('a passed socket on another address than --http names is refused', async (t) => {
  const srv = activate(t, { portOffset: 1 });
  const { port } = await srv.ready(/glovebox serve:/);
  const { code } = await srv.exited;
  assert.equal(code, 1, srv.stderr());
  assert.match(
    srv.stderr(),
    new RegExp(
      `socket activation passed a socket bound to 127\\.0\\.0\\.1:${port}, but --http asks for 127\\.0\\.0\\.1 port ${port + 1}: make ListenStream= and --http the same address`,
    ),
  );
});
