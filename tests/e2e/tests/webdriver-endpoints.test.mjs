// WebDriver endpoints glovebox does not own, played by small servers in the
// test: a W3C hub with basic auth (credentials used, never shown: results,
// session_list, errors, the audit log and the server's log), capabilities
// passed through, attach, DELETE at session_stop and at exit; an unreachable
// endpoint and a hung one give clear errors within the time limit while the
// server keeps serving; the policy's hosts rules apply.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { execFileSync } from 'node:child_process';

import { connectClient, needs, sleep } from '../lib/server.mjs';
import { ms, startServer, topts } from '../lib/terminal.mjs';

const PASSWORD = 's3cr3t-Pa55';
const wdOpts = (extra = {}) => needs('webdriver', topts(extra));

/** A fake W3C hub: basic auth alice:PASSWORD, a request log; with idleMs,
 * a session without a request for that long is ended, as farms do. */
async function startHub(t, { idleMs } = {}) {
  const log = [];
  const sessions = new Set(['existing-1']);
  const lastSeen = new Map();
  let next = 1;
  const hub = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      log.push({ method: req.method, url: req.url, auth: req.headers.authorization, body: body ? JSON.parse(body) : null });
      const reply = (status, value) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ value }));
      };
      const want = 'Basic ' + Buffer.from(`alice:${PASSWORD}`).toString('base64');
      if (req.headers.authorization !== want)
        return reply(401, { error: 'session not created', message: 'Authorization required' });
      const m = req.url.match(/^\/wd\/hub\/session(?:\/([^/]+)(\/.*)?)?$/);
      if (!m) return reply(404, { error: 'unknown command', message: `no route ${req.url}` });
      const [, id, rest] = m;
      if (!id && req.method === 'POST') {
        const sid = `fake-${next++}`;
        sessions.add(sid);
        lastSeen.set(sid, Date.now());
        return reply(200, { sessionId: sid, capabilities: { browserName: 'fakefox', browserVersion: '1.0' } });
      }
      if (idleMs && sessions.has(id) && Date.now() - (lastSeen.get(id) ?? Date.now()) > idleMs) {
        sessions.delete(id);
        return reply(404, { error: 'invalid session id', message: `session ${id} timed out after ${idleMs} ms idle\nat the farm` });
      }
      lastSeen.set(id, Date.now());
      if (!sessions.has(id)) return reply(404, { error: 'invalid session id', message: `no session ${id}` });
      if (req.method === 'DELETE' && !rest) {
        sessions.delete(id);
        return reply(200, null);
      }
      if (rest === '/timeouts') return reply(200, { implicit: 0, pageLoad: 300000, script: 30000 });
      if (rest === '/url' && req.method === 'POST') return reply(200, null);
      if (rest === '/title') return reply(200, 'Fake title');
      if (rest === '/execute/sync') return reply(200, 'text of the fake page');
      return reply(404, { error: 'unknown command', message: `no route ${rest}` });
    });
  });
  await new Promise((r) => hub.listen(0, '127.0.0.1', r));
  t.after(() => hub.close());
  return { port: hub.address().port, log, sessions };
}

/** Everything the server wrote to disk and stderr, as one string. */
function everything(srv) {
  let all = srv.stderr();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else all += readFileSync(p, 'latin1');
    }
  };
  walk(srv.dataDir);
  return all;
}

