// vnc sessions on real servers: Xvnc with None and with VNC authentication,
// x11vnc on an Xvfb display. Connect, the screen's size and pixels, clicks
// and typing into a real xterm (the file its shell writes), OCR; a wrong
// password is a clear error at once, the password is never shown or
// logged; a server killed mid-session ends it with device_unavailable and
// leaves no thread or descriptor behind.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { SANITIZED, needs } from '../lib/server.mjs';
import { assertColour, decodePng, imageOf, ms, pixel, startServer, topts, until } from '../lib/terminal.mjs';
import { startX11vnc, startXvnc, xclient, xrun } from '../lib/vnc.mjs';

const PASSWORD = 'Vnc-s3cr3t';
const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(90000), ...extra }));

async function shot(srv, args = {}) {
  const r = await srv.ok('screenshot', { format: 'png', ...args });
  return decodePng(imageOf(r).data);
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

const counts = (pid) => ({
  threads: readdirSync(`/proc/${pid}/task`).length,
  fds: readdirSync(`/proc/${pid}/fd`).length,
});

test('Xvnc without a password: size, pixels, click and type into an xterm, OCR', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 640, height: 480 });
  xrun(xvnc, 'xsetroot', ['-solid', '#20c040']);
  const srv = await startServer(t);
  const c = await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display });
  assert.equal(c.sc.kind, 'vnc');
  assert.equal(c.sc.width, 640);
  assert.equal(c.sc.height, 480);
  assert.equal(c.sc.security_type, 'none');
  assert.equal(typeof c.sc.server_name, 'string');
  // The module arrives with the first vnc session; libgvnc runs in the
  // connection's own process, a child of the server, never in the server.
  const maps = readFileSync(`/proc/${srv.pid}/maps`, 'utf8');
  assert.match(maps, /glovebox-vnc\.so/);
  assert.doesNotMatch(maps, /libgvnc/);
  const children = readFileSync(`/proc/${srv.pid}/task/${srv.pid}/children`, 'utf8').trim().split(/\s+/);
  const workers = children.filter((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('glovebox-vnc-wo'));
  assert.equal(workers.length, 1, 'one connection process');
  assert.match(readFileSync(`/proc/${workers[0]}/maps`, 'utf8'), /libgvnc/);

  const png = await shot(srv);
  assert.equal(png.width, 640);
  assert.equal(png.height, 480);
  assertColour(pixel(png, 600, 400), [0x20, 0xc0, 0x40], 8, 'the root window colour');

  // The framebuffer stays current: a new colour shows without reconnecting.
  xrun(xvnc, 'xsetroot', ['-solid', '#3050e0']);
  await until(async () => {
    const p = await shot(srv);
    const [r, g, b] = pixel(p, 600, 400);
    return Math.abs(r - 0x30) < 9 && Math.abs(g - 0x50) < 9 && Math.abs(b - 0xe0) < 9;
  }, ms(10000), 'the new root colour in a screenshot');

  // A real xterm: click into it, type a command with non-ASCII text, Enter.
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-vnc-out-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'typed.txt');
  xclient(t, xvnc, 'xterm', ['-geometry', '60x10+0+0', '-fa', 'DejaVu Sans Mono', '-fs', '14', '-bg', 'white', '-fg', 'black', '-e', 'sh']);
  const ready = await srv.ok('wait_for', { text: 'gbvnc>', timeout_ms: 20000 });
  assert.equal(ready.sc.matched, true, 'the xterm shows its prompt');
  await srv.ok('click', { x: 100, y: 60 });
  await srv.ok('type_text', { text: `printf '%s' "Hello VNC é €" > ${out}\n` });
  await until(() => existsSync(out) && readFileSync(out, 'utf8') === 'Hello VNC é €', ms(10000), 'the file the typed command writes').catch((e) => {
    e.message += ` (file: ${existsSync(out) ? JSON.stringify(readFileSync(out, 'utf8')) : 'none'})`;
    throw e;
  });
  // press_key: a chord the shell understands (ctrl+u clears the line), then Enter.
  await srv.ok('type_text', { text: 'echo wrong' });
  await srv.ok('press_key', { key: 'ctrl+u' });
  await srv.ok('type_text', { text: `echo MARK42 >> ${out}` });
  await srv.ok('press_key', { key: 'Enter' });
  await until(() => readFileSync(out, 'utf8').includes('MARK42\n'), ms(10000), 'the second command ran');
  assert.ok(!readFileSync(out, 'utf8').includes('wrong'), 'ctrl+u cleared the line');

  const seen = await srv.ok('wait_for', { text: 'MARK42', timeout_ms: 20000 });
  assert.equal(seen.sc.matched, true);
  assert.equal(seen.sc.source, 'ocr');
  const text = await srv.ok('read_text', {});
  assert.match(text.sc.text, /MARK42/);
  const missing = await srv.ok('wait_for', { text: 'NEVER-THERE-XYZ', timeout_ms: 500 });
  assert.equal(missing.sc.matched, false);
  const calm = await srv.ok('wait_for', { stable_ms: 300, timeout_ms: 10000 });
  assert.equal(calm.sc.matched, true, 'an idle screen becomes stable');
  assert.ok(calm.sc.elapsed_ms >= 300);
  const listed = (await srv.ok('session_list', {})).sc.sessions.find((x) => x.id === c.sc.id);
  assert.equal(listed.width, 640);
  assert.equal(listed.security_type, 'none');

  // Coordinates outside the screen: a clear error naming them.
  const far = await srv.call('click', { x: 5000, y: 10 });
  assert.equal(far.structuredContent.error.code, 'invalid_argument');
  assert.match(far.structuredContent.error.message, /5000,10 is outside the 640x480 screen/);
  const byRef = await srv.call('click', { ref: 'e1' });
  assert.equal(byRef.structuredContent.error.code, 'not_supported');

  await srv.ok('session_stop', { session: c.sc.id });
  await srv.close();
});

