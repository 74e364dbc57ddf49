// The stateless 2026-07-28 revision: no initialize; every request carries its
// protocol version and client capabilities in params._meta.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  META_CAPS,
  META_LOG,
  META_SERVER_INFO,
  META_VERSION,
  MODERN,
  RawServer,
  modernParams,
  opts,
} from '../lib/server.mjs';

function assertModernResult(result, what) {
  assert.ok(result, `${what}: a result`);
  assert.equal(result.resultType, 'complete', `${what}: resultType`);
  const info = result._meta?.[META_SERVER_INFO];
  assert.equal(info?.name, 'glovebox', `${what}: _meta serverInfo`);
  assert.equal(typeof info.version, 'string');
}

const logCalls = (s) => s.messages.filter((m) => m.json?.method === 'notifications/message');

describe('2026-07-28 stateless requests (no initialize)', () => {
  test('server/discover lists 2026-07-28 with capabilities, serverInfo and caching hints', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'server/discover', modernParams());
    assertModernResult(r.result, 'server/discover');
    assert.ok(r.result.supportedVersions.includes(MODERN), `supportedVersions: ${r.result.supportedVersions}`);
    assert.ok(r.result.capabilities.tools);
    // Prompts: the conformance suite's, and saved recipes, whose list changes.
    assert.deepEqual(r.result.capabilities.prompts, { listChanged: true });
    assert.equal(typeof r.result.instructions, 'string');
    assert.ok(Number.isInteger(r.result.ttlMs) && r.result.ttlMs >= 0, `ttlMs ${r.result.ttlMs}`);
    assert.ok(['public', 'private'].includes(r.result.cacheScope), `cacheScope ${r.result.cacheScope}`);
    await s.close();
  });

  test('tools/list works without initialize and carries resultType, serverInfo, ttlMs and cacheScope', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'tools/list', modernParams());
    assertModernResult(r.result, 'tools/list');
    assert.ok(r.result.tools.some((x) => x.name === 'status'));
    const status = r.result.tools.find((x) => x.name === 'status');
    assert.ok(status.outputSchema, 'modern tools carry outputSchema');
    assert.ok(status.annotations, 'modern tools carry annotations');
    assert.ok(Number.isInteger(r.result.ttlMs), `ttlMs ${r.result.ttlMs}`);
    assert.ok(['public', 'private'].includes(r.result.cacheScope), `cacheScope ${r.result.cacheScope}`);
    await s.close();
  });

  test('tools/call works without initialize and carries resultType and serverInfo', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'tools/call', modernParams({ name: 'fixture_echo', arguments: { text: 'stateless' } }));
    assertModernResult(r.result, 'tools/call');
    assert.deepEqual(r.result.content, [{ type: 'text', text: 'stateless' }]);
    assert.deepEqual(r.result.structuredContent, { text: 'stateless' });
    await s.close();
  });

  test('an unsupported version is error -32022 naming the supported and requested versions', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'tools/list', modernParams({}, { [META_VERSION]: '1900-01-01' }));
    assert.equal(r.error?.code, -32022, JSON.stringify(r));
    assert.equal(r.error.data.requested, '1900-01-01');
    assert.ok(Array.isArray(r.error.data.supported));
    assert.ok(r.error.data.supported.includes(MODERN));
    await s.assertServing();
    await s.close();
  });

  test('missing clientCapabilities is invalid params (-32602)', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'tools/list', { _meta: { [META_VERSION]: MODERN } });
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.ok(r.error.message.includes(META_CAPS), r.error.message);
    await s.close();
  });

  test('server/discover without _meta is invalid params (-32602)', opts(), async (t) => {
    const s = RawServer.start(t);
    const noParams = await s.request(1, 'server/discover');
    assert.equal(noParams.error?.code, -32602, JSON.stringify(noParams));
    const emptyMeta = await s.request(2, 'server/discover', { _meta: {} });
    assert.equal(emptyMeta.error?.code, -32602, JSON.stringify(emptyMeta));
    await s.close();
  });

  test('ping is not a 2026-07-28 method (-32601)', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'ping', modernParams());
    assert.equal(r.error?.code, -32601, JSON.stringify(r));
    await s.close();
  });

  test('logging is per request: fixture_log sends notifications/message only when _meta asks for it', opts(), async (t) => {
    const s = RawServer.start(t);
    const quiet = await s.request(1, 'tools/call', modernParams({ name: 'fixture_log', arguments: { level: 'error', message: 'unasked' } }));
    assertModernResult(quiet.result, 'fixture_log without logLevel');
    assert.equal(logCalls(s).length, 0, 'no log message without _meta logLevel');

    const asked = await s.request(
      2,
      'tools/call',
      modernParams({ name: 'fixture_log', arguments: { level: 'info', message: 'asked for' } }, { [META_LOG]: 'debug' }),
    );
    assertModernResult(asked.result, 'fixture_log with logLevel');
    const logs = logCalls(s);
    assert.equal(logs.length, 1, 'one log message');
    assert.equal(logs[0].json.params.level, 'info');
    assert.equal(logs[0].json.params.data, 'asked for');
    assert.ok(
      s.messages.indexOf(logs[0]) < s.messages.findIndex((m) => m.json?.id === 2),
      'the log message precedes the response it belongs to',
    );

    await s.request(
      3,
      'tools/call',
      modernParams({ name: 'fixture_log', arguments: { level: 'info', message: 'below threshold' } }, { [META_LOG]: 'error' }),
    );
    assert.equal(logCalls(s).length, 1, 'a message below the requested level is not sent');

    // The level does not stick to the connection: the next request without it gets nothing.
    await s.request(4, 'tools/call', modernParams({ name: 'fixture_log', arguments: { level: 'error', message: 'again unasked' } }));
    assert.equal(logCalls(s).length, 1);
    await s.close();
  });

  test('a bad logLevel is invalid params (-32602)', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'tools/call', modernParams({ name: 'fixture_log', arguments: { message: 'x' } }, { [META_LOG]: 'loud' }));
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.match(r.error.message, /logLevel/);
    assert.equal(logCalls(s).length, 0);
    await s.close();
  });

  test('both eras on one connection: stateless requests before and after initialize, legacy ones after', opts(), async (t) => {
    const s = RawServer.start(t);
    const before = await s.request(1, 'tools/call', modernParams({ name: 'fixture_echo', arguments: { text: 'before' } }));
    assertModernResult(before.result, 'stateless before initialize');

    const init = await s.initialize('2025-06-18');
    assert.equal(init.protocolVersion, '2025-06-18');

    const legacy = await s.request(2, 'tools/call', { name: 'fixture_echo', arguments: { text: 'legacy' } });
    assert.equal(legacy.result.resultType, undefined, 'legacy results have no resultType');
    assert.equal(legacy.result._meta, undefined, 'legacy results have no serverInfo meta');
    assert.deepEqual(legacy.result.structuredContent, { text: 'legacy' });

    const after = await s.request(3, 'tools/call', modernParams({ name: 'fixture_echo', arguments: { text: 'after' } }));
    assertModernResult(after.result, 'stateless after initialize');
    assert.deepEqual(after.result.structuredContent, { text: 'after' });

    const legacyList = await s.request(4, 'tools/list');
    assert.equal(legacyList.result.resultType, undefined);
    assert.equal(legacyList.result.ttlMs, undefined, 'legacy lists carry no caching hints');
    const modernList = await s.request(5, 'tools/list', modernParams());
    assertModernResult(modernList.result, 'modern tools/list after initialize');
    assert.deepEqual(
      modernList.result.tools.map((x) => x.name),
      legacyList.result.tools.map((x) => x.name),
    );
    await s.assertServing();
    await s.close();
  });
});