test('a hub with basic auth: credentials used but never shown; capabilities passed; DELETE on stop; attach', wdOpts(), async (t) => {
  const hub = await startHub(t);
  const srv = await startServer(t, { env: { GLOVEBOX_LOG: 'debug' } });
  const url = `http://alice:${PASSWORD}@127.0.0.1:${hub.port}/wd/hub/`;
  const shown = `http://127.0.0.1:${hub.port}/wd/hub`;

  const c = await srv.ok('webdriver_connect', { url, capabilities: { browserName: 'fakefox', 'bstack:options': { os: 'Windows' } } });
  assert.equal(c.sc.url, shown);
  assert.equal(c.sc.browser, 'fakefox 1.0');
  assert.equal(c.sc.remote_session, 'fake-1');
  assert.equal(c.sc.owned, false);
  // libcurl arrives with the first webdriver session, in the module.
  const maps = readFileSync(`/proc/${srv.pid}/maps`, 'utf8');
  assert.match(maps, /glovebox-webdriver\.so/);
  assert.match(maps, /libcurl/);
  const created = hub.log.find((r) => r.method === 'POST' && r.url === '/wd/hub/session');
  assert.deepEqual(created.body.capabilities.alwaysMatch, { browserName: 'fakefox', 'bstack:options': { os: 'Windows' } });

  const page = await srv.ok('open_url', { url: `https://bob:${PASSWORD}@example.test/x` });
  assert.equal(page.sc.url, 'https://example.test/x');
  assert.equal(page.sc.title, 'Fake title');
  assert.equal((await srv.ok('read_text', {})).sc.text, 'text of the fake page');
  // What the fake cannot do comes back as the endpoint's error, by code.
  const shot = await srv.call('press_key', { key: 'a' });
  assert.equal(shot.structuredContent.error.code, 'not_supported');
  assert.match(shot.structuredContent.error.message, /unknown command/);

  const listed = JSON.stringify((await srv.ok('session_list', {})).sc);
  assert.ok(listed.includes(shown), listed);

  await srv.ok('session_stop', { session: c.sc.id });
  assert.ok(hub.log.some((r) => r.method === 'DELETE' && r.url === '/wd/hub/session/fake-1'), 'DELETE sent');
  assert.equal(hub.sessions.has('fake-1'), false);

  // Wrong credentials: a clear error, still without them.
  const wrong = await srv.call('webdriver_connect', { url: `http://alice:wrong-${PASSWORD}@127.0.0.1:${hub.port}/wd/hub` });
  assert.equal(wrong.isError, true);
  assert.match(wrong.structuredContent.error.message, /Authorization required/);
  assert.ok(!wrong.structuredContent.error.message.includes(PASSWORD));

  // Attach: an existing remote session, left running at stop.
  const a = await srv.ok('webdriver_connect', { url, attach: 'existing-1' });
  assert.equal(a.sc.remote_session, 'existing-1');
  await srv.ok('session_stop', { session: a.sc.id });
  assert.equal(hub.sessions.has('existing-1'), true, 'an attached session is left running');
  const none = await srv.call('webdriver_connect', { url, attach: 'nope' });
  assert.equal(none.structuredContent.error.code, 'not_found');
  assert.match(none.structuredContent.error.message, /"nope"/);

  // A session still open at exit is deleted on the way out.
  const last = await srv.ok('webdriver_connect', { url });
  await srv.close();
  assert.equal(hub.sessions.has(last.sc.remote_session), false, 'deleted at exit');

  assert.ok(!everything(srv).includes(PASSWORD), 'the password appears nowhere glovebox wrote');
  assert.ok(!everything(srv).includes(Buffer.from(`alice:${PASSWORD}`).toString('base64')));
});

test('bad endpoints: a wrong URL, an unreachable one, a hung one — clear errors in time, the server keeps serving', wdOpts(), async (t) => {
  const srv = await startServer(t);
  for (const url of ['ftp://127.0.0.1/', 'not a url', 'http:///nohost']) {
    const r = await srv.call('webdriver_connect', { url });
    assert.equal(r.structuredContent.error.code, 'invalid_argument', url);
    assert.match(r.structuredContent.error.message, /argument "url"/, url);
  }
  const attachAlone = await srv.call('webdriver_connect', { attach: 'x' });
  assert.match(attachAlone.structuredContent.error.message, /"attach" needs "url"/);

  // Nothing listens on a port just closed.
  const probe = createTcpServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const closedPort = probe.address().port;
  await new Promise((r) => probe.close(r));
  const refused = await srv.call('webdriver_connect', { url: `http://u:${PASSWORD}@127.0.0.1:${closedPort}` });
  assert.equal(refused.structuredContent.error.code, 'device_unavailable');
  assert.match(refused.structuredContent.error.message, new RegExp(`cannot reach the WebDriver endpoint http://127\\.0\\.0\\.1:${closedPort}`));
  assert.ok(!refused.structuredContent.error.message.includes(PASSWORD));

  // A hub that accepts and never answers.
  const sockets = [];
  const hung = createTcpServer((s) => sockets.push(s));
  await new Promise((r) => hung.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    hung.close();
  });
  const started = Date.now();
  const slow = srv.call('webdriver_connect', { url: `http://127.0.0.1:${hung.address().port}`, timeout_ms: 700 });
  // Meanwhile the server answers others.
  assert.equal((await srv.ok('session_list', {})).isError, undefined);
  const r = await slow;
  assert.equal(r.structuredContent.error.code, 'timeout');
  assert.match(r.structuredContent.error.message, /did not answer within 700 ms/);
  assert.ok(Date.now() - started < ms(10000));
  await srv.ok('status', {});
  await srv.close();
});