test('VNC authentication: the right password connects, a wrong one fails at once; the password is never shown', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240, password: PASSWORD });
  const srv = await startServer(t, { env: { GLOVEBOX_LOG: 'debug', VNC_TEST_PASSWORD: PASSWORD } });

  const t0 = Date.now();
  const wrong = await srv.call('vnc_connect', { host: '127.0.0.1', port: xvnc.port, password: 'not-' + PASSWORD });
  const took = Date.now() - t0;
  assert.equal(wrong.isError, true);
  assert.equal(wrong.structuredContent.error.code, 'invalid_argument');
  assert.match(wrong.structuredContent.error.message, /rejected the credentials \(argument "password"\)/);
  assert.ok(took < 5000, `a wrong password is reported in ${took} ms`);

  const none = await srv.call('vnc_connect', { host: '127.0.0.1', port: xvnc.port });
  assert.equal(none.structuredContent.error.code, 'invalid_argument');
  assert.match(none.structuredContent.error.message, /asks for a password/);

  const unset = await srv.call('vnc_connect', { host: '127.0.0.1', port: xvnc.port, password_env: 'NO_SUCH_VNC_VAR' });
  assert.equal(unset.structuredContent.error.code, 'invalid_argument');
  assert.match(unset.structuredContent.error.message, /NO_SUCH_VNC_VAR is not set/);

  const c = await srv.ok('vnc_connect', { host: '127.0.0.1', port: xvnc.port, password: PASSWORD, name: 'authed' });
  assert.equal(c.sc.security_type, 'vnc');
  assert.equal(c.sc.width, 320);
  assert.ok(!JSON.stringify(c).includes(PASSWORD), 'not in the result');
  const png = await shot(srv, { session: 'authed' });
  assert.equal(png.width, 320);
  await srv.ok('session_stop', { session: c.sc.id });

  const e = await srv.ok('vnc_connect', { host: '127.0.0.1', port: xvnc.port, password_env: 'VNC_TEST_PASSWORD' });
  assert.equal(e.sc.security_type, 'vnc');
  const listed = JSON.stringify((await srv.ok('session_list', {})).sc);
  assert.ok(!listed.includes(PASSWORD), listed);
  // The connection's process got the password over its socket: not in its
  // argv or environment (password_env's variable is not passed on), and it
  // holds none of the server's descriptors, only its own few.
  const children = readFileSync(`/proc/${srv.pid}/task/${srv.pid}/children`, 'utf8').trim().split(/\s+/);
  const worker = children.find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('glovebox-vnc-wo'));
  assert.ok(worker, 'the connection has its own process');
  assert.ok(!readFileSync(`/proc/${worker}/cmdline`, 'utf8').includes(PASSWORD), 'not in its argv');
  const environ = readFileSync(`/proc/${worker}/environ`, 'utf8');
  assert.ok(!environ.includes(PASSWORD) && !environ.includes('VNC_TEST_PASSWORD'), 'not in its environment');
  // Its limits: no core file, and (but under AddressSanitizer, which maps
  // terabytes) an address space of 1 GiB that a hostile allocation hits.
  const limits = readFileSync(`/proc/${worker}/limits`, 'utf8');
  assert.match(limits, /Max core file size\s+0\s+0/);
  if (!SANITIZED) assert.match(limits, /Max address space\s+1073741824\s+1073741824/);
  const fds = readdirSync(`/proc/${worker}/fd`).map(Number);
  const serverFds = new Set(readdirSync(`/proc/${srv.pid}/fd`).map((fd) => readlinkSync(`/proc/${srv.pid}/fd/${fd}`)));
  for (const fd of fds.filter((fd) => fd > 3)) {
    const target = readlinkSync(`/proc/${worker}/fd/${fd}`);
    assert.ok(!serverFds.has(target) || target.startsWith('anon_inode:'), `fd ${fd} (${target}) is not one of the server's`);
  }
  await srv.close();
  const all = everything(srv);
  assert.ok(all.includes('vnc_connect'), 'the audit log recorded the calls');
  assert.ok(all.includes('[redacted]'), 'the audit log kept the password argument as [redacted]');
  assert.ok(!all.includes(PASSWORD), 'the password appears nowhere glovebox wrote (stderr, audit log)');
});

