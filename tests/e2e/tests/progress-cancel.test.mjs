// Long-running calls: progress notifications, cancellation, answers out of
// order, many calls in flight on the worker pool, and log messages.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { EmptyResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { RawServer, assertMcpError, connectClient, deadline, ms, opts, sleep, textOf } from '../lib/server.mjs';

/** What fixture_work computes: sum of (i*i mod 7919) for i in 1..n. */
function workSum(n) {
  let sum = 0n;
  for (let i = 1n; i <= BigInt(n); i++) sum += (i * i) % 7919n;
  return Number(sum);
}

describe('progress', () => {
  test('fixture_sleep with a progress token reports 3 increasing steps out of 3', opts(), async (t) => {
    const srv = await connectClient(t);
    await srv.client.listTools();
    const seen = [];
    const r = await srv.client.callTool({ name: 'fixture_sleep', arguments: { ms: 300, steps: 3 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual(r.structuredContent, { steps: 3, cancelled: false });

    // On the wire: exactly 3 notifications, increasing, total 3, all before the response.
    const wire = srv.inbound.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    assert.equal(wire.length, 3, JSON.stringify(wire));
    assert.deepEqual(
      wire.map((p) => [p.progress, p.total]),
      [
        [1, 3],
        [2, 3],
        [3, 3],
      ],
    );
    const responseAt = srv.inbound.findIndex((m) => m.result?.structuredContent?.steps === 3);
    const lastProgressAt = srv.inbound.findLastIndex((m) => m.method === 'notifications/progress');
    assert.ok(lastProgressAt < responseAt, 'every progress notification precedes the response');

    // What onprogress saw. SDK 1.32 dispatches notifications a microtask late
    // but responses at once, so when the last progress notification and the
    // response arrive in one read, the SDK has already dropped the handler and
    // reports "unknown token" (modelcontextprotocol/typescript-sdk#2580). The
    // server cannot order things better than it does; accept that drop only.
    assert.ok(seen.length >= 1, `onprogress saw ${JSON.stringify(seen)}`);
    assert.deepEqual(
      seen.map((p) => p.progress),
      wire.slice(0, seen.length).map((p) => p.progress),
    );
    for (const p of seen) assert.equal(p.total, 3);
    for (const e of srv.errors) assert.match(String(e), /progress notification for an unknown token/);
    assert.equal(srv.errors.length, 3 - seen.length);
    await srv.close();
  });

  test('without a progress token no progress notifications are sent', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const r = await s.request(1, 'tools/call', { name: 'fixture_sleep', arguments: { ms: 90, steps: 3 } });
    assert.equal(r.result.structuredContent.steps, 3);
    assert.equal(s.messages.filter((m) => m.json?.method === 'notifications/progress').length, 0);
    await s.close();
  });

  test('progress notifications echo the token and precede the response', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    await s.request(1, 'tools/call', { name: 'fixture_sleep', arguments: { ms: 60, steps: 2 }, _meta: { progressToken: 'tok-1' } });
    const responseAt = s.messages.findIndex((m) => m.json?.id === 1);
    const notes = s.messages.filter((m) => m.json?.method === 'notifications/progress');
    assert.equal(notes.length, 2);
    for (const n of notes) {
      assert.equal(n.json.params.progressToken, 'tok-1');
      assert.ok(s.messages.indexOf(n) < responseAt);
    }
    await s.close();
  });
});

describe('cancellation', () => {
  test('SDK AbortSignal: the cancelled call is never answered and the next request is answered promptly', opts(), async (t) => {
    const srv = await connectClient(t);
    await srv.client.listTools();
    const ac = new AbortController();
    const call = srv.client.callTool({ name: 'fixture_sleep', arguments: { ms: 5000 } }, undefined, { signal: ac.signal });
    await sleep(200);
    const sentBefore = srv.inbound.length;
    ac.abort('test gives up');
    await assert.rejects(call);
    await sleep(1000);
    // Nothing at all arrived for the cancelled call (no response, no error).
    assert.deepEqual(srv.inbound.slice(sentBefore), []);
    assert.deepEqual(srv.errors, [], 'the SDK saw no stray response');
    const started = Date.now();
    const r = await srv.client.callTool({ name: 'fixture_echo', arguments: { text: 'next' } });
    assert.equal(textOf(r), 'next');
    assert.ok(Date.now() - started < ms(1000), `the next request took ${Date.now() - started} ms`);
    await srv.close();
  });

  test('notifications/cancelled (raw): no reply with that id within 1 s; the next request is answered promptly', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    await s.send({
      jsonrpc: '2.0',
      id: 'slow-1',
      method: 'tools/call',
      params: { name: 'fixture_sleep', arguments: { ms: 5000, steps: 5 }, _meta: { progressToken: 'p' } },
    });
    await sleep(150);
    await s.notify('notifications/cancelled', { requestId: 'slow-1', reason: 'user pressed stop' });
    const cancelledAt = s.messages.length;
    await s.assertNoReply((m) => m.raw.includes('"slow-1"'), 1000, 'reply for the cancelled id');
    assert.equal(
      s.messages.slice(cancelledAt).filter((m) => m.json?.method === 'notifications/progress').length,
      0,
      'no progress after the cancellation',
    );
    const started = Date.now();
    const r = await s.request('after', 'tools/call', { name: 'fixture_echo', arguments: { text: 'ok' } });
    assert.equal(r.result.content[0].text, 'ok');
    assert.ok(Date.now() - started < ms(1000), `the next request took ${Date.now() - started} ms`);
    await s.close();
  });

  test('a cancelled worker-pool call (no cancel hook) finishes in the background and is never answered', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    await s.send({ jsonrpc: '2.0', id: 'work', method: 'tools/call', params: { name: 'fixture_work', arguments: { n: 300000000 } } });
    await sleep(50);
    await s.notify('notifications/cancelled', { requestId: 'work' });
    const r = await s.request('other', 'tools/call', { name: 'fixture_work', arguments: { n: 1000 } });
    assert.equal(r.result.structuredContent.sum, workSum(1000));
    // Whether the job is still running at exit or not, its answer must never appear.
    await s.close({ timeoutMs: ms(5000) });
    assert.equal(s.messages.filter((m) => m.raw.includes('"work"')).length, 0);
  });

  test('cancelling an unknown or finished request is ignored', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    await s.request(1, 'tools/call', { name: 'fixture_echo', arguments: { text: 'done' } });
    await s.notify('notifications/cancelled', { requestId: 1 });
    await s.notify('notifications/cancelled', { requestId: 'never-sent' });
    await s.notify('notifications/cancelled', {});
    const before = s.messages.length;
    await s.assertServing();
    assert.equal(s.messages.length, before + 1, 'only the ping was answered');
    await s.close();
  });

  test('an id is free again once its call was cancelled', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    await s.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 5000 } } });
    await sleep(100);
    await s.notify('notifications/cancelled', { requestId: 7 });
    const r = await s.request(7, 'tools/call', { name: 'fixture_echo', arguments: { text: 'reused' } });
    assert.equal(r.result.content[0].text, 'reused');
    await s.close();
  });
});

