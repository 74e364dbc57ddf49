// VeNCrypt on a real Xvnc: X509Vnc with a self-signed certificate made here,
// trusted through ca_file (glovebox's TLS front, tls_front.c), refused with
// a clear error against another CA or libgvnc's system CAs; tls_verify:
// false is the explicit opt-out; anonymous TLS (TLSVnc) needs it too.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { SANITIZED, decodePng, imageOf, ms, startServer, topts, until } from '../lib/terminal.mjs';
import { startXvnc } from '../lib/vnc.mjs';

const PASSWORD = 'Tls-pa55';
const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(120000), ...extra }));
const errorOf = (r) => r.structuredContent.error;
const counts = (pid) => ({
  threads: readdirSync(`/proc/${pid}/task`).length,
  fds: readdirSync(`/proc/${pid}/fd`).length,
});

/** A self-signed certificate for 127.0.0.1 and localhost, in dir. */
function certificate(dir, name) {
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, `${name}-key.pem`), '-out', join(dir, `${name}.pem`)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}-key.pem`) };
}

test('VeNCrypt X509Vnc: ca_file trusts a self-signed certificate; another CA, no CA or a bad file is a clear error', vncOpts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-vnc-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = certificate(dir, 'server');
  const other = certificate(dir, 'other');
  const xvnc = await startXvnc(t, { width: 320, height: 240, password: PASSWORD, security: 'X509Vnc', args: ['-X509Cert', server.cert, '-X509Key', server.key] });
  // libgvnc leaks on its own refusal path (tests/lsan.supp); its frames have
  // no frame pointers, so the suppressions match only with the slow unwinder.
  const env = SANITIZED ? { ASAN_OPTIONS: `${process.env.ASAN_OPTIONS ?? 'detect_leaks=1:exitcode=99'}:fast_unwind_on_malloc=0` } : {};
  const srv = await startServer(t, { env });
  const at = { host: '127.0.0.1', display: xvnc.display, password: PASSWORD };

  // The server's own certificate as the CA: connected, over TLS.
  const c = (await srv.ok('vnc_connect', { ...at, ca_file: server.cert, name: 'trusted' })).sc;
  assert.equal(c.security_type, 'vencrypt-x509-vnc');
  const png = decodePng(imageOf(await srv.ok('screenshot', { session: c.id, format: 'png' })).data);
  assert.deepEqual([png.width, png.height], [320, 240]);
  await srv.ok('click', { session: c.id, x: 10, y: 10 });
  // What the process holds with this one session (its TLS front's thread
  // and sockets included): every later connect, failed or stopped, gives
  // back what it took.
  const base = counts(srv.pid);
  // The same by the name the certificate gives too.
  const byName = (await srv.ok('vnc_connect', { ...at, host: 'localhost', ca_file: server.cert })).sc;
  assert.equal(byName.security_type, 'vencrypt-x509-vnc');

  // Another CA: refused, saying why and against what.
  let r = await srv.call('vnc_connect', { ...at, ca_file: other.cert });
  assert.equal(errorOf(r).code, 'device_unavailable');
  assert.match(errorOf(r).message, /presented a TLS certificate glovebox does not accept: The certificate is NOT trusted\. The certificate issuer is unknown \(checked against .*other\.pem\)/);
  // No ca_file: libgvnc's check against the system's CAs refuses it too.
  r = await srv.call('vnc_connect', { ...at, timeout_ms: 10000 });
  assert.equal(errorOf(r).code, 'device_unavailable');
  assert.match(errorOf(r).message, /presented a TLS certificate glovebox does not accept \(The certificate is not trusted\)/);
  // A file that holds no certificate.
  r = await srv.call('vnc_connect', { ...at, ca_file: server.key.replace('-key.pem', '-missing.pem') });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /argument "ca_file": .*-missing\.pem holds no PEM certificate/);
  // tls_verify: false is the explicit opt-out: encrypted, unchecked.
  const unchecked = (await srv.ok('vnc_connect', { ...at, tls_verify: false })).sc;
  assert.equal(unchecked.security_type, 'vencrypt-x509-vnc');
  await srv.ok('screenshot', { session: unchecked.id });
  await srv.ok('session_stop', { session: unchecked.id });
  await srv.ok('session_stop', { session: byName.id });
  // At most as many: the base may have caught a write of the session table
  // in flight (its database open on the worker pool); a leak only adds.
  const within = (now) => now.threads <= base.threads && now.fds <= base.fds;
  await until(async () => within(counts(srv.pid)), ms(10000), `threads and descriptors back to ${JSON.stringify(base)}`).catch((e) => {
    e.message += ` (now ${JSON.stringify(counts(srv.pid))})`;
    throw e;
  });
  assert.ok(!srv.stderr().includes(PASSWORD));
  await srv.close();
});

test('ca_file on a server without TLS is a clear error', vncOpts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-vnc-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = certificate(dir, 'server');
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  const srv = await startServer(t);
  const r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, ca_file: server.cert });
  assert.equal(errorOf(r).code, 'not_supported');
  assert.match(errorOf(r).message, /argument "ca_file": the VNC server 127\.0\.0\.1:\d+ offers no TLS/);
  // tls_verify: false on such a server: plain, as without it.
  const c = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, tls_verify: false })).sc;
  assert.equal(c.security_type, 'none');
  await srv.ok('screenshot', {});
  await srv.close();
});

test('VeNCrypt TLSVnc (anonymous TLS): refused unless tls_verify is false', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240, password: PASSWORD, security: 'TLSVnc' });
  const srv = await startServer(t);
  let r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, password: PASSWORD });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /only anonymous TLS .* give "tls_verify": false/);
  const c = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, password: PASSWORD, tls_verify: false })).sc;
  assert.equal(c.security_type, 'vencrypt-tls-vnc');
  await srv.ok('screenshot', {});
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, password: 'wrong-pw', tls_verify: false });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /rejected the credentials/);
  await srv.close();
});
