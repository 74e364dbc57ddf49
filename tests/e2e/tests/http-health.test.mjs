// GET /healthz: what probes and container health checks ask. It answers
// without a token and under any Host (a probe names the pod's address), says
// nothing but "ok", and opens no other door.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { INIT, post, startHttp } from '../lib/http.mjs';

const TOKEN = 'health-token-0123456789abcdef';

// node's fetch cannot set Host; a probe from another machine does.
function get(port, path, { host, method = 'GET' } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('/healthz answers ok without a token, under a foreign Host; everything else still asks', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-health-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const srv = await startHttp(t, { args: ['--token-file', join(dir, 'token')] });

  const plain = await get(srv.port, '/healthz');
  assert.equal(plain.status, 200);
  assert.match(plain.headers['content-type'], /application\/json/);
  assert.deepEqual(JSON.parse(plain.body), { status: 'ok' });
  assert.equal(plain.headers['cache-control'], 'no-store');

  const probe = await get(srv.port, '/healthz', { host: '10.1.2.3:7800' });
  assert.equal(probe.status, 200, 'a kubelet probe names the pod address as Host');
  assert.deepEqual(JSON.parse(probe.body), { status: 'ok' });
  assert.doesNotMatch(probe.body, /glovebox|version|session/i, 'it reveals nothing');

  const wrongMethod = await get(srv.port, '/healthz', { method: 'DELETE' });
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.allow, 'GET');

  // The same foreign Host anywhere else is refused, and /mcp still needs the token.
  const elsewhere = await get(srv.port, '/mcp', { host: '10.1.2.3:7800' });
  assert.equal(elsewhere.status, 403);
  assert.equal((await post(srv.url, INIT)).status, 401);
  // Near-misses are not the health path.
  assert.equal((await get(srv.port, '/healthz/')).status, 401);
  assert.equal((await get(srv.port, '/healthzz')).status, 401);
  await srv.stop();
});
