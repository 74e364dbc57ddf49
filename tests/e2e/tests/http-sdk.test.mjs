// The official SDK's Streamable HTTP client (and its 2024-11-05 SSE client)
// against the real server: tools, progress over SSE, cancellation,
// elicitation round trips, two clients sharing one screen session, and a
// stream resumed with Last-Event-ID after the server dropped the connection.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectHttpClient, openSession, parseSse, post, startHttp } from '../lib/http.mjs';
import { deadline, ms, needs, textOf } from '../lib/server.mjs';

test('SDK client over Streamable HTTP: list tools, call one, structured result', async (t) => {
  const srv = await startHttp(t);
  const { client, transport } = await connectHttpClient(srv.url);
  assert.ok(transport.sessionId, 'the server gave the client a session id');
  const { tools } = await client.listTools();
  assert.ok(tools.some((x) => x.name === 'status'));
  const r = await client.callTool({ name: 'status', arguments: {} });
  assert.equal(r.isError, undefined);
  assert.match(textOf(r), /glovebox .*protocol 2025-11-25/);
  assert.equal(r.structuredContent.server, 'glovebox');
  assert.equal(r.structuredContent.http.url, srv.url);
  assert.equal(r.structuredContent.http.mcp_sessions, 1);
  assert.equal(r.structuredContent.http.token_required, false);
  await transport.terminateSession();
  await client.close();
  await srv.stop();
});

test('progress notifications arrive over the POST SSE stream before the result', async (t) => {
  const srv = await startHttp(t);
  const { client } = await connectHttpClient(srv.url);
  const seen = [];
  const r = await client.callTool({ name: 'fixture_sleep', arguments: { ms: 200, steps: 4 } }, undefined, {
    onprogress: (p) => seen.push(p.progress),
  });
  assert.deepEqual(seen, [1, 2, 3, 4]);
  assert.equal(r.structuredContent.steps, 4);
  await client.close();
  await srv.stop();
});

test('cancelling a call over HTTP ends it; the session keeps serving', async (t) => {
  const srv = await startHttp(t);
  const { client } = await connectHttpClient(srv.url);
  const ac = new AbortController();
  const call = client.callTool({ name: 'fixture_sleep', arguments: { ms: 60000, steps: 60 } }, undefined, {
    signal: ac.signal,
  });
  setTimeout(() => ac.abort('changed my mind'), 200);
  await assert.rejects(call, /abort|changed my mind/i);
  const r = await client.callTool({ name: 'fixture_echo', arguments: { text: 'still here' } });
  assert.match(textOf(r), /still here/);
  await client.close();
  await srv.stop();
});

async function askingClient(url, answer) {
  const c = await connectHttpClient(url, { capabilities: { elicitation: {} } });
  const asked = [];
  c.client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return answer(req);
  });
  return { ...c, asked };
}

test('elicitation round trip over HTTP: accept and decline reach the tool', async (t) => {
  const srv = await startHttp(t);
  const yes = await askingClient(srv.url, () => ({ action: 'accept', content: { name: 'Ada' } }));
  const r = await yes.client.callTool({ name: 'fixture_ask', arguments: { message: 'Your name?' } });
  assert.equal(yes.asked.length, 1);
  assert.equal(yes.asked[0].message, 'Your name?');
  assert.deepEqual(r.structuredContent, { action: 'accept', content: { name: 'Ada' } });
  const no = await askingClient(srv.url, () => ({ action: 'decline' }));
  const r2 = await no.client.callTool({ name: 'fixture_ask', arguments: {} });
  assert.equal(r2.structuredContent.action, 'decline');
  await yes.client.close();
  await no.client.close();
  await srv.stop();
});

test('a client that never answers: the question times out and the tool says so', async (t) => {
  const srv = await startHttp(t);
  const slow = await askingClient(srv.url, () => new Promise(() => {}));
  const r = await slow.client.callTool({ name: 'fixture_ask', arguments: { timeout_ms: 300 } });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /did not answer in time/);
  await slow.client.close();
  await srv.stop();
});

