// Resource subscriptions over Streamable HTTP: the update is tied to no
// request, so it travels on the MCP session's standalone GET stream. Also:
// an idle server must not burn CPU after SDK clients have come and gone.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { JSON_AND_SSE, connectHttpClient, modernMeta, parseSse, post, startHttp } from '../lib/http.mjs';
import { deadline, ms, opts, sleep } from '../lib/server.mjs';

const WATCHED = 'test://watched-resource';

test('over HTTP a subscriber hears resources/updated on its GET stream', opts(), async (t) => {
  const srv = await startHttp(t);
  const a = await connectHttpClient(srv.url);
  const b = await connectHttpClient(srv.url);
  const heard = { a: [], b: [] };
  a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.a.push(n.params.uri));
  b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.b.push(n.params.uri));
  await a.client.subscribeResource({ uri: WATCHED });
  // b changes it; only a subscribed.
  await b.client.callTool({ name: 'fixture_touch_resource', arguments: {} });
  await deadline(
    (async () => {
      while (heard.a.length === 0) await sleep(10);
    })(),
    ms(3000),
    'notifications/resources/updated on the GET stream',
  );
  assert.deepEqual(heard.a, [WATCHED]);
  assert.deepEqual(heard.b, []);
  await a.transport.terminateSession();
  await b.transport.terminateSession();
  await a.client.close();
  await b.client.close();
  await srv.stop();
});

test('over HTTP a 2026-07-28 subscriptions/listen stream carries the update; closing it ends the listen', opts(), async (t) => {
  const srv = await startHttp(t);
  const headers = (method) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method });
  const ac = new AbortController();
  const res = await fetch(srv.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers('subscriptions/listen') },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: { _meta: modernMeta(), notifications: { resourceSubscriptions: [WATCHED] } },
    }),
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const reader = res.body.getReader();
  let text = '';
  const messages = () =>
    parseSse(text)
      .filter((e) => e.data)
      .map((e) => JSON.parse(e.data));
  const waitFor = async (pred, what) => {
    while (!messages().some(pred)) {
      const { value, done } = await deadline(reader.read(), ms(3000), what);
      if (done) throw new Error(`the listen stream ended while waiting for ${what}`);
      text += Buffer.from(value).toString();
    }
    return messages().find(pred);
  };
  const ack = await waitFor((m) => m.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement');
  assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
  const touch = await post(
    srv.url,
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_touch_resource', arguments: {}, _meta: modernMeta() } },
    { ...headers('tools/call'), 'mcp-name': 'fixture_touch_resource' },
  );
  assert.equal(touch.status, 200, touch.text);
  const upd = await waitFor((m) => m.method === 'notifications/resources/updated', 'the update');
  assert.equal(upd.params.uri, WATCHED);
  assert.equal(upd.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
  ac.abort();
  await sleep(100);
  // The listen is gone with its stream; changing the resource again is harmless.
  const again = await post(
    srv.url,
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fixture_touch_resource', arguments: {}, _meta: modernMeta() } },
    { ...headers('tools/call'), 'mcp-name': 'fixture_touch_resource' },
  );
  assert.equal(again.status, 200, again.text);
  await srv.stop();
});

/** CPU time (clock ticks) the process used so far. */
async function cpuTicks(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

test(
  'an idle HTTP server uses no CPU after an SDK client closed its session',
  // Once a bug: the socket of the closed client's GET stream stayed in
  // CLOSE-WAIT and the loop spun on epoll_wait.
  opts(),
  async (t) => {
    const srv = await startHttp(t);
    for (let i = 0; i < 2; i++) {
      const c = await connectHttpClient(srv.url);
      await c.client.listTools();
      await c.client.close();
    }
    await sleep(500);
    const before = await cpuTicks(srv.child.pid);
    await sleep(1000);
    const used = (await cpuTicks(srv.child.pid)) - before;
    assert.ok(used < 20, `the idle server used ${used} clock ticks of CPU in 1 s`);
    await srv.stop();
  },
);
