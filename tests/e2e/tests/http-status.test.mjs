// Raw HTTP against /mcp: every status code a client can meet, with the
// JSON-RPC error body that says why, and the server still serving after.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';

import { INIT, JSON_AND_SSE, connectHttpClient, modernMeta, openSession, parseSse, post, startHttp } from '../lib/http.mjs';
import { deadline, ms } from '../lib/server.mjs';

test('status codes of the MCP endpoint', async (t) => {
  const srv = await startHttp(t, { args: ['--max-message', '16K'] });
  const url = srv.url;
  const sid = await openSession(url);
  const h = { 'mcp-session-id': sid };
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

  await t.test('200 JSON answer within a session', async () => {
    const r = await post(url, list, h);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /application\/json/);
    assert.ok(r.json.result.tools.length > 5);
  });
  await t.test('202 for a notification', async () => {
    const r = await post(url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }, h);
    assert.equal(r.status, 202);
    assert.equal(r.text, '');
  });
  await t.test('400 without Mcp-Session-Id', async () => {
    const r = await post(url, list);
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /Mcp-Session-Id header is required/);
  });
  await t.test('400 for an unsupported MCP-Protocol-Version', async () => {
    const r = await post(url, list, { ...h, 'mcp-protocol-version': '1999-01-01' });
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32022);
    assert.ok(r.json.error.data.supported.includes('2025-11-25'));
  });
  await t.test('400 for a body that is not JSON', async () => {
    const r = await post(url, '{"jsonrpc":', h);
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32700);
  });
  await t.test('400 for initialize inside a session', async () => {
    const r = await post(url, INIT, h);
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /without Mcp-Session-Id/);
  });
  await t.test('404 for an unknown session', async () => {
    const r = await post(url, list, { 'mcp-session-id': 'f'.repeat(32) });
    assert.equal(r.status, 404);
    assert.match(r.json.error.message, /no MCP session/);
  });
  await t.test('404 for another path', async () => {
    const r = await post(`${srv.base}/nope`, list, h);
    assert.equal(r.status, 404);
    assert.match(r.json.error.message, /the MCP endpoint is \/mcp/);
  });
  await t.test('405 for PUT, with Allow', async () => {
    const r = await fetch(url, { method: 'PUT', headers: h, body: '{}' });
    assert.equal(r.status, 405);
    assert.match(r.headers.get('allow'), /POST/);
    await r.text();
  });
  await t.test('406 when Accept lacks text/event-stream', async () => {
    const r = await post(url, list, { ...h, accept: 'application/json' });
    assert.equal(r.status, 406);
    assert.match(r.json.error.message, /Accept header must list/);
  });
  await t.test('406 for GET without text/event-stream', async () => {
    const r = await fetch(url, { headers: { ...h, accept: 'application/json' } });
    assert.equal(r.status, 406);
    await r.text();
  });
  await t.test('415 for a body that is not application/json', async () => {
    const r = await post(url, JSON.stringify(list), { ...h, 'content-type': 'text/plain' });
    assert.equal(r.status, 415);
    assert.match(r.json.error.message, /application\/json/);
  });
  await t.test('409 for a second GET stream on one session', async () => {
    const ac = new AbortController();
    const first = await fetch(url, { headers: { ...h, accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(first.status, 200);
    const second = await fetch(url, { headers: { ...h, accept: 'text/event-stream' } });
    assert.equal(second.status, 409);
    await second.text();
    ac.abort();
    await first.text().catch(() => {});
  });
  await t.test('413 for a body over --max-message', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { pad: 'x'.repeat(20000) } });
    const r = await post(url, big, h);
    assert.equal(r.status, 413);
    assert.match(r.json.error.message, /too large/);
  });
  await t.test('DELETE ends the session: 200, then 404', async () => {
    const sid2 = await openSession(url);
    const d = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sid2 } });
    assert.equal(d.status, 200);
    const r = await post(url, list, { 'mcp-session-id': sid2 });
    assert.equal(r.status, 404);
  });
  await t.test('the server still answers after all that', async () => {
    const r = await post(url, list, h);
    assert.equal(r.status, 200);
  });
  await srv.stop();
});

