// Where the HTTP transport listens: exactly the address asked for (loopback
// unless told otherwise), what it prints is what it bound, and a port in use
// is an error. The listening sockets are read from /proc (the server's
// socket inodes in /proc/<pid>/fd, matched in /proc/net/tcp and tcp6); all
// traffic goes to loopback.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';

import { connectHttpClient, freePort } from '../lib/http.mjs';
import { REPO_DIR, assertCleanExit, binary, deadline, ms, serverEnv } from '../lib/server.mjs';

/** "0100007F" (/proc/net/tcp, little-endian words) → "127.0.0.1"; 32 hex digits → IPv6. */
function procAddress(hex) {
  const bytes = [];
  for (let w = 0; w < hex.length; w += 8) {
    const word = hex.slice(w, w + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(parseInt(word.slice(b, b + 2), 16));
  }
  if (bytes.length === 4) return bytes.join('.');
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  // Compress the longest run of zero groups, as inet_ntop does.
  let best = [-1, 0];
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best[1]) best = [i, j - i];
    i = j;
  }
  if (best[1] < 2) return groups.join(':');
  return `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0] + best[1]).join(':')}`;
}

/** The listening TCP sockets of process pid: ["127.0.0.1:7800", "[::1]:7800", …]. */
function listeningSockets(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const found = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 here
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A' || !inodes.has(f[9])) continue; // 0A: LISTEN
      const [addr, port] = f[1].split(':');
      const a = procAddress(addr);
      found.push(a.includes(':') ? `[${a}]:${parseInt(port, 16)}` : `${a}:${parseInt(port, 16)}`);
    }
  }
  return found.sort();
}

function hasIpv6Loopback() {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(0, '::1', () => srv.close(() => resolve(true)));
  });
}

/** Spawns `glovebox-testing serve --http spec`; resolves once it printed where it serves. */
async function serveHttp(t, spec, { cmd, args } = {}) {
  const child = spawn(cmd ?? binary(), args ?? ['serve', '--http', spec], {
    env: serverEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const stderrEnded = new Promise((r) => child.stderr.once('end', r));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const waitFor = (re, what) =>
    deadline(
      Promise.race([
        new Promise((r) => {
          const check = () => (re.test(stderr) ? r(true) : null);
          child.stderr.on('data', check);
          check();
        }),
        exited.then(() => false),
      ]),
      ms(10000),
      what,
    );
  return {
    child,
    exited,
    stderr: () => stderr,
    waitFor,
    async stop() {
      child.kill('SIGTERM');
      const status = await deadline(exited, ms(10000), 'glovebox to exit after SIGTERM');
      await deadline(stderrEnded, ms(2000), 'server stderr to close');
      assertCleanExit(status, stderr);
    },
  };
}

const SERVING = /serving MCP on https?:\/\/(\S+)\/mcp(?: \(also ([^)]*)\))?/;

/** The addresses the "serving MCP on" line names. */
function printedAddresses(stderr) {
  const m = SERVING.exec(stderr);
  assert.ok(m, `no "serving MCP on" line in:\n${stderr}`);
  return [m[1], ...(m[2] ? m[2].split(', ') : [])].sort();
}

const WILDCARD = /^(0\.0\.0\.0|\[::\]):/;

test('--http binds exactly the loopback address asked for, and says so', async (t) => {
  const v6 = await hasIpv6Loopback();
  const forms = [
    { spec: (p) => `127.0.0.1:${p}`, want: (p) => [`127.0.0.1:${p}`] },
    { spec: (p) => `${p}`, want: (p) => [`127.0.0.1:${p}`] },
    { spec: (p) => `localhost:${p}`, want: (p) => (v6 ? [`127.0.0.1:${p}`, `[::1]:${p}`] : [`127.0.0.1:${p}`]) },
  ];
  if (v6) forms.push({ spec: (p) => `[::1]:${p}`, want: (p) => [`[::1]:${p}`] });
  for (const form of forms) {
    const port = await freePort();
    const spec = form.spec(port);
    await t.test(`--http ${spec.replace(String(port), 'PORT')}`, async (tt) => {
      const srv = await serveHttp(tt, spec);
      assert.ok(await srv.waitFor(SERVING, 'the server to start'), `glovebox did not start:\n${srv.stderr()}`);
      const bound = listeningSockets(srv.child.pid);
      assert.deepEqual(bound, form.want(port).sort(), `listening sockets of --http ${spec}`);
      assert.ok(!bound.some((a) => WILDCARD.test(a)), `nothing on a wildcard address: ${bound}`);
      assert.deepEqual(printedAddresses(srv.stderr()), bound, 'the printed line names what is bound');
      // It serves there, and status reports the same addresses.
      const { client } = await connectHttpClient(`http://${bound[0]}/mcp`);
      const st = await client.callTool({ name: 'status', arguments: {} });
      assert.deepEqual([...st.structuredContent.http.listening].sort(), bound);
      assert.equal(st.structuredContent.http.url, `http://${printedAddresses(srv.stderr())[0]}/mcp`);
      await client.close();
      await srv.stop();
    });
  }
});

test('--http on a port in use exits 1 naming the address and port', async (t) => {
  const holder = createServer();
  await new Promise((r) => holder.listen(0, '127.0.0.1', r));
  t.after(() => holder.close());
  const { port } = holder.address();
  const srv = await serveHttp(t, `127.0.0.1:${port}`);
  const status = await deadline(srv.exited, ms(10000), 'glovebox to exit on a busy port');
  assert.equal(status.code, 1, `exit status; stderr:\n${srv.stderr()}`);
  assert.match(srv.stderr(), new RegExp(`could not listen on 127\\.0\\.0\\.1 port ${port}: Address already in use`));
  assert.doesNotMatch(srv.stderr(), /serving MCP on/);
});

test('make run prints the address glovebox bound and the policy it runs with', async (t) => {
  const port = await freePort();
  const srv = await serveHttp(t, null, {
    cmd: `${REPO_DIR}/scripts/connect-help.sh`,
    args: [binary(), `localhost:${port}`, `${REPO_DIR}/scripts/demo-policy.json`],
  });
  assert.ok(await srv.waitFor(/Serving until Ctrl-C/, 'the connection help'), `no help printed:\n${srv.stderr()}`);
  const m = /glovebox is listening on http:\/\/(\S+)\/mcp(?: \(also ([^)]*)\))?/.exec(srv.stderr());
  assert.ok(m, srv.stderr());
  const bound = listeningSockets(srv.child.pid);
  assert.deepEqual([m[1], ...(m[2] ? m[2].split(', ') : [])].sort(), bound);
  assert.match(srv.stderr(), /claude mcp add --transport http glovebox http:\/\/127\.0\.0\.1:\d+\/mcp/);
  assert.match(srv.stderr(), /Policy: \S*scripts\/demo-policy\.json/);
  assert.match(srv.stderr(), /runs read-only/);
  assert.match(srv.stderr(), /serve --policy \/path\/to\/policy\.json/);
  await srv.stop();
});
