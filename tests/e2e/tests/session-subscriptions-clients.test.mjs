// Session subscriptions and read marks between clients: over HTTP a client
// cannot watch another client's session, and each client has its own place
// in a shared terminal's output; 2026-07-28 clients hear a terminal change
// through subscriptions/listen.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectHttpClient, startHttp } from '../lib/http.mjs';
import { RawServer, deadline, modernParams, ms, needs, sleep } from '../lib/server.mjs';

const topts = () => needs('terminal', { timeout: ms(60000) });
const BASH = { command: ['bash', '--norc', '--noprofile'], env: { PS1: 'gb$ ', HISTFILE: '/dev/null' } };

async function call(c, name, args) {
  const r = await c.client.callTool({ name, arguments: args });
  assert.ok(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

async function waitText(c, session, text) {
  const r = await call(c, 'wait_for', { session, text, timeout_ms: ms(10000) });
  assert.equal(r.matched, true, `${text} on ${session}`);
}

test('over HTTP only a client that may reach a session can watch it; each client reads since its own last read', topts(), async (t) => {
  const srv = await startHttp(t, { args: ['--subscribe-interval', '20'] });
  const a = await connectHttpClient(srv.url);
  const b = await connectHttpClient(srv.url);
  const mine = await call(a, 'terminal_start', BASH);
  const uri = `glovebox://session/${mine.id}/text`;
  await assert.rejects(b.client.subscribeResource({ uri }), /names nothing this client can reach/);
  const heard = [];
  a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.push(n.params.uri));
  await a.client.subscribeResource({ uri });
  await call(a, 'type_text', { session: mine.id, text: 'echo hello\n' });
  await deadline(
    (async () => {
      while (!heard.includes(uri)) await sleep(5);
    })(),
    ms(5000),
    'the update on the GET stream',
  );

  // A shared session: both read it, each from its own place.
  const shared = await call(a, 'terminal_start', { ...BASH, shared: true });
  await waitText(a, shared.id, 'gb$');
  await call(a, 'read_text', { session: shared.id, since: 'last' });
  await call(a, 'type_text', { session: shared.id, text: "echo fir''st\n" });
  await waitText(a, shared.id, 'first');
  assert.match((await call(a, 'read_text', { session: shared.id, since: 'last' })).text, /^first$/m);
  // b never read: it gets everything so far, the first prompt included.
  const bAll = await call(b, 'read_text', { session: shared.id, since: 'last' });
  assert.match(bAll.text, /^first$/m);
  assert.match(bAll.text, /^gb\$ /m);
  await call(b, 'type_text', { session: shared.id, text: "echo sec''ond\n" });
  await waitText(b, shared.id, 'second');
  const aNext = await call(a, 'read_text', { session: shared.id, since: 'last' });
  const bNext = await call(b, 'read_text', { session: shared.id, since: 'last' });
  for (const r of [aNext, bNext]) {
    assert.match(r.text, /^second$/m);
    assert.doesNotMatch(r.text, /^first$/m);
  }
  for (const c of [a, b]) {
    await c.transport.terminateSession();
    await c.client.close();
  }
  await srv.stop();
});

test('a 2026-07-28 client hears a terminal change through subscriptions/listen', topts(), async (t) => {
  const s = new RawServer({ args: ['--subscribe-interval', '20'] });
  t.after(() => s.child.kill('SIGKILL'));
  const started = await s.request(1, 'tools/call', modernParams({ name: 'terminal_start', arguments: BASH }));
  const id = started.result?.structuredContent?.id;
  assert.ok(id, JSON.stringify(started));
  const uri = `glovebox://session/${id}/text`;
  await s.send({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: modernParams({ notifications: { resourceSubscriptions: [uri] } }) });
  const isNote = (method) => (m) => m.json.method === method && m.json.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'L';
  const ack = await s.take(isNote('notifications/subscriptions/acknowledged'), { what: 'the acknowledgement' });
  assert.deepEqual(ack.json.params.notifications.resourceSubscriptions, [uri]);
  await s.request(2, 'tools/call', modernParams({ name: 'type_text', arguments: { session: id, text: 'echo hi\n' } }));
  const upd = await s.take((m) => isNote('notifications/resources/updated')(m) && m.json.params.uri === uri, { what: 'the update' });
  assert.equal(upd.json.params.uri, uri);
  await s.notify('notifications/cancelled', { requestId: 'L' });
  await s.request(3, 'tools/call', modernParams({ name: 'session_stop', arguments: { session: id } }));
  await s.close();
});
