// Resource subscriptions (subscribe → notifications/resources/updated →
// unsubscribe), binary and template reads, and the sampling and elicitation
// round trips of the conformance fixtures, through the official SDK client
// over stdio. The real glovebox binary offers none of the test-only extras.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { RawServer, assertMcpError, connectClient, deadline, modernParams, ms, opts, sleep, textOf } from '../lib/server.mjs';

const WATCHED = 'test://watched-resource';

describe('resource subscriptions', () => {
  test('a subscriber hears resources/updated when the resource changes, and not after unsubscribing', opts(), async (t) => {
    const srv = await connectClient(t);
    const updates = [];
    srv.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
    assert.deepEqual(await srv.client.subscribeResource({ uri: WATCHED }), {});
    const touched = await srv.client.callTool({ name: 'fixture_touch_resource', arguments: {} });
    assert.equal(touched.isError, undefined, textOf(touched));
    await deadline(
      (async () => {
        while (updates.length === 0) await sleep(10);
      })(),
      ms(2000),
      'notifications/resources/updated',
    );
    assert.deepEqual(updates, [WATCHED]);
    const read = await srv.client.readResource({ uri: WATCHED });
    assert.equal(read.contents[0].text, `Watched resource, version ${touched.structuredContent.version}`);

    assert.deepEqual(await srv.client.unsubscribeResource({ uri: WATCHED }), {});
    await srv.client.callTool({ name: 'fixture_touch_resource', arguments: {} });
    await sleep(100);
    assert.deepEqual(updates, [WATCHED], 'no update after unsubscribing');
    await srv.close();
  });

  test('only a connection that subscribed hears the update', opts(), async (t) => {
    const a = await connectClient(t);
    const updates = [];
    a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
    await a.client.callTool({ name: 'fixture_touch_resource', arguments: {} });
    await sleep(100);
    assert.deepEqual(updates, []);
    await a.close();
  });

  test('subscribing to what cannot change is invalid params naming the uri', opts(), async (t) => {
    const srv = await connectClient(t);
    const err = await assertMcpError(srv.client.subscribeResource({ uri: 'test://static-text' }), -32602, /test:\/\/static-text/);
    assert.equal(err.data?.uri, 'test://static-text');
    await assertMcpError(srv.client.subscribeResource({ uri: 'nowhere://x' }), -32602, /nowhere:\/\/x/);
    await srv.client.ping();
    await srv.close();
  });

  test('a 2026-07-28 request to subscribe is pointed to subscriptions/listen', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'resources/subscribe', modernParams({ uri: WATCHED }));
    assert.equal(r.error?.code, -32601, JSON.stringify(r));
    assert.match(r.error.message, /send subscriptions\/listen/);
    await s.close();
  });
});

describe('subscriptions/listen (2026-07-28)', () => {
  const isNote = (method, id) => (m) => m.json.method === method && m.json.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === id;

  test('acknowledges what it honours, tags updates with the listen id, and ends silently on cancel', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.send({
      jsonrpc: '2.0',
      id: 'L1',
      method: 'subscriptions/listen',
      params: modernParams({ notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED, 'test://static-text'] } }),
    });
    const ack = await s.take(isNote('notifications/subscriptions/acknowledged', 'L1'), { what: 'the acknowledgement' });
    // The tool list can change (the policy decides it); of the resources
    // only the watched one can.
    assert.deepEqual(ack.json.params.notifications, { toolsListChanged: true, resourceSubscriptions: [WATCHED] });
    const touched = await s.request(2, 'tools/call', modernParams({ name: 'fixture_touch_resource', arguments: {} }));
    assert.ok(touched.result, JSON.stringify(touched));
    const upd = await s.take(isNote('notifications/resources/updated', 'L1'), { what: 'the update' });
    assert.equal(upd.json.params.uri, WATCHED);

    await s.notify('notifications/cancelled', { requestId: 'L1' });
    await s.request(3, 'tools/call', modernParams({ name: 'fixture_touch_resource', arguments: {} }));
    await s.assertNoReply((m) => m.json.params?.uri === WATCHED && m !== upd, 200, 'an update after the cancel');
    await s.assertNoReply((m) => m.json.id === 'L1', 0, 'an answer to the cancelled listen');
    await s.close();
  });

  test('a bad filter is invalid params naming the field; legacy clients are pointed to resources/subscribe', opts(), async (t) => {
    const s = RawServer.start(t);
    const r1 = await s.request(1, 'subscriptions/listen', modernParams({ notifications: { toolsListChanged: 'yes' } }));
    assert.match(r1.error?.message ?? '', /"notifications.toolsListChanged" must be a boolean/);
    const r2 = await s.request(2, 'subscriptions/listen', modernParams({ notifications: { resourceSubscriptions: [1] } }));
    assert.match(r2.error?.message ?? '', /"notifications.resourceSubscriptions" must be an array of URIs/);
    const r3 = await s.request(3, 'subscriptions/listen', modernParams({}));
    assert.match(r3.error?.message ?? '', /"notifications" must be an object/);
    await s.initialize();
    const r4 = await s.request(4, 'subscriptions/listen', { notifications: {} });
    assert.equal(r4.error?.code, -32601);
    assert.match(r4.error.message, /use resources\/subscribe/);
    await s.close();
  });

  test('closing stdin while a listen is open exits cleanly', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.send({ jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: modernParams({ notifications: { resourceSubscriptions: [WATCHED] } }) });
    await s.take(isNote('notifications/subscriptions/acknowledged', 9), { what: 'the acknowledgement' });
    await s.close();
  });
});