describe('concurrency', () => {
  test('answers out of order: a quick call overtakes a slow one', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    await s.write(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 600 } } }) +
        '\n' +
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_echo', arguments: { text: 'quick' } } }) +
        '\n',
    );
    const quick = await s.reply(2);
    const slow = await s.reply(1);
    assert.ok(s.messages.indexOf(quick) < s.messages.indexOf(slow), 'id 2 is answered before id 1');
    assert.equal(quick.json.result.content[0].text, 'quick');
    assert.equal(slow.json.result.structuredContent.cancelled, false);
    await s.close();
  });

  test('20 concurrent fixture_work calls are all answered with correct sums', opts(), async (t) => {
    const srv = await connectClient(t);
    await srv.client.listTools();
    const ns = Array.from({ length: 20 }, (_, i) => 20000 + i * 3001);
    const results = await deadline(
      Promise.all(ns.map((n) => srv.client.callTool({ name: 'fixture_work', arguments: { n } }))),
      ms(20000),
      '20 fixture_work calls',
    );
    results.forEach((r, i) => {
      assert.notEqual(r.isError, true, textOf(r));
      assert.equal(r.structuredContent.sum, workSum(ns[i]), `sum for n=${ns[i]}`);
      assert.equal(textOf(r), `sum ${workSum(ns[i])}`);
    });
    await srv.close();
  });

  test('a duplicate id while the first is in flight is refused; the first still completes', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const call = { jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 300 } } };
    await s.send(call);
    await s.send(call);
    const refused = await s.reply('dup');
    assert.equal(refused.json.error?.code, -32600, refused.raw);
    assert.match(refused.json.error.message, /in flight/);
    const done = await s.reply('dup');
    assert.equal(done.json.result?.structuredContent.steps, 1, done.raw);
    await s.close();
  });
});

describe('logging (legacy era)', () => {
  test('logging/setLevel filters fixture_log: only messages at or above the level are sent', opts(), async (t) => {
    const srv = await connectClient(t);
    const got = [];
    srv.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => got.push(n.params));
    const logAll = async () => {
      for (const level of ['debug', 'info', 'warning', 'error']) {
        await srv.client.callTool({ name: 'fixture_log', arguments: { level, message: `at ${level}` } });
      }
      await srv.client.ping(); // everything sent before the ping's answer has been handled
    };

    await srv.client.setLoggingLevel('warning');
    await logAll();
    assert.deepEqual(
      got.map((p) => p.level),
      ['warning', 'error'],
    );
    assert.equal(got[0].data, 'at warning');
    assert.equal(got[0].logger, 'fixture_log');

    got.length = 0;
    await srv.client.setLoggingLevel('debug');
    await logAll();
    assert.deepEqual(
      got.map((p) => p.level),
      ['debug', 'info', 'warning', 'error'],
    );

    got.length = 0;
    await srv.client.setLoggingLevel('emergency');
    await logAll();
    assert.deepEqual(got, []);
    await srv.close();
  });

  test('logging/setLevel with an unknown level is invalid params (-32602)', opts(), async (t) => {
    const srv = await connectClient(t);
    await assertMcpError(srv.client.setLoggingLevel('verbose'), -32602, /level/);
    await assertMcpError(srv.client.request({ method: 'logging/setLevel', params: {} }, EmptyResultSchema), -32602);
    await srv.client.ping();
    await srv.close();
  });
});
