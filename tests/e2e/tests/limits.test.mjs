// The resource budget a client meets (docs/limits.md): bounds that keep one
// client from growing glovebox without limit answer with a clear error, and
// the server keeps serving.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RawServer, ms } from '../lib/server.mjs';

test('a connection may have 256 requests in flight; more are refused with a clear error', { timeout: ms(60000) }, async (t) => {
  const srv = RawServer.start(t);
  await srv.initialize();
  const lines = [];
  for (let i = 1; i <= 300; i++) {
    lines.push(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 600000 } } }));
  }
  await srv.write(lines.join('\n') + '\n');
  // The 44 over the bound are answered at once; the first 256 keep waiting.
  for (let i = 257; i <= 300; i++) {
    const r = (await srv.reply(i)).json;
    assert.equal(r.error?.code, -32004, JSON.stringify(r));
    assert.match(r.error.message, /Too many requests in flight: this connection already waits for 256 answers/);
  }
  await srv.assertServing();
  // Cancelling one makes room for one more.
  await srv.notify('notifications/cancelled', { requestId: 1, reason: 'test' });
  await srv.send({ jsonrpc: '2.0', id: 'after', method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 1 } } });
  const after = (await srv.reply('after')).json;
  assert.equal(after.result?.structuredContent?.steps !== undefined, true, JSON.stringify(after));
  assert.equal(srv.untaken().filter((m) => m.json?.id !== undefined && m.json.id <= 256).length, 0);
  await srv.close({ timeoutMs: ms(15000) });
});
