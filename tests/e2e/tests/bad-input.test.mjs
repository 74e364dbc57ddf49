// Whatever a client sends, the server answers what deserves an answer, says
// what was wrong, and keeps serving: after each bad message a ping must still
// be answered.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { RawServer, opts } from '../lib/server.mjs';

/** Starts a server, initializes it, and returns it. */
async function ready(t, args) {
  const s = RawServer.start(t, { args });
  await s.initialize();
  return s;
}

/** Sends raw bytes as one line, takes the error reply matching pred, then requires a ping answer. */
async function badLine(s, bytes, pred = (m) => m.json?.error) {
  await s.write(Buffer.concat([Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), Buffer.from('\n')]));
  const reply = await s.take(pred, { what: 'the error reply' });
  await s.assertServing();
  return reply;
}

describe('malformed messages', () => {
  test('invalid JSON is a parse error (-32700) with id null', opts(), async (t) => {
    const s = await ready(t);
    for (const text of ['{"jsonrpc":"2.0","id":1,"method":"ping"', 'not json at all', '{"a":}', '{"jsonrpc":"2.0","id":1,"method":"ping"}}']) {
      const r = await badLine(s, text);
      assert.equal(r.json.error.code, -32700, `${text}: ${r.raw}`);
      assert.equal(r.json.id, null);
      assert.match(r.json.error.message, /Parse error/);
    }
    await s.close();
  });

  test('an oversized message is refused (-32600) naming the limit; the next message works', opts(), async (t) => {
    const s = await ready(t, ['--max-message', '64K']);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'fixture_echo', arguments: { text: 'x'.repeat(100 * 1024) } } });
    const r = await badLine(s, big);
    assert.equal(r.json.error.code, -32600, r.raw);
    assert.equal(r.json.id, null);
    assert.match(r.json.error.message, /65536/);
    assert.match(r.json.error.message, /exceeds|limit/);
    const ok = await s.request('small', 'tools/call', { name: 'fixture_echo', arguments: { text: 'small' } });
    assert.equal(ok.result.content[0].text, 'small');
    // A message just under the limit is fine.
    const near = await s.request('near', 'tools/call', { name: 'fixture_echo', arguments: { text: 'y'.repeat(60 * 1024) } });
    assert.equal(near.result.content[0].text.length, 60 * 1024);
    await s.close();
  });

  test('an oversized message written in several chunks is refused once and the next message works', opts(), async (t) => {
    const s = await ready(t, ['--max-message', '64K']);
    const line = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { pad: 'z'.repeat(300 * 1024) } }) + '\n';
    for (let i = 0; i < line.length; i += 50000) await s.write(line.slice(i, i + 50000));
    const r = await s.take((m) => m.json?.error, { what: 'the size error' });
    assert.equal(r.json.error.code, -32600, r.raw);
    await s.assertServing();
    assert.equal(s.messages.filter((m) => m.json?.error).length, 1, 'exactly one error for one oversized message');
    await s.close();
  });

  test('invalid UTF-8 inside a string is a parse error (-32700)', opts(), async (t) => {
    const s = await ready(t);
    const bytes = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"fixture_echo","arguments":{"text":"a'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from('"}}}'),
    ]);
    const r = await badLine(s, bytes);
    assert.equal(r.json.error.code, -32700, r.raw);
    await s.close();
  });

  test('jsonrpc "1.0" is an invalid request (-32600) with the id echoed', opts(), async (t) => {
    const s = await ready(t);
    const r = await badLine(s, '{"jsonrpc":"1.0","id":"old-1","method":"ping"}');
    assert.equal(r.json.error.code, -32600, r.raw);
    assert.equal(r.json.id, 'old-1');
    assert.match(r.json.error.message, /2\.0/);
    const missing = await badLine(s, '{"id":"none-1","method":"ping"}');
    assert.equal(missing.json.error.code, -32600, missing.raw);
    assert.equal(missing.json.id, 'none-1');
    await s.close();
  });

  test('a batch array is refused (-32600) and nothing in it runs', opts(), async (t) => {
    const s = await ready(t);
    const r = await badLine(s, '[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]');
    assert.equal(r.json.error.code, -32600, r.raw);
    assert.match(r.json.error.message, /batch/i);
    assert.equal(s.messages.filter((m) => m.json?.id === 'b1' || m.json?.id === 'b2').length, 0);
    await s.close();
  });

  test('a message that is not an object, or params that are not an object, is an invalid request', opts(), async (t) => {
    const s = await ready(t);
    for (const text of ['"hello"', '42', 'null', '{"jsonrpc":"2.0","id":"p","method":"ping","params":[1]}', '{"jsonrpc":"2.0","id":"m","method":5}']) {
      const r = await badLine(s, text);
      assert.equal(r.json.error.code, -32600, `${text}: ${r.raw}`);
    }
    await s.close();
  });

  test('a valid request with \\u0000 inside a string is answered with its id', opts(), async (t) => {
    const s = await ready(t);
    await s.write('{"jsonrpc":"2.0","id":"nul","method":"tools/call","params":{"name":"fixture_types","arguments":{"count":1,"tags":["a\\u0000b"]}}}\n');
    const r = await s.reply('nul');
    assert.ok(r.json.result, r.raw);
    await s.assertServing();
    await s.close();
  });

  test('a string argument with \\u0000 is passed through intact or refused, never truncated', opts(), async (t) => {
    const s = await ready(t);
    await s.write('{"jsonrpc":"2.0","id":"echo","method":"tools/call","params":{"name":"fixture_echo","arguments":{"text":"a\\u0000b"}}}\n');
    const r = (await s.reply('echo')).json;
    if (!r.error && !r.result.isError) {
      assert.equal(r.result.content[0].text, 'a\u0000b', 'the text is echoed whole');
      assert.equal(r.result.structuredContent.text, 'a\u0000b');
    }
    await s.close();
  });

  test('a method or tool name with \\u0000 in it is not taken for its prefix', opts(), async (t) => {
    const s = await ready(t);
    await s.write('{"jsonrpc":"2.0","id":"m","method":"ping\\u0000x"}\n');
    const method = (await s.reply('m')).json;
    assert.equal(method.error?.code, -32601, `"ping\\u0000x" answered as ping: ${JSON.stringify(method)}`);
    await s.write('{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"fixture_echo\\u0000x","arguments":{"text":"hi"}}}\n');
    const tool = (await s.reply('t')).json;
    assert.equal(tool.error?.code, -32602, `"fixture_echo\\u0000x" ran fixture_echo: ${JSON.stringify(tool)}`);
    await s.close();
  });

  test('10,000-deep nested arrays get an error, not a crash', opts(), async (t) => {
    const s = await ready(t);
    const r = await badLine(s, '['.repeat(10000) + ']'.repeat(10000));
    assert.ok([-32700, -32600].includes(r.json.error.code), r.raw);
    const objects = await badLine(s, '{"a":'.repeat(10000) + '1' + '}'.repeat(10000));
    assert.ok([-32700, -32600].includes(objects.json.error.code), objects.raw);
    await s.close();
  });

  test('blank lines and CRLF line endings are tolerated', opts(), async (t) => {
    const s = await ready(t);
    await s.write('\n\r\n   \n{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
    const r = await s.reply('crlf');
    assert.deepEqual(r.json.result, {});
    await s.assertServing();
    assert.equal(s.messages.filter((m) => m.json?.error).length, 0);
    await s.close();
  });
});