function rawRequest(port, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', setHost: false, headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers } },
      (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('DNS rebinding: foreign Host and Origin get 403; localhost origins and --allow-origin pass', async (t) => {
  const srv = await startHttp(t, { args: ['--allow-origin', 'https://app.example'] });
  const bad = await post(srv.url, INIT, { origin: 'http://evil.example' });
  assert.equal(bad.status, 403);
  assert.match(bad.json.error.message, /Origin "http:\/\/evil.example"/);
  // fetch() will not send a foreign Host header; node:http will.
  const host = await rawRequest(srv.port, { host: 'evil.example:80' }, JSON.stringify(INIT));
  assert.equal(host.status, 403);
  assert.match(host.body, /Host \\"evil.example:80\\" is not this server/);
  const local = await post(srv.url, INIT, { origin: 'http://localhost:5173' });
  assert.equal(local.status, 200);
  assert.equal(local.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  const listed = await post(srv.url, INIT, { origin: 'https://app.example' });
  assert.equal(listed.status, 200);
  const pre = await fetch(srv.url, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
  assert.equal(pre.status, 204);
  assert.match(pre.headers.get('access-control-allow-headers'), /mcp-session-id/);
  await srv.stop();
});

test('429 with Retry-After when a client goes over --rate-limit, and it recovers', async (t) => {
  const srv = await startHttp(t, { args: ['--rate-limit', '5'] });
  const codes = [];
  let limited;
  for (let i = 0; i < 20; i++) {
    const r = await post(srv.url, { jsonrpc: '2.0', id: i, method: 'ping' }, {});
    codes.push(r.status);
    if (r.status === 429) limited = r;
  }
  assert.ok(limited, `some requests were limited: ${codes}`);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.match(limited.json.error.message, /at most 5 per second/);
  await new Promise((r) => setTimeout(r, 1500));
  const again = await post(srv.url, { jsonrpc: '2.0', id: 99, method: 'ping' }, {});
  assert.notEqual(again.status, 429);
  await srv.stop();
});

test('2026-07-28 stateless requests: no session, headers mirror the body', async (t) => {
  const srv = await startHttp(t);
  const call = (params, headers = {}) =>
    post(srv.url, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { ...params, _meta: modernMeta() } }, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': params.name,
      ...headers,
    });
  const ok = await call({ name: 'fixture_echo', arguments: { text: 'stateless' } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('mcp-session-id'), null);
  assert.equal(ok.json.result.resultType, 'complete');
  assert.match(ok.json.result.content[0].text, /stateless/);
  const mismatch = await call({ name: 'fixture_echo', arguments: {} }, { 'mcp-name': 'status' });
  assert.equal(mismatch.status, 400);
  assert.equal(mismatch.json.error.code, -32020);
  assert.match(mismatch.json.error.message, /Mcp-Name header value 'status' does not match body value 'fixture_echo'/);
  const encoded = await call({ name: 'fixture_echo', arguments: { text: 'b64' } }, {
    'mcp-name': `=?base64?${Buffer.from('fixture_echo').toString('base64')}?=`,
  });
  assert.equal(encoded.status, 200);
  const noMethod = await call({ name: 'fixture_echo', arguments: {} }, { 'mcp-method': '' });
  assert.equal(noMethod.status, 400);
  const unknown = await post(srv.url, { jsonrpc: '2.0', id: 6, method: 'nope/nope', params: { _meta: modernMeta() } }, {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'nope/nope',
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, -32601);
  const get = await fetch(srv.url, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' } });
  assert.equal(get.status, 405);
  await get.text();
  // Progress makes the answer an SSE stream scoped to the request.
  const streamed = await post(
    srv.url,
    {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'fixture_sleep', arguments: { ms: 100, steps: 2 }, _meta: modernMeta({ progressToken: 'p' }) },
    },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'fixture_sleep' },
  );
  assert.match(streamed.headers.get('content-type'), /text\/event-stream/);
  const msgs = parseSse(streamed.text).filter((e) => e.data).map((e) => JSON.parse(e.data));
  assert.equal(msgs.filter((m) => m.method === 'notifications/progress').length, 2);
  assert.equal(msgs.at(-1).id, 8);
  await srv.stop();
});

test('closing a 2026-07-28 response stream cancels the request', async (t) => {
  const srv = await startHttp(t);
  const ac = new AbortController();
  const res = await fetch(srv.url, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'fixture_sleep' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 600000, steps: 600 }, _meta: modernMeta({ progressToken: 1 }) } }),
  });
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  await deadline(reader.read(), ms(5000), 'the first event');
  ac.abort();
  // The server keeps serving, and shuts down promptly with nothing in flight.
  const r = await post(srv.url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta() } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  assert.equal(r.status, 200);
  await srv.stop();
});

test('a body over --max-message is read to its end and answered 413 with the limit; the server serves on', async (t) => {
  const srv = await startHttp(t, { args: ['--max-message', '16K'] });
  // Megabytes: far more than the socket buffers hold, so a server that
  // answered before reading would reset the upload ("fetch failed").
  const big = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { pad: 'x'.repeat(4 << 20) } });

  await t.test('raw POST, sized body', async () => {
    const sid = await openSession(srv.url);
    const r = await post(srv.url, big, { 'mcp-session-id': sid });
    assert.equal(r.status, 413);
    assert.equal(r.json.error.code, -32600);
    assert.match(r.json.error.message, /the body is \d+ bytes; the limit is 16384 bytes \(glovebox serve --max-message\)/);
    const after = await post(srv.url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { 'mcp-session-id': sid });
    assert.equal(after.status, 200);
  });

  await t.test('the SDK client sees the 413 and the limit, not "fetch failed"', async () => {
    const { client } = await connectHttpClient(srv.url);
    const err = await client.callTool({ name: 'fixture_echo', arguments: { text: 'x'.repeat(4 << 20) } }).then(
      () => null,
      (e) => e,
    );
    assert.ok(err, 'the call failed');
    assert.equal(err.code, 413, `the HTTP status reaches the client: ${err.message}`);
    assert.match(String(err.message), /Payload too large: .*the limit is 16384 bytes/);
    // The same client goes on working.
    const list = await client.listTools();
    assert.ok(list.tools.length > 5);
    await client.close();
  });
  await srv.stop();
});
