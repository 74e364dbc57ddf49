// Who may reach a screen session: the client that started it (an MCP session
// over HTTP), others only when it was started shared or the server shares
// everything (--shared-sessions); stateless 2026-07-28 requests reach only
// what they name by id. Two SDK clients on one HTTP server.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { connectHttpClient, modernMeta, parseSse, post, startHttp } from '../lib/http.mjs';
import { ms, needs, opts, textOf } from '../lib/server.mjs';
import { procExists, until } from '../lib/terminal.mjs';

async function call(client, name, args = {}) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: ms(30000) });
}

async function ok(client, name, args = {}) {
  const r = await call(client, name, args);
  assert.ok(!r.isError, `${name}(${JSON.stringify(args)}) failed: ${textOf(r)}`);
  return r;
}

async function fails(client, name, args, re) {
  const r = await call(client, name, args);
  assert.equal(r.isError, true, `${name}(${JSON.stringify(args)}) should fail, got ${JSON.stringify(r).slice(0, 400)}`);
  assert.match(textOf(r), re);
  return textOf(r);
}

/** Two SDK clients (A, B) on one server; B starts `cat` and types into it. */
async function twoClients(t, { args = [], shared } = {}) {
  const srv = await startHttp(t, { args: ['--allow-all', ...args] });
  const a = await connectHttpClient(srv.url, { name: 'client-a' });
  const b = await connectHttpClient(srv.url, { name: 'client-b' });
  const startArgs = { command: ['cat'], name: 'b-cat' };
  if (shared !== undefined) startArgs.shared = shared;
  const started = (await ok(b.client, 'terminal_start', startArgs)).structuredContent;
  await ok(b.client, 'type_text', { text: 'hello from b\n' });
  await ok(b.client, 'wait_for', { text: 'hello from b', timeout_ms: ms(10000) });
  return { srv, a: a.client, b: b.client, bTransport: b.transport, id: started.id, pid: started.pid };
}

async function closeAll(srv, ...clients) {
  for (const c of clients) await c.close();
  await srv.stop();
}

test('a session is its starter\'s: another client neither sees, reaches nor stops it', needs('terminal', opts()), async (t) => {
  const { srv, a, b, id } = await twoClients(t);
  // Without a session argument A has none of its own.
  await fails(a, 'read_text', {}, /^no session; start one first/);
  const listA = (await ok(a, 'session_list', { include_ended: true })).structuredContent.sessions;
  assert.deepEqual(listA, [], 'A lists nothing of B');
  const status = (await ok(a, 'status')).structuredContent;
  assert.equal(status.live_sessions, 0);
  assert.deepEqual(status.sessions, []);
  // By id or name: the very answer a session that does not exist gets.
  const byId = await fails(a, 'read_text', { session: id }, /^unknown session/);
  const missing = await fails(a, 'read_text', { session: 'terminal-999' }, /^unknown session/);
  assert.equal(byId.replace(id, 'X'), missing.replace('terminal-999', 'X'), 'no hint that it exists');
  await fails(a, 'read_text', { session: 'b-cat' }, /^unknown session "b-cat"; live sessions: none/);
  await fails(a, 'type_text', { session: id, text: 'intruder\n' }, /^unknown session/);
  await fails(a, 'session_stop', { session: id }, /^unknown session/);
  // Its screen resource is hidden and unreadable too.
  const resources = (await a.listResources()).resources.map((r) => r.uri);
  assert.ok(!resources.some((u) => u.includes(id)), `A's resources list B's session: ${resources}`);
  await assert.rejects(a.readResource({ uri: `glovebox://session/${id}/text` }), /unknown session/);
  // B's session is untouched and still its default.
  const text = textOf(await ok(b, 'read_text', {}));
  assert.match(text, /hello from b/);
  assert.doesNotMatch(text, /intruder/);
  const listB = (await ok(b, 'session_list')).structuredContent.sessions;
  assert.deepEqual(listB.map((s) => [s.id, s.state]), [[id, 'live']]);
  await closeAll(srv, a, b);
});

test('shared: true lets another client list and reach a session, not as its default', needs('terminal', opts()), async (t) => {
  const { srv, a, b, id } = await twoClients(t, { shared: true });
  const listA = (await ok(a, 'session_list')).structuredContent.sessions;
  assert.deepEqual(listA.map((s) => s.id), [id]);
  await fails(a, 'read_text', {}, /^no session; start one first/);
  await ok(a, 'type_text', { session: 'b-cat', text: 'hello from a\n' });
  await ok(b, 'wait_for', { text: 'hello from a', timeout_ms: ms(10000) });
  await ok(a, 'session_stop', { session: id });
  const ended = (await ok(b, 'session_list', { include_ended: true })).structuredContent.sessions;
  assert.equal(ended[0].state, 'ended');
  await closeAll(srv, a, b);
});