describe('lifecycle errors', () => {
  test('a request before initialize is an invalid request (-32600) that says to initialize', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.request(1, 'tools/list');
    assert.equal(r.error?.code, -32600, JSON.stringify(r));
    assert.match(r.error.message, /initialize/);
    // ping is allowed before initialize.
    await s.assertServing();
    await s.initialize();
    const list = await s.request(2, 'tools/list');
    assert.ok(list.result.tools.length > 0);
    await s.close();
  });

  test('an unknown method after initialize is method not found (-32601)', opts(), async (t) => {
    const s = await ready(t);
    const r = await s.request('nm', 'tools/frobnicate', {});
    assert.equal(r.error?.code, -32601, JSON.stringify(r));
    assert.match(r.error.message, /tools\/frobnicate/);
    await s.assertServing();
    await s.close();
    // On the real binary too (its prompts are saved recipes, so prompts/list is a method there).
    const real = RawServer.start(t, { bin: 'glovebox' });
    await real.initialize();
    const unknown = await real.request('pl', 'prompts/frobnicate', {});
    assert.equal(unknown.error?.code, -32601, JSON.stringify(unknown));
    await real.close();
  });

  test('responses the server did not ask for are ignored', opts(), async (t) => {
    const s = await ready(t);
    await s.send({ jsonrpc: '2.0', id: 'x', result: {} });
    await s.send({ jsonrpc: '2.0', id: 'y', error: { code: 1, message: 'no' } });
    const before = s.messages.length;
    await s.assertServing();
    assert.equal(s.messages.length, before + 1, 'only the ping was answered');
    await s.close();
  });
});

