// VeNCrypt on a real Xvnc: X509Vnc with a self-signed certificate made here
// is refused with a clear error (libgvnc trusts only the system's CAs and
// its fixed files, which a test must not change); anonymous TLS (TLSVnc)
// needs the explicit tls_verify: false.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { SANITIZED, ms, startServer, topts } from '../lib/terminal.mjs';
import { startXvnc } from '../lib/vnc.mjs';

const PASSWORD = 'Tls-pa55';
const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(120000), ...extra }));
const errorOf = (r) => r.structuredContent.error;

/** A self-signed certificate for 127.0.0.1 and localhost, in dir. */
function certificate(dir, name) {
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, `${name}-key.pem`), '-out', join(dir, `${name}.pem`)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}-key.pem`) };
}

test('VeNCrypt X509Vnc: a certificate no trusted CA signed is refused with a clear error', vncOpts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-vnc-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = certificate(dir, 'server');
  const xvnc = await startXvnc(t, { width: 320, height: 240, password: PASSWORD, security: 'X509Vnc', args: ['-X509Cert', server.cert, '-X509Key', server.key] });
  // libgvnc leaks on this path (tests/lsan.supp); its frames have no frame
  // pointers, so the suppressions match only with the slow unwinder.
  const env = SANITIZED ? { ASAN_OPTIONS: `${process.env.ASAN_OPTIONS ?? 'detect_leaks=1:exitcode=99'}:fast_unwind_on_malloc=0` } : {};
  const srv = await startServer(t, { env });
  let r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, password: PASSWORD, timeout_ms: 10000 });
  assert.equal(errorOf(r).code, 'device_unavailable');
  assert.match(errorOf(r).message, /presented a TLS certificate glovebox does not accept \(The certificate is not trusted\)/);
  // tls_verify: false does not take a certificate nobody vouches for either:
  // X.509 is always checked; only anonymous TLS is the opt-out.
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, password: PASSWORD, tls_verify: false });
  assert.equal(errorOf(r).code, 'device_unavailable');
  assert.ok(!srv.stderr().includes(PASSWORD));
  await srv.ok('session_list', {});
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
