// One connection, many requests: answers a tool gives at once are written
// from the callback that read the request (no round through the loop), and
// the connection then reads the next request, also when answers given at
// once and answers given later take turns on it.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';

import { JSON_AND_SSE, openSession, startHttp } from '../lib/http.mjs';
import { deadline, ms } from '../lib/server.mjs';

function request(port, sid, body) {
  const json = JSON.stringify(body);
  return (
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    `Accept: ${JSON_AND_SSE}\r\nMcp-Session-Id: ${sid}\r\nMcp-Protocol-Version: 2025-11-25\r\n` +
    `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`
  );
}

const call = (id, name, args = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** Reads n HTTP responses with Content-Length bodies from socket. */
function readResponses(socket, n) {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const out = [];
    const onData = (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString();
        const m = /content-length:\s*(\d+)/i.exec(head);
        if (!m) return reject(new Error(`a response without Content-Length: ${head}`));
        const len = Number(m[1]);
        if (buf.length < end + 4 + len) return;
        out.push({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), head, body: JSON.parse(buf.subarray(end + 4, end + 4 + len).toString()) });
        buf = buf.subarray(end + 4 + len);
        if (out.length === n) {
          socket.off('data', onData);
          return resolve(out);
        }
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`the connection closed after ${out.length} of ${n} responses`)));
  });
}

test('one connection carries answers given at once and answers given later, in turn', async (t) => {
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const socket = connect(srv.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  t.after(() => socket.destroy());
  const calls = [call(1, 'session_list'), call(2, 'fixture_sleep', { ms: 200 }), call(3, 'status'), call(4, 'fixture_sleep', { ms: 50 }), call(5, 'session_list')];
  for (const c of calls) {
    const answer = readResponses(socket, 1);
    socket.write(request(srv.port, sid, c));
    const [r] = await deadline(answer, ms(10000), `the answer to ${c.params.name}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.id, c.id);
    assert.ok(!r.body.result.isError, JSON.stringify(r.body));
    assert.ok(!/connection: close/i.test(r.head), 'the connection is kept');
  }
  assert.equal(calls.length, 5);
  await srv.stop();
});

test('a keep-alive connection carries many calls, each answered', async (t) => {
  const srv = await startHttp(t);
  const sid = await openSession(srv.url);
  const socket = connect(srv.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  t.after(() => socket.destroy());
  for (let id = 1; id <= 200; id++) {
    const answer = readResponses(socket, 1);
    socket.write(request(srv.port, sid, call(id, id % 10 ? 'session_list' : 'status')));
    const [r] = await deadline(answer, ms(10000), `answer ${id}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.id, id);
    assert.ok(!r.body.result.isError);
  }
  await srv.stop();
});