describe('binary and template resources', () => {
  test('a binary resource arrives as a base64 blob; a template read reflects its variable', opts(), async (t) => {
    const srv = await connectClient(t);
    const bin = await srv.client.readResource({ uri: 'test://static-binary' });
    assert.equal(bin.contents[0].mimeType, 'image/png');
    assert.equal(Buffer.from(bin.contents[0].blob, 'base64').subarray(1, 4).toString(), 'PNG');
    const tpl = await srv.client.readResource({ uri: 'test://template/42/data' });
    assert.equal(JSON.parse(tpl.contents[0].text).id, '42');
    await assertMcpError(srv.client.readResource({ uri: 'test://template//data' }), -32002, /\{id\}\/data/);
    await srv.close();
  });
});

describe('questions to the client', () => {
  test('test_sampling asks sampling/createMessage and reports the model answer', opts(), async (t) => {
    const srv = await connectClient(t, { capabilities: { sampling: {} } });
    let asked;
    srv.client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked = req.params;
      return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'm', stopReason: 'endTurn' };
    });
    const r = await srv.client.callTool({ name: 'test_sampling', arguments: { prompt: 'the answer?' } });
    assert.equal(asked.messages[0].content.text, 'the answer?');
    assert.equal(textOf(r), 'LLM response: forty-two');
    await srv.close();
  });

  test('test_sampling fails when the client cannot sample', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.callTool({ name: 'test_sampling', arguments: { prompt: 'x' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /does not support sampling/);
    await srv.close();
  });

  test('test_elicitation and the SEP-1034/1330 schemas reach the client and its answer comes back', opts(), async (t) => {
    const srv = await connectClient(t, { capabilities: { elicitation: {} } });
    const schemas = [];
    srv.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      schemas.push(req.params.requestedSchema);
      return { action: 'accept', content: { username: 'ann' } };
    });
    const r = await srv.client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
    assert.equal(textOf(r), 'User response: action=accept, content={"username":"ann"}');
    assert.deepEqual(schemas[0].required, ['username', 'email']);
    await srv.client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    assert.equal(schemas[1].properties.score.default, 95.5);
    assert.equal(schemas[1].properties.status.default, 'active');
    await srv.client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    assert.equal(schemas[2].properties.titledMulti.items.anyOf.length, 3);
    assert.equal(schemas[2].properties.legacyEnum.enumNames.length, 3);
    await srv.close();
  });
});

describe('the real glovebox binary', () => {
  test('offers no prompts or completions, and subscriptions to session resources', opts(), async (t) => {
    const srv = await connectClient(t, { bin: 'glovebox' });
    const caps = srv.client.getServerCapabilities();
    assert.equal(caps.prompts, undefined);
    assert.equal(caps.completions, undefined);
    assert.equal(caps.resources?.subscribe, true);
    await assertMcpError(srv.client.listPrompts(), -32601);
    await srv.close();
  });
});