test('two clients share one terminal session started shared: one starts it, the other types and reads', needs('terminal'), async (t) => {
  const srv = await startHttp(t);
  const a = await connectHttpClient(srv.url, { name: 'client-a' });
  const b = await connectHttpClient(srv.url, { name: 'client-b' });
  const started = await a.client.callTool({ name: 'terminal_start', arguments: { command: ['bash', '--norc', '--noprofile'], shared: true } });
  const id = started.structuredContent.id;
  assert.match(id, /^terminal-\d+$/);
  await b.client.callTool({ name: 'type_text', arguments: { session: id, text: 'echo shared-$((6*7))\n' } });
  const w = await a.client.callTool({ name: 'wait_for', arguments: { session: id, text: 'shared-42', timeout_ms: ms(5000) } });
  assert.equal(w.structuredContent.matched, true);
  const listed = await b.client.callTool({ name: 'session_list', arguments: {} });
  assert.ok(listed.structuredContent.sessions.some((s) => s.id === id && s.state === 'live'));
  await b.client.callTool({ name: 'session_stop', arguments: { session: id } });
  await a.client.close();
  await b.client.close();
  await srv.stop();
});

test('a stream the server drops mid-call is resumed with Last-Event-ID and delivers the answer', async (t) => {
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const h = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  const r = await post(srv.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }, h);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /text\/event-stream/);
  const events = parseSse(r.text);
  assert.equal(events.length, 1, `only the priming event before the drop: ${r.text}`);
  assert.ok(events[0].id, 'the priming event has an id');
  assert.equal(events[0].data, '');
  assert.equal(events[0].retry, '1000');
  const res = await fetch(srv.url, {
    headers: { accept: 'text/event-stream', 'last-event-id': events[0].id, ...h },
  });
  assert.equal(res.status, 200);
  const resumed = parseSse(await deadline(res.text(), ms(5000), 'the resumed stream to end'));
  const answer = resumed.map((e) => JSON.parse(e.data || 'null')).find((m) => m?.id === 7);
  assert.ok(answer, `the answer arrived on the resumed stream: ${JSON.stringify(resumed)}`);
  assert.match(answer.result.content[0].text, /resumed/);
  // The stream is finished: resuming it again finds nothing.
  const again = await fetch(srv.url, { headers: { accept: 'text/event-stream', 'last-event-id': events[0].id, ...h } });
  assert.equal(again.status, 404);
  await again.text();
  await srv.stop();
});

test('the SDK client resumes a dropped stream by itself', async (t) => {
  const srv = await startHttp(t);
  const { client } = await connectHttpClient(srv.url);
  const r = await deadline(client.callTool({ name: 'test_reconnection', arguments: {} }), ms(10000), 'the resumed call');
  assert.match(textOf(r), /resumed/);
  await client.close();
  await srv.stop();
});

test('a 2024-11-05 client connects through GET /sse and POST /messages', async (t) => {
  const srv = await startHttp(t);
  const transport = new SSEClientTransport(new URL(`${srv.base}/sse`));
  const client = new Client({ name: 'old-client', version: '0.1' }, { capabilities: {} });
  await deadline(client.connect(transport), ms(10000), 'the SSE client to connect');
  const { tools } = await client.listTools();
  assert.ok(tools.some((x) => x.name === 'status'));
  const r = await client.callTool({ name: 'fixture_echo', arguments: { text: 'over sse' } });
  assert.match(textOf(r), /over sse/);
  await client.close();
  await srv.stop();
});

test('stdio and HTTP served by one process', async (t) => {
  const srv = await startHttp(t, { args: ['--stdio'], stdin: 'pipe' });
  const { client } = await connectHttpClient(srv.url);
  const r = await client.callTool({ name: 'status', arguments: {} });
  assert.match(textOf(r), /glovebox/);
  await client.close();
  await srv.stop();
});