test('x11vnc on Xvfb: connect and screenshot', vncOpts(), async (t) => {
  const x = await startX11vnc(t, { width: 800, height: 600 });
  xrun(x, 'xsetroot', ['-solid', '#c03020']);
  const srv = await startServer(t);
  const c = await srv.ok('vnc_connect', { host: '127.0.0.1', port: x.port });
  assert.equal(c.sc.width, 800);
  assert.equal(c.sc.height, 600);
  await until(async () => {
    const [r, g, b] = pixel(await shot(srv), 700, 500);
    return Math.abs(r - 0xc0) < 9 && Math.abs(g - 0x30) < 9 && Math.abs(b - 0x20) < 9;
  }, ms(10000), 'the root colour through x11vnc');
  await srv.ok('scroll', { direction: 'down', amount: 2 });
  await srv.ok('drag', { from: { x: 10, y: 10 }, to: { x: 200, y: 150 }, duration_ms: 0 });
  await srv.close();
});

test('a server killed mid-session: device_unavailable, the session ends, nothing leaks', vncOpts(), async (t) => {
  const first = await startXvnc(t, { width: 320, height: 240 });
  const srv = await startServer(t);
  // Warm up what stays for the process: the module, its GLib thread, the
  // worker pool, the OCR engine.
  const a = await srv.ok('vnc_connect', { host: '127.0.0.1', port: first.port });
  await shot(srv);
  await srv.ok('read_text', {});
  await srv.ok('session_stop', { session: a.sc.id });
  const before = counts(srv.pid);

  const doomed = await startXvnc(t, { width: 320, height: 240 });
  const b = await srv.ok('vnc_connect', { host: '127.0.0.1', port: doomed.port });
  await shot(srv, { session: b.sc.id });
  const waiting = srv.call('wait_for', { session: b.sc.id, text: 'NEVER-THERE-XYZ', timeout_ms: 30000 });
  await new Promise((r) => setTimeout(r, 300));
  doomed.kill();
  const w = await waiting;
  assert.equal(w.isError, true);
  assert.equal(w.structuredContent.error.code, 'device_unavailable');
  assert.match(w.structuredContent.error.message, /closed the connection|gone/);
  await until(async () => {
    const list = (await srv.ok('session_list', { include_ended: true })).sc;
    const s = (list.sessions ?? list).find((x) => x.id === b.sc.id);
    return s && s.state === 'ended';
  }, ms(10000), 'the session to end');
  const after = await srv.call('screenshot', { session: b.sc.id });
  assert.equal(after.structuredContent.error.code, 'session_expired');
  assert.match(after.structuredContent.error.message, /VNC connection ended: Server closed the connection|VNC server closed the connection/);
  await until(() => {
    const now = counts(srv.pid);
    // A leak is growth; a descriptor the first session released late may
    // make the count lower.
    return now.threads <= before.threads && now.fds <= before.fds;
  }, ms(5000), `threads and fds back to at most ${JSON.stringify(before)}`).catch((e) => {
    e.message += ` (now ${JSON.stringify(counts(srv.pid))})`;
    throw e;
  });
  await srv.close();
});

test('the clipboard through cut text: set lands in the X clipboard, a new X clipboard comes back', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  const srv = await startServer(t);
  await srv.ok('vnc_connect', { host: '127.0.0.1', port: xvnc.port });
  const set = await srv.ok('clipboard_set', { text: 'from glovebox café' });
  assert.equal(set.sc.bytes, Buffer.byteLength('from glovebox café'));
  await until(() => {
    const r = spawnSync('xclip', ['-o', '-selection', 'clipboard'], { env: xvnc.env, encoding: 'utf8', timeout: 3000 });
    return r.stdout === 'from glovebox café';
  }, ms(10000), 'the text in the X clipboard of the VNC display');

  // A program on the remote desktop copies: the server sends cut text.
  const xclip = spawn('xclip', ['-i', '-quiet', '-selection', 'clipboard'], { env: xvnc.env, stdio: ['pipe', 'ignore', 'ignore'] });
  t.after(() => xclip.kill('SIGKILL'));
  xclip.stdin.end('copied over there');
  await until(async () => (await srv.ok('clipboard_get', {})).sc.text === 'copied over there', ms(10000), 'the server\'s cut text');

  const wide = await srv.call('clipboard_set', { text: 'ж' });
  assert.equal(wide.structuredContent.error.code, 'invalid_argument');
  assert.match(wide.structuredContent.error.message, /outside Latin-1/);
  const primary = await srv.call('clipboard_get', { selection: 'primary' });
  assert.equal(primary.structuredContent.error.code, 'not_supported');
  await srv.close();
});