describe('request ids', () => {
  test('a 100 KB id string is refused (-32600) naming the 1024-byte limit', opts(), async (t) => {
    const s = await ready(t);
    const r = await badLine(s, JSON.stringify({ jsonrpc: '2.0', id: 'i'.repeat(100 * 1024), method: 'ping' }));
    assert.equal(r.json.error.code, -32600, r.raw.slice(0, 300));
    assert.equal(r.json.id, null, 'the oversized id is not echoed');
    assert.match(r.json.error.message, /1024/);
    // An id of exactly 1024 bytes is fine.
    const id = 'j'.repeat(1024);
    const ok = await s.request(id, 'ping');
    assert.equal(ok.id, id);
    await s.close();
  });

  test('ids are echoed byte-exact: strings, 64-bit integers, zero and negatives', opts(), async (t) => {
    const s = await ready(t);
    const cases = [
      ['"plain-string"', '"plain-string"'],
      ['"\\u00e9\\ud83d\\ude00 \\"q\\" \\\\"', null], // compare parsed: escapes may be re-encoded
      ['""', '""'],
      ['0', '0'],
      ['-1', '-1'],
      ['9007199254740993', '9007199254740993'],
      ['-9223372036854775808', '-9223372036854775808'],
      ['9223372036854775807', '9223372036854775807'],
    ];
    for (const [idText, expected] of cases) {
      await s.write(`{"jsonrpc":"2.0","id":${idText},"method":"ping"}\n`);
      const r = await s.take((m) => m.json && 'result' in m.json && m.json.id !== 'init', { what: `the reply to id ${idText}` });
      if (expected !== null) {
        assert.ok(r.raw.includes(`"id":${expected},`) || r.raw.includes(`"id":${expected}}`), `id ${idText} echoed as ${r.raw}`);
      } else {
        assert.equal(r.json.id, JSON.parse(idText));
      }
    }
    await s.close();
  });

  test('a request whose id is null, fractional, boolean or an object is an invalid request (-32600)', opts(), async (t) => {
    const s = await ready(t);
    for (const idText of ['null', '1.5', 'true', '{"a":1}', '[1]']) {
      const r = await badLine(s, `{"jsonrpc":"2.0","id":${idText},"method":"ping"}`);
      assert.equal(r.json.error.code, -32600, `id ${idText}: ${r.raw}`);
      assert.equal(r.json.id, null);
    }
    await s.close();
  });

  test('notifications are never answered, even unknown or malformed ones', opts(), async (t) => {
    const s = await ready(t);
    const before = s.messages.length;
    await s.notify('notifications/initialized');
    await s.notify('notifications/something-unknown', { x: 1 });
    await s.notify('notifications/cancelled', { requestId: 'nobody' });
    await s.notify('tools/list'); // a request method sent as a notification
    await s.assertServing('after-notes');
    assert.equal(s.messages.length, before + 1, `replies: ${s.messages.slice(before).map((m) => m.raw).join('\n')}`);
    assert.equal(s.messages.at(-1).json.id, 'after-notes');
    await s.close();
  });

  test('a duplicate id while the first request is in flight is refused (-32600)', opts(), async (t) => {
    const s = await ready(t);
    await s.send({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 400 } } });
    await s.send({ jsonrpc: '2.0', id: 42, method: 'ping' });
    const first = await s.reply(42);
    assert.equal(first.json.error?.code, -32600, first.raw);
    const second = await s.reply(42);
    assert.ok(second.json.result?.structuredContent, second.raw);
    await s.close();
  });

  test('a string id and an integer id that look alike are different requests', opts(), async (t) => {
    const s = await ready(t);
    await s.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 200 } } });
    const r = await s.request('5', 'ping');
    assert.deepEqual(r.result, {});
    const slow = await s.reply(5);
    assert.ok(slow.json.result);
    await s.close();
  });
});