test('the policy: hosts rules apply to webdriver_connect and open_url', wdOpts(), async (t) => {
  const hub = await startHub(t);
  const dir = mkdtempSync(join(tmpdir(), 'gb-wd-policy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({
    allow: ['webdriver_connect', 'open_url', 'session_stop'],
    rules: { webdriver_connect: { hosts: ['127.0.0.1'] }, open_url: { hosts: ['*.allowed.test'] } },
  }));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') } });
  const call = (name, args) => srv.client.callTool({ name, arguments: args });
  const denied = await call('webdriver_connect', { url: `http://alice:${PASSWORD}@localhost:${hub.port}/wd/hub` });
  assert.equal(denied.isError, true);
  assert.equal(denied.structuredContent.error.code, 'denied');
  assert.match(denied.content[0].text, /localhost/);
  assert.ok(!JSON.stringify(denied).includes(PASSWORD));
  const ok = await call('webdriver_connect', { url: `http://alice:${PASSWORD}@127.0.0.1:${hub.port}/wd/hub` });
  assert.ok(!ok.isError, JSON.stringify(ok));
  const page = await call('open_url', { url: 'https://www.allowed.test/' });
  assert.ok(!page.isError, JSON.stringify(page));
  const other = await call('open_url', { url: 'https://evil.test/' });
  assert.equal(other.structuredContent.error.code, 'denied');
  assert.match(other.content[0].text, /evil\.test/);
  await srv.close();
});

test('a farm that ends idle sessions: keepalive_s keeps one alive; without it the session ends as session_expired, with no DELETE', wdOpts({ timeout: ms(60000) }), async (t) => {
  const hub = await startHub(t, { idleMs: 1500 });
  const srv = await startServer(t);
  const url = `http://alice:${PASSWORD}@127.0.0.1:${hub.port}/wd/hub`;
  const kept = await srv.ok('webdriver_connect', { url, keepalive_s: 1 });
  const left = await srv.ok('webdriver_connect', { url, keepalive_s: 0 });
  await new Promise((r) => setTimeout(r, 3500));
  const pings = hub.log.filter((e) => e.method === 'GET' && e.url === `/wd/hub/session/${kept.sc.remote_session}/timeouts`);
  assert.ok(pings.length >= 2, `keep-alive requests: ${pings.length}`);
  assert.equal((await srv.ok('read_text', { session: kept.sc.id })).sc.text, 'text of the fake page');
  assert.ok(!hub.log.some((e) => e.url.startsWith(`/wd/hub/session/${left.sc.remote_session}/timeouts`)), 'keepalive_s 0 sends none');

  const gone = await srv.call('read_text', { session: left.sc.id });
  assert.equal(gone.structuredContent.error.code, 'session_expired');
  const ended = (await srv.ok('session_list', { include_ended: true })).sc.sessions.find((s) => s.id === left.sc.id);
  assert.equal(ended.state, 'ended');
  assert.match(ended.end_reason, /the endpoint ended remote session fake-\d+ \(session fake-\d+ timed out after 1500 ms idle\)/);
  const later = await srv.call('read_text', { session: left.sc.id });
  assert.equal(later.structuredContent.error.code, 'session_expired');
  assert.ok(!hub.log.some((e) => e.method === 'DELETE' && e.url.endsWith(left.sc.remote_session)), 'nothing to DELETE');

  // An endpoint without chromedriver's log says so.
  const logs = await srv.call('browser_logs', { session: kept.sc.id });
  assert.equal(logs.structuredContent.error.code, 'not_supported');
  assert.match(logs.structuredContent.error.message, /keeps none/);

  await srv.ok('session_stop', { session: kept.sc.id });
  assert.ok(hub.log.some((e) => e.method === 'DELETE' && e.url.endsWith(kept.sc.remote_session)));
  await srv.close();
});

