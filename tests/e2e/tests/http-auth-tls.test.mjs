// Bearer tokens, refusing to expose the server without one, and HTTPS.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectHttpClient, INIT, JSON_AND_SSE, post, startHttp } from '../lib/http.mjs';
import { binary, serverEnv, textOf } from '../lib/server.mjs';

const TOKEN = 'test-token-0123456789abcdef';

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-http-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('with --token-file every request needs the bearer token', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const srv = await startHttp(t, { args: ['--token-file', join(dir, 'token')] });
  assert.match(srv.stderr(), /bearer token required/);
  const none = await post(srv.url, INIT);
  assert.equal(none.status, 401);
  assert.match(none.headers.get('www-authenticate'), /^Bearer/);
  assert.match(none.json.error.message, /Authorization: Bearer/);
  const wrong = await post(srv.url, INIT, { authorization: `Bearer ${TOKEN.slice(0, -1)}x` });
  assert.equal(wrong.status, 401);
  assert.match(wrong.json.error.message, /not valid/);
  const inQuery = await post(`${srv.url}?access_token=${TOKEN}`, INIT, { authorization: `Bearer ${TOKEN}` });
  assert.equal(inQuery.status, 400);
  assert.match(inQuery.json.error.message, /tokens in the URL are refused/);
  const ok = await post(srv.url, INIT, { authorization: `Bearer ${TOKEN}` });
  assert.equal(ok.status, 200);
  // The SDK client with the header set works end to end.
  const { client } = await connectHttpClient(srv.url, { headers: { authorization: `Bearer ${TOKEN}` } });
  const r = await client.callTool({ name: 'status', arguments: {} });
  assert.match(textOf(r), /glovebox/);
  await client.close();
  await srv.stop();
});

test('GLOVEBOX_TOKEN works like --token-file; short tokens are refused', async (t) => {
  const srv = await startHttp(t, { env: { GLOVEBOX_TOKEN: TOKEN } });
  assert.equal((await post(srv.url, INIT)).status, 401);
  assert.equal((await post(srv.url, INIT, { authorization: `Bearer ${TOKEN}` })).status, 200);
  await srv.stop();
  const short = spawnSync(binary(), ['serve', '--http', '127.0.0.1:1'], { env: serverEnv({ GLOVEBOX_TOKEN: 'abc' }), encoding: 'utf8', timeout: 10000 });
  assert.equal(short.status, 2);
  assert.match(short.stderr, /at least 16 characters/);
});

test('listening beyond loopback without a token refuses to start, and says why', () => {
  const r = spawnSync(binary(), ['serve', '--http', '0.0.0.0:7899'], { env: serverEnv({ GLOVEBOX_TOKEN: '' }), encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0 without a token/);
  assert.match(r.stderr, /--token-file/);
});

test('bad --http values are usage errors naming the problem', () => {
  for (const [spec, re] of [
    ['99999', /PORT 0\.\.65535/],
    ['example.com:80', /expected an IP address/],
    ['[::1', /\[ADDRESS\]:PORT/],
  ]) {
    const r = spawnSync(binary(), ['serve', '--http', spec], { env: serverEnv(), encoding: 'utf8', timeout: 10000 });
    assert.equal(r.status, 2, `${spec}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});

test('HTTPS with --tls-cert and --tls-key', async (t) => {
  const dir = tempDir(t);
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const srv = await startHttp(t, { args: ['--tls-cert', cert, '--tls-key', key] });
  assert.match(srv.stderr(), /serving MCP on https:\/\//);
  const { readFileSync } = await import('node:fs');
  const ca = readFileSync(cert);
  const res = await new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: srv.port, path: '/mcp', method: 'POST', ca, headers: { 'content-type': 'application/json', accept: JSON_AND_SSE } },
      (r) => {
        let body = '';
        r.on('data', (d) => (body += d));
        r.on('end', () => resolve({ status: r.statusCode, headers: r.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(INIT));
  });
  assert.equal(res.status, 200);
  assert.ok(res.headers['mcp-session-id']);
  assert.equal(JSON.parse(res.body).result.serverInfo.name, 'glovebox');
  await srv.stop();
});

test('--tls-cert without --tls-key is refused', () => {
  const r = spawnSync(binary(), ['serve', '--http', '127.0.0.1:7898', '--tls-cert', '/nonexistent'], { env: serverEnv(), encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--tls-cert and --tls-key go together/);
});
