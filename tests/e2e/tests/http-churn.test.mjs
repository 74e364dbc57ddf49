// Clients that come and go: 1,000 connect/disconnect cycles leave file
// descriptors and memory where they were; clients that vanish mid-stream
// leave nothing behind; idle sessions expire.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { JSON_AND_SSE, openSession, post, processFootprint, startHttp } from '../lib/http.mjs';
import { SANITIZED, deadline, ms, needs, sleep } from '../lib/server.mjs';
import { procExists, until } from '../lib/terminal.mjs';

async function cycle(url, i) {
  const sid = await openSession(url);
  const h = { 'mcp-session-id': sid };
  const r = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_echo', arguments: { text: `c${i}` } } }, h);
  assert.equal(r.status, 200);
  if (i % 2) {
    const d = await fetch(url, { method: 'DELETE', headers: h });
    assert.equal(d.status, 200);
  } else {
    // Vanish mid-stream: open a progress stream and drop it.
    const ac = new AbortController();
    const res = await fetch(url, {
      method: 'POST',
      signal: ac.signal,
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...h },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 50, steps: 5 }, _meta: { progressToken: 1 } } }),
    });
    const reader = res.body.getReader();
    await reader.read();
    ac.abort();
    const d = await fetch(url, { method: 'DELETE', headers: h });
    assert.equal(d.status, 200);
  }
}

test('1,000 connect/disconnect cycles keep fds and memory flat', { timeout: ms(240000) }, async (t) => {
  const srv = await startHttp(t);
  for (let i = 0; i < 100; i++) await cycle(srv.url, i);
  await sleep(300);
  const before = await processFootprint(srv.child.pid);
  for (let i = 100; i < 1100; i++) await cycle(srv.url, i);
  await sleep(500);
  const after = await processFootprint(srv.child.pid);
  assert.ok(after.fds <= before.fds + 2, `fds grew from ${before.fds} to ${after.fds}`);
  // ASan's allocator holds up to 256 MiB of freed memory in quarantine, so RSS
  // says nothing there; the sanitized run relies on LeakSanitizer at exit.
  if (!SANITIZED) assert.ok(after.rss - before.rss < 4 * 1024, `RSS grew from ${before.rss} KiB to ${after.rss} KiB`);
  t.diagnostic(`fds ${before.fds} → ${after.fds}, RSS ${before.rss} → ${after.rss} KiB`);
  await srv.stop();
});

test('an MCP session unused for --session-idle ends; its id then gets 404', async (t) => {
  const srv = await startHttp(t, { args: ['--session-idle', '1'] });
  const sid = await openSession(srv.url);
  const h = { 'mcp-session-id': sid };
  assert.equal((await post(srv.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, h)).status, 200);
  await sleep(2600);
  const r = await post(srv.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, h);
  assert.equal(r.status, 404);
  await srv.stop();
});

test('a session with a call in flight does not expire under it', async (t) => {
  const srv = await startHttp(t, { args: ['--session-idle', '1'] });
  const sid = await openSession(srv.url);
  const h = { 'mcp-session-id': sid };
  const r = await deadline(
    post(srv.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 2500, steps: 1 } } }, h),
    ms(10000),
    'the long call',
  );
  assert.equal(r.status, 200);
  assert.equal(r.json.result.structuredContent.steps, 1);
  await srv.stop();
});

test('an expired MCP session releases the screens it started, not those started shared', needs('terminal'), async (t) => {
  const srv = await startHttp(t, { args: ['--session-idle', '1'] });
  const call = async (sid, name, args) => {
    const r = await post(srv.url, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: args } }, { 'mcp-session-id': sid });
    assert.equal(r.status, 200, r.text);
    assert.notEqual(r.json.result.isError, true, r.text);
    return r.json.result.structuredContent;
  };
  const a = await openSession(srv.url);
  const b = await openSession(srv.url);
  const alone = await call(a, 'terminal_start', { command: ['sleep', '300'] });
  const shared = (await call(a, 'terminal_start', { command: ['sleep', '300'], shared: true })).id;
  await call(b, 'read_text', { session: shared });
  await sleep(2600);
  const c = await openSession(srv.url);
  const { sessions } = await call(c, 'session_list', { include_ended: true });
  const byId = Object.fromEntries(sessions.map((s) => [s.id, s]));
  // Another client never sees a's own session; its program is gone.
  assert.equal(byId[alone.id], undefined);
  await until(() => !procExists(alone.pid), ms(5000), 'the released program to end');
  assert.equal(byId[shared].state, 'live');
  await call(c, 'session_stop', { session: shared });
  await srv.stop();
});

test('500 back-to-back requests on one keep-alive connection are each read as a request', async (t) => {
  const http = await import('node:http');
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set();
  const one = (id) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: srv.port, path: '/mcp', method: 'POST', agent, headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-session-id': sid } },
        (res) => {
          sockets.add(res.socket);
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    });
  for (let i = 0; i < 500; i++) {
    const r = await deadline(one(i), ms(5000), `request ${i}`);
    assert.equal(r.status, 200, r.body);
    assert.equal(JSON.parse(r.body).id, i);
  }
  assert.equal(sockets.size, 1, 'all requests went over one connection');
  agent.destroy();
  await srv.stop();
});

test('answers nobody comes back for are kept per session only up to a bound (the newest 16)', async (t) => {
  const { parseSse } = await import('../lib/http.mjs');
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const h = { 'mcp-session-id': sid };
  const ids = [];
  for (let i = 0; i < 20; i++) {
    const r = await post(srv.url, { jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }, h);
    ids.push(parseSse(r.text)[0].id);
  }
  await sleep(800); // every call has answered into its stream by now
  const resume = (id) => fetch(srv.url, { headers: { ...h, accept: 'text/event-stream', 'last-event-id': id } });
  const oldest = await resume(ids[0]);
  assert.equal(oldest.status, 404);
  await oldest.text();
  const newest = await resume(ids[19]);
  assert.equal(newest.status, 200);
  const events = parseSse(await newest.text()).filter((e) => e.data);
  assert.equal(JSON.parse(events[0].data).id, 119);
  await srv.stop();
});

test('clients that hang up mid-stream leave an idle server idle (no spinning on their sockets)', async (t) => {
  const { readFile } = await import('node:fs/promises');
  const { connectHttpClient } = await import('../lib/http.mjs');
  const cpuTicks = async (pid) => {
    const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  };
  const srv = await startHttp(t);
  for (let i = 0; i < 3; i++) {
    // The SDK opens the session's GET stream by itself and drops it on close.
    const c = await connectHttpClient(srv.url);
    await c.client.listTools();
    await c.client.close();
  }
  // And a POST whose answer is still pending when its client leaves.
  const sid = await openSession(srv.url);
  const ac = new AbortController();
  const pending = fetch(srv.url, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 3000 } } }),
  }).catch(() => {});
  await sleep(200);
  ac.abort();
  await pending;
  await sleep(500);
  const before = await cpuTicks(srv.child.pid);
  await sleep(1000);
  const used = (await cpuTicks(srv.child.pid)) - before;
  assert.ok(used < 20, `the idle server used ${used} clock ticks of CPU in 1 s`);
  await srv.stop();
});
