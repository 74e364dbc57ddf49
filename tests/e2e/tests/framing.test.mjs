// stdio framing: newline-delimited JSON by default, Content-Length framing
// when the client's first byte is 'C'; replies use the client's framing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { RawServer, opts, sleep } from '../lib/server.mjs';

const init = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'framing', version: '1' } },
});
const frame = (msg, headers = '') => {
  const body = Buffer.from(typeof msg === 'string' ? msg : JSON.stringify(msg), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n${headers}\r\n`), body]);
};

/** Writes buf one byte per write, yielding between writes so they arrive apart. */
async function writeByteByByte(s, buf) {
  for (let i = 0; i < buf.length; i++) {
    await s.write(buf.subarray(i, i + 1));
    if (i % 4 === 0) await sleep(1);
  }
}

describe('Content-Length framing', () => {
  test('a first byte of "C" switches the connection to Content-Length framing, replies included', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.write(frame(init()));
    const r = await s.reply(1);
    assert.equal(r.framing, 'content-length');
    assert.match(r.header, /^Content-Length: \d+$/);
    assert.equal(Number(r.header.split(': ')[1]), Buffer.byteLength(r.raw, 'utf8'), 'the length counts bytes');
    assert.equal(r.json.result.protocolVersion, '2025-11-25');
    await s.write(frame({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await s.write(frame({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixture_echo', arguments: { text: 'héllo ✓' } } }));
    const echo = await s.reply(2);
    assert.equal(echo.framing, 'content-length');
    assert.equal(echo.json.result.content[0].text, 'héllo ✓');
    assert.equal(Number(echo.header.split(': ')[1]), Buffer.byteLength(echo.raw, 'utf8'));
    await s.close();
  });

  test('a message split across writes byte by byte still works', opts(), async (t) => {
    const s = RawServer.start(t);
    await writeByteByByte(s, frame(init()));
    const r = await s.reply(1);
    assert.equal(r.json.result.protocolVersion, '2025-11-25');
    await writeByteByByte(s, frame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    assert.deepEqual((await s.reply(2)).json.result, {});
    await s.close();
  });

  test('two messages in one write are both answered', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.write(Buffer.concat([frame(init()), frame({ jsonrpc: '2.0', id: 2, method: 'tools/list' })]));
    assert.ok((await s.reply(1)).json.result);
    const list = await s.reply(2);
    assert.ok(list.json.result.tools.length > 0);
    assert.equal(list.framing, 'content-length');
    await s.close();
  });

  test('other headers are ignored and the header name is case-insensitive after the first message', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.write(frame(init(), 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n'));
    assert.ok((await s.reply(1)).json.result);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await s.write(`content-length: ${body.length}\r\n\r\n${body}`);
    assert.deepEqual((await s.reply(2)).json.result, {});
    await s.close();
  });

  test('a malformed header block is reported and the next frame still works', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.write(frame(init()));
    await s.reply(1);
    await s.write('Content-Length: banana\r\n\r\n');
    const err = await s.take((m) => m.json?.error, { what: 'the header error' });
    assert.equal(err.json.error.code, -32700, err.raw);
    assert.equal(err.framing, 'content-length');
    await s.write(frame({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    assert.deepEqual((await s.reply(3)).json.result, {});
    await s.close();
  });

  test('an oversized frame is refused (-32600) and the next frame works', opts(), async (t) => {
    const s = RawServer.start(t, { args: ['--max-message', '64K'] });
    await s.write(frame(init()));
    await s.reply(1);
    const big = frame({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { pad: 'p'.repeat(100 * 1024) } });
    // In pieces, so the server has to skip a body that arrives over time.
    for (let i = 0; i < big.length; i += 30000) await s.write(big.subarray(i, i + 30000));
    const err = await s.take((m) => m.json?.error, { what: 'the size error' });
    assert.equal(err.json.error.code, -32600, err.raw);
    assert.match(err.json.error.message, /65536/);
    await s.write(frame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    assert.deepEqual((await s.reply(2)).json.result, {});
    assert.equal(s.messages.filter((m) => m.raw.includes('"big"')).length, 0);
    await s.close();
  });
});

describe('newline-delimited JSON framing', () => {
  test('replies are single NDJSON lines', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const r = await s.request(2, 'tools/list');
    assert.ok(r.result.tools.length > 0);
    for (const m of s.messages) assert.equal(m.framing, 'ndjson');
    await s.close();
  });

  test('a message split across writes byte by byte still works', opts(), async (t) => {
    const s = RawServer.start(t);
    await writeByteByByte(s, Buffer.from(JSON.stringify(init()) + '\n'));
    assert.equal((await s.reply(1)).json.result.protocolVersion, '2025-11-25');
    await s.close();
  });

  test('two messages in one write are both answered', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.write(JSON.stringify(init()) + '\n' + JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) + '\n');
    assert.ok((await s.reply(1)).json.result);
    assert.ok((await s.reply(2)).json.result.tools.length > 0);
    await s.close();
  });

  test('a last line without a newline is still handled at EOF', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.write(JSON.stringify(init()));
    s.child.stdin.end();
    await s.assertExitedCleanly();
    assert.equal((await s.reply(1, { timeoutMs: 100 })).json.result.protocolVersion, '2025-11-25');
  });
});