test('credentials from an environment variable; a farm session left by a killed server is deleted at the next start, an attached one is not', wdOpts({ timeout: ms(60000) }), async (t) => {
  const hub = await startHub(t);
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-wd-orphans-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { HUB_CREDS: `alice:${PASSWORD}`, GLOVEBOX_ALLOW_ALL: '1' };
  const first = await connectClient(t, { args: ['--data-dir', dir], env });
  const call = async (h, name, args) => {
    const r = await h.client.callTool({ name, arguments: args });
    assert.ok(!r.isError, `${name}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  };
  const url = `http://127.0.0.1:${hub.port}/wd/hub`;
  const made = await call(first, 'webdriver_connect', { url, credentials_env: 'HUB_CREDS' });
  await call(first, 'webdriver_connect', { url, credentials_env: 'HUB_CREDS', attach: 'existing-1' });
  const want = 'Basic ' + Buffer.from(`alice:${PASSWORD}`).toString('base64');
  assert.ok(hub.log.some((e) => e.method === 'POST' && e.auth === want), 'the credentials from HUB_CREDS were used');
  assert.doesNotMatch(JSON.stringify(made), new RegExp(PASSWORD));
  // Its row on disk, then a death without a chance to clean up.
  const db = join(dir, 'sessions.db');
  for (const until = Date.now() + ms(10000); ; await sleep(50)) {
    let out = '';
    try {
      out = execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, `SELECT remote FROM sessions WHERE remote = '${made.remote_session}'`], { encoding: 'utf8' });
    } catch {}
    if (out.trim() === made.remote_session) break;
    assert.ok(Date.now() < until, 'the farm session reaches the session table');
  }
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  assert.ok(hub.sessions.has(made.remote_session), 'still running on the farm');

  const second = await connectClient(t, { args: ['--data-dir', dir], env });
  for (const until = Date.now() + ms(10000); hub.sessions.has(made.remote_session); await sleep(50))
    assert.ok(Date.now() < until, 'the next server deletes the orphan');
  const del = hub.log.find((e) => e.method === 'DELETE' && e.url === `/wd/hub/session/${made.remote_session}`);
  assert.equal(del.auth, want, 'with the credentials of the variable');
  assert.ok(hub.sessions.has('existing-1'), 'an attached session is never deleted');
  assert.match(second.stderr(), /deleted remote session fake-\d+ on http:\/\/127\.0\.0\.1:\d+\/wd\/hub/);
  assert.doesNotMatch(second.stderr(), new RegExp(PASSWORD));

  // Bad variables are clear errors.
  const unset = await second.client.callTool({ name: 'webdriver_connect', arguments: { url, credentials_env: 'NO_SUCH_VAR' } });
  assert.equal(unset.structuredContent.error.code, 'invalid_argument');
  assert.match(unset.structuredContent.error.message, /NO_SUCH_VAR is not set/);
  const both = await second.client.callTool({ name: 'webdriver_connect', arguments: { url: `http://a:b@127.0.0.1:${hub.port}/wd/hub`, credentials_env: 'HUB_CREDS' } });
  assert.match(both.structuredContent.error.message, /credentials already/);
  await second.close();
});

/** A fake AWS Device Farm API: checks every call's Signature Version 4
 * against the secret, makes a remote access session that runs on the second
 * look, and records the calls. */
