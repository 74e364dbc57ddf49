// Resources: listing, templates and reading, with the "not found" error of
// each protocol era.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { META_SERVER_INFO, RawServer, assertMcpError, connectClient, modernParams, opts } from '../lib/server.mjs';

describe('resources (SDK client)', () => {
  test('resources/list includes fixture://hello', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.listResources();
    const hello = r.resources.find((x) => x.uri === 'fixture://hello');
    assert.ok(hello, `resources: ${JSON.stringify(r.resources)}`);
    assert.equal(hello.mimeType, 'text/plain');
    assert.equal(typeof hello.name, 'string');
    await srv.close();
  });

  test('resources/templates/list includes the fixture template', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.listResourceTemplates();
    const tpl = r.resourceTemplates.find((x) => x.uriTemplate === 'fixture://{name}');
    assert.ok(tpl, `templates: ${JSON.stringify(r.resourceTemplates)}`);
    assert.equal(typeof tpl.name, 'string');
    await srv.close();
  });

  test('resources/read returns the text "hello from glovebox"', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.readResource({ uri: 'fixture://hello' });
    assert.equal(r.contents.length, 1);
    assert.equal(r.contents[0].uri, 'fixture://hello');
    assert.equal(r.contents[0].mimeType, 'text/plain');
    assert.equal(r.contents[0].text, 'hello from glovebox');
    await srv.close();
  });

  test('reading an unknown URI is resource not found (-32002) naming the URI', opts(), async (t) => {
    const srv = await connectClient(t);
    for (const uri of ['fixture://nope', 'nowhere://at/all']) {
      const err = await assertMcpError(srv.client.readResource({ uri }), -32002);
      assert.ok(err.message.includes(uri), err.message);
      assert.equal(err.data?.uri, uri);
    }
    await srv.client.ping();
    await srv.close();
  });

  test('resources/read without a uri is invalid params (-32602)', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const r = await s.request(1, 'resources/read', {});
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    await s.close();
  });
});

describe('resources (2026-07-28)', () => {
  test('list and read work statelessly and carry resultType and serverInfo', opts(), async (t) => {
    const s = RawServer.start(t);
    const list = await s.request(1, 'resources/list', modernParams());
    assert.equal(list.result.resultType, 'complete');
    assert.ok(list.result._meta[META_SERVER_INFO]);
    assert.ok(list.result.resources.some((x) => x.uri === 'fixture://hello'));
    const read = await s.request(2, 'resources/read', modernParams({ uri: 'fixture://hello' }));
    assert.equal(read.result.resultType, 'complete');
    assert.equal(read.result.contents[0].text, 'hello from glovebox');
    assert.ok(read.result._meta[META_SERVER_INFO]);
    await s.close();
  });

  test('reading an unknown URI is invalid params (-32602) in the modern era', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'resources/read', modernParams({ uri: 'fixture://nope' }));
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.equal(r.error.data?.uri, 'fixture://nope');
    // The same connection still uses -32002 for legacy requests.
    await s.initialize();
    const legacy = await s.request(2, 'resources/read', { uri: 'fixture://nope' });
    assert.equal(legacy.error?.code, -32002, JSON.stringify(legacy));
    await s.close();
  });
});
