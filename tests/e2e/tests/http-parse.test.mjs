// What the plain-HTTP reader accepts and what it refuses, seen from a raw
// socket: requests glued together in one write are each answered in turn;
// a chunked body, an oversized head, too many headers and a malformed
// request line each get a clear JSON-RPC error and the connection closes;
// the server serves on afterwards.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';

import { JSON_AND_SSE, openSession, startHttp } from '../lib/http.mjs';
import { deadline, ms } from '../lib/server.mjs';

/** Sends raw bytes, reads until the server closes (or `until` matches). */
function exchange(port, bytes, until) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
      if (until && until.test(text)) {
        socket.destroy();
        resolve({ text, closed: false });
      }
    });
    socket.on('close', () => resolve({ text, closed: true }));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

const post = (port, sid, body, extra = '') => {
  const json = JSON.stringify(body);
  return (
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    `Accept: ${JSON_AND_SSE}\r\nMcp-Session-Id: ${sid}\r\nMcp-Protocol-Version: 2025-11-25\r\n${extra}` +
    `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`
  );
};
const ping = (id) => ({ jsonrpc: '2.0', id, method: 'ping' });

test('three requests in one write are answered in order on the one connection', async (t) => {
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const bytes = post(srv.port, sid, ping(1)) + post(srv.port, sid, ping(2)) + post(srv.port, sid, ping(3));
  const r = await deadline(exchange(srv.port, bytes, /"id":3/), ms(10000), 'three answers');
  const ids = [...r.text.matchAll(/"id":(\d)/g)].map((m) => Number(m[1]));
  assert.deepEqual(ids, [1, 2, 3]);
  assert.equal((r.text.match(/HTTP\/1\.1 200 OK/g) ?? []).length, 3);
  await srv.stop();
});

test('a client that asks "Expect: 100-continue" is told to go on, then answered', async (t) => {
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const full = post(srv.port, sid, ping(5), 'Expect: 100-continue\r\n');
  const split = full.indexOf('\r\n\r\n') + 4;
  const socket = connect(srv.port, '127.0.0.1');
  t.after(() => socket.destroy());
  let text = '';
  const seen = (re) =>
    new Promise((resolve) => {
      const check = () => (re.test(text) ? resolve() : null);
      socket.on('data', (d) => {
        text += d.toString();
        check();
      });
      check();
    });
  socket.write(full.slice(0, split));
  await deadline(seen(/^HTTP\/1\.1 100 Continue\r\n\r\n/), ms(5000), '100 Continue before the body is sent');
  socket.write(full.slice(split));
  await deadline(seen(/"id":5/), ms(5000), 'the answer');
  assert.match(text, /HTTP\/1\.1 200 OK/);
  await srv.stop();
});

test('bodies that are not sized, heads too large and malformed requests are refused, and the server serves on', async (t) => {
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const cases = [
    {
      name: 'chunked body',
      bytes:
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Type: application/json\r\n` +
        `Accept: ${JSON_AND_SSE}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
      status: 411,
      message: /Content-Length/,
    },
    {
      name: 'head over 8 KiB',
      bytes: `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nX-Filler: ${'a'.repeat(9000)}\r\n\r\n`,
      status: 431,
      message: /8192 bytes/,
    },
    {
      name: 'more than 64 headers',
      bytes: `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\n${'X-A: b\r\n'.repeat(70)}\r\n`,
      status: 431,
      message: /64 headers/,
    },
    { name: 'not HTTP', bytes: 'HELLO THERE\r\n\r\n', status: 400, message: /METHOD \/path HTTP\/1\.1/ },
    {
      name: 'Content-Length not a number',
      bytes: `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Length: 12abc\r\n\r\n`,
      status: 400,
      message: /Content-Length/,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = await deadline(exchange(srv.port, c.bytes), ms(10000), `the answer to ${c.name}`);
      assert.match(r.text, new RegExp(`^HTTP/1\\.1 ${c.status} `), r.text.slice(0, 200));
      assert.match(r.text, /connection: close/i);
      const body = JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4));
      assert.match(body.error.message, c.message);
      assert.ok(r.closed, 'the connection is closed');
    });
  }
  const r = await deadline(exchange(srv.port, post(srv.port, sid, ping(9)), /"id":9/), ms(10000), 'a ping after all that');
  assert.match(r.text, /^HTTP\/1\.1 200 OK/);
  await srv.stop();
});