async function startDeviceFarm(t, { secret, endpoint }) {
  const { createHash, createHmac } = await import('node:crypto');
  const calls = [];
  const sha = (s) => createHash('sha256').update(s).digest('hex');
  const hmac = (k, s) => createHmac('sha256', k).update(s).digest();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const auth = req.headers.authorization ?? '';
      const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
      let valid = false;
      if (m) {
        const [, , date, region, service, signed, signature] = m;
        const headers = signed.split(';').map((h) => `${h}:${String(req.headers[h]).trim()}\n`).join('');
        const canonical = ['POST', req.url.split('?')[0], '', headers, signed, sha(body)].join('\n');
        const scope = `${date}/${region}/${service}/aws4_request`;
        const toSign = ['AWS4-HMAC-SHA256', req.headers['x-amz-date'], scope, sha(canonical)].join('\n');
        const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
        valid = createHmac('sha256', key).update(toSign).digest('hex') === signature;
      }
      const target = req.headers['x-amz-target'];
      calls.push({ target, valid, key: m?.[1], region: m?.[3], service: m?.[4], token: req.headers['x-amz-security-token'], body: JSON.parse(body || '{}') });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (!valid) {
        res.statusCode = 403;
        return res.end(JSON.stringify({ __type: 'com.amazon.coral.service#InvalidSignatureException', message: 'The request signature we calculated does not match' }));
      }
      const arn = 'arn:aws:devicefarm:us-west-2:123456789012:session:p/r/00001';
      const looks = calls.filter((c) => c.target.endsWith('GetRemoteAccessSession')).length;
      if (target.endsWith('CreateRemoteAccessSession')) return res.end(JSON.stringify({ remoteAccessSession: { arn, status: 'PENDING' } }));
      if (target.endsWith('GetRemoteAccessSession'))
        return res.end(JSON.stringify({ remoteAccessSession: looks < 2 ? { arn, status: 'PREPARING' } : { arn, status: 'RUNNING', remoteDriverEndpoint: endpoint } }));
      if (target.endsWith('StopRemoteAccessSession')) return res.end(JSON.stringify({ remoteAccessSession: { arn, status: 'STOPPING' } }));
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: 'UnknownOperationException' }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${server.address().port}/`, calls };
}

test('AWS Device Farm: a signed remote access session, waited for with progress, its Appium endpoint used, stopped with the session', wdOpts({ timeout: ms(60000) }), async (t) => {
  const hub = await startHub(t);
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  const farm = await startDeviceFarm(t, { secret, endpoint: `http://alice:${PASSWORD}@127.0.0.1:${hub.port}/wd/hub` });
  const srv = await startServer(t, { env: { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: secret, AWS_SESSION_TOKEN: 'session-token-1', AWS_ENDPOINT_URL_DEVICE_FARM: farm.url } });
  const progress = [];
  const r = await srv.client.callTool({ name: 'webdriver_connect', arguments: { provider: 'aws-device-farm', project_arn: 'arn:aws:devicefarm:us-west-2:123456789012:project:p', device_arn: 'arn:aws:devicefarm:us-west-2::device:D', name: 'pixel' } }, undefined, { onprogress: (p) => progress.push(p.message), timeout: ms(30000) });
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  assert.match(r.structuredContent.remote_session, /^fake-\d+$/);
  assert.doesNotMatch(JSON.stringify(r), new RegExp(`${PASSWORD}|${secret.slice(0, 12)}`));
  assert.ok(progress.some((m) => /prepares the device: PREPARING/.test(m)), progress.join(' | '));
  const [create] = farm.calls;
  assert.equal(create.target, 'DeviceFarm_20150623.CreateRemoteAccessSession');
  assert.deepEqual(create.body, { projectArn: 'arn:aws:devicefarm:us-west-2:123456789012:project:p', deviceArn: 'arn:aws:devicefarm:us-west-2::device:D', name: 'pixel' });
  assert.ok(farm.calls.every((c) => c.valid && c.key === 'AKIDEXAMPLE' && c.region === 'us-west-2' && c.service === 'devicefarm' && c.token === 'session-token-1'), JSON.stringify(farm.calls));
  assert.equal((await srv.ok('read_text', {})).sc.text, 'text of the fake page');

  await srv.ok('session_stop', { session: r.structuredContent.id });
  const stop = farm.calls.find((c) => c.target.endsWith('StopRemoteAccessSession'));
  assert.ok(stop, 'the remote access session is stopped with the session');
  assert.equal(stop.body.arn, 'arn:aws:devicefarm:us-west-2:123456789012:session:p/r/00001');
  assert.ok(hub.log.some((e) => e.method === 'DELETE' && e.url.startsWith('/wd/hub/session/fake-')));
  await srv.close();
});

test('AWS Device Farm: a wrong secret and missing credentials are clear errors', wdOpts({ timeout: ms(30000) }), async (t) => {
  const farm = await startDeviceFarm(t, { secret: 'right', endpoint: 'http://127.0.0.1:9/' });
  const args = { provider: 'aws-device-farm', project_arn: 'arn:aws:devicefarm:us-west-2:1:project:p', device_arn: 'arn:aws:devicefarm:us-west-2::device:D' };
  const wrong = await startServer(t, { env: { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'wrong', AWS_ENDPOINT_URL_DEVICE_FARM: farm.url } });
  const e1 = await wrong.call('webdriver_connect', args);
  assert.equal(e1.structuredContent.error.code, 'device_unavailable');
  assert.match(e1.structuredContent.error.message, /HTTP 403 InvalidSignatureException/);
  await wrong.close();
  const none = await startServer(t, { env: { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', HOME: '/nonexistent', AWS_ENDPOINT_URL_DEVICE_FARM: farm.url } });
  const e2 = await none.call('webdriver_connect', args);
  assert.equal(e2.structuredContent.error.code, 'invalid_argument');
  assert.match(e2.structuredContent.error.message, /no AWS credentials: set AWS_ACCESS_KEY_ID/);
  const e3 = await none.call('webdriver_connect', { ...args, url: 'http://127.0.0.1:1/' });
  assert.match(e3.structuredContent.error.message, /provider/);
  await none.close();
});