test('--shared-sessions: every client reaches every session, the newest as default', needs('terminal', opts()), async (t) => {
  const { srv, a, b, id } = await twoClients(t, { args: ['--shared-sessions'] });
  assert.deepEqual((await ok(a, 'session_list')).structuredContent.sessions.map((s) => s.id), [id]);
  assert.match(textOf(await ok(a, 'read_text', {})), /hello from b/);
  assert.match(textOf(await ok(a, 'read_text', { session: id })), /hello from b/);
  await ok(a, 'session_stop', { session: id });
  await closeAll(srv, a, b);
});

test('when an MCP session is deleted, the screen sessions it started stop', needs('terminal', opts()), async (t) => {
  const { srv, a, b, bTransport, pid } = await twoClients(t, { shared: false });
  assert.ok(procExists(pid));
  await bTransport.terminateSession();
  await b.close();
  // B is gone; nobody can reach its session, so it must not keep running.
  await until(() => !procExists(pid), ms(10000), `B's cat (pid ${pid}) to end`);
  await closeAll(srv, a);
});

/** A stateless 2026-07-28 tools/call over HTTP; resolves the result. */
async function modernCall(url, name, args = {}) {
  const r = await post(url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta() } }, {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
  });
  assert.equal(r.status, 200, r.text);
  const json = r.json ?? JSON.parse(parseSse(r.text).at(-1).data);
  assert.ok(json.result, JSON.stringify(json));
  return json.result;
}

test('stateless requests: no default session; their sessions are reached by an unguessable id', needs('terminal', opts()), async (t) => {
  const srv = await startHttp(t, { args: ['--allow-all'] });
  const a = (await connectHttpClient(srv.url, { name: 'client-a' })).client;
  const mine = (await ok(a, 'terminal_start', { command: ['cat'], name: 'a-cat' })).structuredContent.id;

  const started = await modernCall(srv.url, 'terminal_start', { command: ['cat'], name: 'anon-cat' });
  assert.ok(!started.isError, JSON.stringify(started));
  const anon = started.structuredContent.id;
  assert.match(anon, /^terminal-\d+-[0-9a-f]{16}$/, 'a random suffix makes the id a capability');

  const noDefault = await modernCall(srv.url, 'read_text', {});
  assert.equal(noDefault.isError, true);
  assert.match(noDefault.content[0].text, /stateless request has no default session; pass "session"/);
  // Its id reaches it; its name, lists and other clients' sessions do not.
  assert.ok(!(await modernCall(srv.url, 'type_text', { session: anon, text: 'stateless\n' })).isError);
  const waited = await modernCall(srv.url, 'wait_for', { session: anon, text: 'stateless', timeout_ms: ms(10000) });
  assert.ok(!waited.isError, JSON.stringify(waited));
  const byName = await modernCall(srv.url, 'read_text', { session: 'anon-cat' });
  assert.match(byName.content[0].text, /^unknown session "anon-cat"/);
  assert.deepEqual((await modernCall(srv.url, 'session_list', { include_ended: true })).structuredContent.sessions, []);
  const other = await modernCall(srv.url, 'read_text', { session: mine });
  assert.match(other.content[0].text, /^unknown session/);
  const stopOther = await modernCall(srv.url, 'session_stop', { session: mine });
  assert.match(stopOther.content[0].text, /^unknown session/);
  // The identified client does not list the stateless session either.
  assert.deepEqual((await ok(a, 'session_list')).structuredContent.sessions.map((s) => s.id), [mine]);
  assert.ok(!(await modernCall(srv.url, 'session_stop', { session: anon })).isError);
  await closeAll(srv, a);
});

test('a bound on sessions per client and per server, with an error naming it', needs('terminal', 'desktop', opts()), async (t) => {
  const srv = await startHttp(t, { args: ['--allow-all', '--max-sessions', '3', '--max-sessions-per-client', '2'] });
  const a = (await connectHttpClient(srv.url, { name: 'client-a' })).client;
  const b = (await connectHttpClient(srv.url, { name: 'client-b' })).client;
  await ok(a, 'terminal_start', { command: ['cat'] });
  const second = (await ok(a, 'terminal_start', { command: ['cat'] })).structuredContent.id;
  await fails(a, 'terminal_start', { command: ['cat'] }, /a client may run at most 2 at once \(--max-sessions-per-client\)/);
  await fails(a, 'desktop_start', {}, /a client may run at most 2/);
  await ok(b, 'terminal_start', { command: ['cat'] });
  await fails(b, 'terminal_start', { command: ['cat'] }, /this server runs at most 3 at once \(--max-sessions\)/);
  // Ended sessions do not count.
  await ok(a, 'session_stop', { session: second });
  await ok(a, 'terminal_start', { command: ['cat'] });
  await closeAll(srv, a, b);
});
