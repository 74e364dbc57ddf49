// Tool arguments are checked against the tool's input schema before the tool
// runs; a mistake comes back as a tool error whose text says exactly what is
// wrong, so a model can fix its call. Protocol mistakes are JSON-RPC errors.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { RawServer, assertMcpError, connectClient, opts, textOf } from '../lib/server.mjs';

describe('argument validation (fixture_types, SDK client)', () => {
  // One server for the whole group, started by whichever test runs first; the
  // last test closes it and checks its exit. Assertions stay out of hooks:
  // node:test does not count a failing describe-level hook as a failed test.
  let srv;
  let starting;
  const server = async () => (srv ??= await (starting ??= connectClient(null)));
  const callTool = async (params) => (await server()).client.callTool(params);
  after(() => srv?.kill()); // cleanup only, if a test failed before the last one

  async function invalid(args) {
    const r = await callTool({ name: 'fixture_types', arguments: args });
    assert.equal(r.isError, true, `expected a tool error for ${JSON.stringify(args)}, got ${JSON.stringify(r)}`);
    const text = textOf(r);
    assert.match(text, /fixture_types/, 'the error names the tool');
    return text;
  }

  test('valid arguments are accepted', opts(), async () => {
    const r = await callTool({
      name: 'fixture_types',
      arguments: { count: 3, mode: 'fast', tags: ['a', 'b'], flag: true, ratio: 0.5, env: { X: '1' } },
    });
    assert.notEqual(r.isError, true, textOf(r));
    assert.match(textOf(r), /accepted/);
  });

  test('a missing required argument is named with its type', opts(), async () => {
    const text = await invalid({});
    assert.match(text, /"count"/);
    assert.match(text, /integer/);
    assert.match(text, /missing|required/);
  });

  test('a wrong type names the expected type and what was given', opts(), async () => {
    const text = await invalid({ count: 'a' });
    assert.match(text, /"count"/);
    assert.match(text, /expected integer/);
    assert.match(text, /got string "a"/);
  });

  test('an unknown argument is named and the valid ones are listed', opts(), async () => {
    const text = await invalid({ count: 1, colour: 'red' });
    assert.match(text, /unknown argument "colour"/);
    for (const name of ['count', 'mode', 'tags', 'flag', 'ratio', 'env']) assert.match(text, new RegExp(`\\b${name}\\b`));
  });

  test('an enum violation lists the allowed values', opts(), async () => {
    const text = await invalid({ count: 1, mode: 'medium' });
    assert.match(text, /"mode"/);
    assert.match(text, /"fast"/);
    assert.match(text, /"slow"/);
    assert.match(text, /medium/);
  });

  test('a value below the minimum says so', opts(), async () => {
    const text = await invalid({ count: 0 });
    assert.match(text, /"count"/);
    assert.match(text, /at least 1/);
  });

  test('a value above the maximum says so', opts(), async () => {
    const text = await invalid({ count: 11 });
    assert.match(text, /"count"/);
    assert.match(text, /at most 10/);
  });

  test('a wrong array item type names the item as tags[1]', opts(), async () => {
    const text = await invalid({ count: 1, tags: ['ok', 2] });
    assert.match(text, /tags\[1\]/);
    assert.match(text, /expected string/);
    assert.match(text, /got integer 2/);
  });

  test('a wrong object value type names the value as env.X', opts(), async () => {
    const text = await invalid({ count: 1, env: { X: 5 } });
    assert.match(text, /env\.X/);
    assert.match(text, /expected string/);
  });

  test('a whole-number float counts as an integer; a fraction does not', opts(), async () => {
    const ok = await callTool({ name: 'fixture_types', arguments: { count: 2.0 } });
    assert.notEqual(ok.isError, true, textOf(ok));
    const text = await invalid({ count: 2.5 });
    assert.match(text, /expected integer/);
  });

  test('an unknown tool is a JSON-RPC invalid params error (-32602)', opts(), async () => {
    const err = await assertMcpError(callTool({ name: 'no_such_tool', arguments: {} }), -32602);
    assert.match(err.message, /no_such_tool/);
  });

  test('the server keeps serving after validation errors and then exits cleanly', opts(), async () => {
    const r = await callTool({ name: 'fixture_echo', arguments: { text: 'still here' } });
    assert.equal(textOf(r), 'still here');
    await (await server()).close();
  });
});

describe('malformed tools/call params (raw pipe)', () => {
  test('arguments that are not an object are invalid params (-32602)', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    for (const [i, args] of [[1, 2], ['a'], 'text', 7, true].entries()) {
      const r = await s.request(i + 1, 'tools/call', { name: 'fixture_echo', arguments: args });
      assert.equal(r.error?.code, -32602, `arguments ${JSON.stringify(args)}: ${JSON.stringify(r)}`);
      assert.match(r.error.message, /arguments/);
    }
    await s.assertServing();
    await s.close();
  });

  test('a missing or non-string tool name is invalid params (-32602)', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const missing = await s.request(1, 'tools/call', { arguments: {} });
    assert.equal(missing.error?.code, -32602);
    const numeric = await s.request(2, 'tools/call', { name: 5 });
    assert.equal(numeric.error?.code, -32602);
    const unknown = await s.request(3, 'tools/call', { name: 'nope' });
    assert.equal(unknown.error?.code, -32602);
    assert.match(unknown.error.message, /nope/);
    await s.close();
  });

  test('omitted arguments are treated as an empty object', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const r = await s.request(1, 'tools/call', { name: 'session_list' });
    assert.deepEqual(r.result.structuredContent, { sessions: [] });
    const required = await s.request(2, 'tools/call', { name: 'fixture_types' });
    assert.equal(required.result.isError, true);
    assert.match(required.result.content[0].text, /"count"/);
    await s.close();
  });
});
