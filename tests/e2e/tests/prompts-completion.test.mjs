// Prompts (list, get, argument checks) and completion/complete, through the
// official SDK client over stdio, plus the 2026-07-28 stateless path.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { META_SERVER_INFO, RawServer, assertMcpError, connectClient, modernParams, opts } from '../lib/server.mjs';

describe('prompts (SDK client)', () => {
  test('initialize advertises prompts and completions', opts(), async (t) => {
    const srv = await connectClient(t);
    const caps = srv.client.getServerCapabilities();
    // listChanged: saved recipes are prompts, and saving one changes the list.
    assert.deepEqual(caps.prompts, { listChanged: true });
    assert.deepEqual(caps.completions, {});
    assert.equal(caps.resources?.subscribe, true);
    await srv.close();
  });

  test('prompts/list names each prompt with its arguments', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.listPrompts();
    const byName = Object.fromEntries(r.prompts.map((p) => [p.name, p]));
    for (const name of ['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image']) {
      assert.ok(byName[name], `${name} missing from ${JSON.stringify(r.prompts.map((p) => p.name))}`);
      assert.equal(typeof byName[name].description, 'string');
    }
    assert.deepEqual(
      byName.test_prompt_with_arguments.arguments.map((a) => [a.name, a.required]),
      [['arg1', true], ['arg2', false]],
    );
    assert.deepEqual(byName.test_simple_prompt.arguments, []);
    await srv.close();
  });

  test('prompts/list is paginated like tools/list', opts(), async (t) => {
    const srv = await connectClient(t, { args: ['--page-size', '3'] });
    const first = await srv.client.listPrompts();
    assert.equal(first.prompts.length, 3);
    assert.ok(first.nextCursor, 'a next cursor after a full page');
    const second = await srv.client.listPrompts({ cursor: first.nextCursor });
    assert.equal(second.prompts.length, 1);
    assert.equal(second.nextCursor, undefined);
    await assertMcpError(srv.client.listPrompts({ cursor: 'bogus' }), -32602, /cursor/);
    await srv.close();
  });

  test('prompts/get fills in the arguments', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'alpha', arg2: 'beta' } });
    assert.equal(r.messages.length, 1);
    assert.equal(r.messages[0].role, 'user');
    assert.equal(r.messages[0].content.text, "Prompt with arguments: arg1='alpha', arg2='beta'");
    const simple = await srv.client.getPrompt({ name: 'test_simple_prompt' });
    assert.equal(simple.messages[0].content.type, 'text');
    const img = await srv.client.getPrompt({ name: 'test_prompt_with_image' });
    assert.equal(img.messages[0].content.type, 'image');
    assert.equal(img.messages[0].content.mimeType, 'image/png');
    const emb = await srv.client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://x' } });
    assert.equal(emb.messages[0].content.resource.uri, 'test://x');
    await srv.close();
  });

  test('bad prompt requests are invalid params naming what is wrong', opts(), async (t) => {
    const srv = await connectClient(t);
    await assertMcpError(srv.client.getPrompt({ name: 'no_such_prompt' }), -32602, /unknown prompt no_such_prompt/);
    await assertMcpError(
      srv.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg2: 'x' } }),
      -32602,
      /needs argument "arg1"/,
    );
    await assertMcpError(
      srv.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', colour: 'red' } }),
      -32602,
      /no argument "colour" \(its arguments: "arg1", "arg2"\)/,
    );
    await srv.client.ping();
    await srv.close();
  });

  test('a non-string argument value is invalid params naming the argument', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const r = await s.request(1, 'prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 5 } });
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.match(r.error.message, /argument "arg1" of prompt test_prompt_with_arguments must be a string/);
    await s.close();
  });
});

describe('completion/complete', () => {
  test('completes a prompt argument from what was typed', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
    assert.deepEqual(r.completion, { values: ['paris', 'park', 'party'], total: 3, hasMore: false });
    const none = await srv.client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg2', value: 'x' } });
    assert.deepEqual(none.completion.values, []);
    await srv.close();
  });

  test('completes a resource template variable', opts(), async (t) => {
    const srv = await connectClient(t);
    const r = await srv.client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '4' } });
    assert.deepEqual(r.completion.values, ['456']);
    await srv.close();
  });

  test('bad references are invalid params naming the field', opts(), async (t) => {
    const srv = await connectClient(t);
    await assertMcpError(
      srv.client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } }),
      -32602,
      /unknown prompt nope in "ref.name"/,
    );
    await assertMcpError(
      srv.client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'zzz', value: '' } }),
      -32602,
      /no argument "zzz"/,
    );
    await srv.close();
    const s = RawServer.start(t);
    await s.initialize();
    const r = await s.request(1, 'completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' } });
    assert.match(r.error?.message ?? '', /"ref.type" must be "ref\/prompt" or "ref\/resource"/);
    const r2 = await s.request(2, 'completion/complete', { ref: { type: 'ref/prompt', name: 'test_simple_prompt' }, argument: { name: 'a' } });
    assert.match(r2.error?.message ?? '', /"argument.value"/);
    const r3 = await s.request(3, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: '' },
      context: { arguments: { arg2: 5 } },
    });
    assert.match(r3.error?.message ?? '', /"context.arguments" must be an object of strings/);
    await s.close();
  });
});

describe('prompts and completion (2026-07-28)', () => {
  test('work statelessly and carry resultType and serverInfo', opts(), async (t) => {
    const s = RawServer.start(t);
    const list = await s.request(1, 'prompts/list', modernParams());
    assert.equal(list.result?.resultType, 'complete', JSON.stringify(list));
    assert.ok(list.result._meta[META_SERVER_INFO]);
    assert.equal(list.result.cacheScope, 'private');
    const get = await s.request(2, 'prompts/get', modernParams({ name: 'test_simple_prompt' }));
    assert.equal(get.result?.messages?.length, 1, JSON.stringify(get));
    const c = await s.request(3, 'completion/complete', modernParams({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } }));
    assert.deepEqual(c.result?.completion?.values, ['test', 'testing', 'tested'], JSON.stringify(c));
    const disc = await s.request(4, 'server/discover', modernParams());
    assert.ok(disc.result.capabilities.prompts);
    await s.close();
  });
});
