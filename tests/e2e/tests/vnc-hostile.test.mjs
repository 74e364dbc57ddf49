// A hostile VNC server, played by a small RFB server in the test: a screen
// size too large to hold, an update outside the screen, a message type that
// does not exist. Each ends that one connection with a clear reason; the
// glovebox server keeps serving, and its other vnc session is untouched.
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { BUILD, connectClient, needs } from '../lib/server.mjs';
import { ms, startServer, topts, until } from '../lib/terminal.mjs';

const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(60000), ...extra }));

/** An RFB 3.8 server with security None and a width x height screen, which
 * sends after (bytes) right after its ServerInit. */
async function fakeServer(t, { width, height, after = Buffer.alloc(0) }) {
  const sockets = new Set();
  const srv = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    let stage = 0;
    let buf = Buffer.alloc(0);
    s.write('RFB 003.008\n');
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (stage === 0 && buf.length >= 12) {
        buf = buf.subarray(12);
        stage = 1;
        s.write(Buffer.from([1, 1])); // one security type: None
      }
      if (stage === 1 && buf.length >= 1) {
        buf = buf.subarray(1);
        stage = 2;
        s.write(Buffer.from([0, 0, 0, 0])); // SecurityResult OK
      }
      if (stage === 2 && buf.length >= 1) {
        buf = buf.subarray(1);
        stage = 3;
        const name = Buffer.from('hostile');
        const init = Buffer.alloc(24);
        init.writeUInt16BE(width, 0);
        init.writeUInt16BE(height, 2);
        Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]).copy(init, 4);
        init.writeUInt32BE(name.length, 20);
        s.write(Buffer.concat([init, name, after]));
      }
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    srv.close();
  });
  return srv.address().port;
}

/** A FramebufferUpdate with one raw rectangle (pixels zero). */
function rawUpdate(x, y, w, h, pixels = w * h) {
  const head = Buffer.alloc(4 + 12);
  head.writeUInt8(0, 0);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(x, 4);
  head.writeUInt16BE(y, 6);
  head.writeUInt16BE(w, 8);
  head.writeUInt16BE(h, 10);
  head.writeInt32BE(0, 12);
  return Buffer.concat([head, Buffer.alloc(Math.min(pixels, 1 << 20) * 4)]);
}

async function ended(srv, id) {
  let s;
  await until(async () => {
    const list = (await srv.ok('session_list', { include_ended: true })).sc;
    s = (list.sessions ?? list).find((x) => x.id === id);
    return s && s.state === 'ended';
  }, ms(10000), `session ${id} to end`);
  return s;
}

test('a hostile server ends its own session only; the server keeps serving', vncOpts(), async (t) => {
  const srv = await startServer(t);
  const good = await fakeServer(t, { width: 64, height: 48, after: rawUpdate(0, 0, 64, 48) });
  const keep = await srv.ok('vnc_connect', { host: '127.0.0.1', port: good, name: 'keep' });
  assert.equal(keep.sc.server_name, 'hostile');

  // A screen of 65535 x 65535 (16 GiB of framebuffer) is refused.
  const huge = await fakeServer(t, { width: 65535, height: 65535 });
  const r = await srv.call('vnc_connect', { host: '127.0.0.1', port: huge });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.code, 'device_unavailable');
  assert.match(r.structuredContent.error.message, /announced a 65535x65535 screen/);

  // An update reaching outside the screen, and a message type that does
  // not exist: the connection ends with libgvnc's reason.
  const cases = [
    [rawUpdate(40, 40, 100, 100), /Framebuffer update 100x100 at 40,40 outside boundary 64x48/],
    [Buffer.from([0xfe, 1, 2, 3, 4, 5, 6, 7]), /unknown message: 254/],
  ];
  for (const [after, why] of cases) {
    const port = await fakeServer(t, { width: 64, height: 48, after });
    const c = await srv.call('vnc_connect', { host: '127.0.0.1', port });
    if (c.isError) {
      // The bad message came before the handshake was reported: as good.
      assert.equal(c.structuredContent.error.code, 'device_unavailable');
      assert.match(c.structuredContent.error.message, why);
      continue;
    }
    const s = await ended(srv, c.structuredContent.id);
    assert.match(s.end_reason, why);
  }

  // The well-behaved session still works.
  const shot = await srv.ok('screenshot', { session: 'keep', format: 'png' });
  assert.ok(shot.content.some((b) => b.type === 'image'));
  await srv.ok('status', {});
  await srv.close();
});

/** A FramebufferUpdate with one RichCursor pseudo-rectangle (encoding
 * -239) of w x h, and then only the first bytes of the shape it announces. */
function cursorUpdate(w, h) {
  const head = Buffer.alloc(4 + 12);
  head.writeUInt8(0, 0);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(0, 4);
  head.writeUInt16BE(0, 6);
  head.writeUInt16BE(w, 8);
  head.writeUInt16BE(h, 10);
  head.writeInt32BE(-239, 12);
  return Buffer.concat([head, Buffer.alloc(4096)]);
}

test('a server whose data the client library cannot survive ends that session only', vncOpts(), async (t) => {
  const srv = await startServer(t);
  const good = await fakeServer(t, { width: 64, height: 48, after: rawUpdate(0, 0, 64, 48) });
  const keep = await srv.ok('vnc_connect', { host: '127.0.0.1', port: good, name: 'keep' });
  assert.equal(keep.sc.width, 64);

  // A pointer shape of 65535 x 65535 (16 GiB): libgvnc cannot allocate it
  // and aborts the process it runs in, which is that connection's own.
  const hostile = await fakeServer(t, { width: 64, height: 48, after: Buffer.concat([rawUpdate(0, 0, 64, 48), cursorUpdate(65535, 65535)]) });
  const c = await srv.call('vnc_connect', { host: '127.0.0.1', port: hostile, name: 'hostile' });
  const why = /the VNC connection's process ended \((signal \d+|exit status \d+)\): the server sent data the client library could not handle/;
  if (c.isError) {
    assert.equal(c.structuredContent.error.code, 'device_unavailable');
    assert.match(c.structuredContent.error.message, why);
  } else {
    const s = await ended(srv, c.structuredContent.id);
    assert.match(s.end_reason, why);
    const r = await srv.call('screenshot', { session: c.structuredContent.id });
    assert.equal(r.isError, true);
  }

  // With reconnect_s the dead process counts as a dropped connection:
  // tried again (each try dies the same way) until the time is up.
  const r2 = await srv.call('vnc_connect', { host: '127.0.0.1', port: hostile, name: 'hostile2', reconnect_s: 1 });
  const again2 = /was not made again within 1 s: the VNC connection's process ended/;
  if (r2.isError) assert.match(r2.structuredContent.error.message, why);
  else assert.match((await ended(srv, r2.structuredContent.id)).end_reason, again2);

  // Every process that ended was reaped: none is left a zombie, and the
  // one live session has its one process.
  const workers = () => readFileSync(`/proc/${srv.pid}/task/${srv.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
    .map((pid) => readFileSync(`/proc/${pid}/stat`, 'utf8'))
    .filter((stat) => stat.includes('(glovebox-vnc-wo'));
  await until(async () => workers().length === 1, ms(10000), 'one connection process, for the session kept');
  assert.ok(!workers()[0].match(/\) Z /), 'not a zombie');

  // The server and its other session go on.
  const shot = await srv.ok('screenshot', { session: 'keep', format: 'png' });
  assert.ok(shot.content.some((b) => b.type === 'image'));
  await srv.ok('click', { session: 'keep', x: 3, y: 3 });
  const again = await srv.ok('vnc_connect', { host: '127.0.0.1', port: good, name: 'again' });
  assert.equal(again.sc.server_name, 'hostile');
  await srv.ok('status', {});
  await srv.close();
});

/** A FramebufferUpdate with one rectangle of encoding enc and its data. */
function rectUpdate(x, y, w, h, enc, data = Buffer.alloc(0)) {
  const head = Buffer.alloc(4 + 12);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(x, 4);
  head.writeUInt16BE(y, 6);
  head.writeUInt16BE(w, 8);
  head.writeUInt16BE(h, 10);
  head.writeInt32BE(enc, 12);
  return Buffer.concat([head, data]);
}

/** WMVi (pseudo-encoding 0x574d5669): the server's new pixel format. */
const wmvi = (bpp, depth, trueColour, shift = 0) =>
  rectUpdate(0, 0, 64, 48, 0x574d5669, Buffer.from([bpp, depth, 0, trueColour, 0, 255, 0, 255, 0, 255, shift, shift, shift, 0, 0, 0]));

// Found by fuzz_vnc (fuzz/README.md): libgvnc takes any pixel format a
// server switches to, and indexes its blit tables with the bits per pixel
// unchecked (0 bits: read before its tables; a colour map with no colours
// sent: a lookup in none). The worker refuses them before libgvnc paints.
test('a server switching to a pixel format the client cannot paint from ends that session with the reason', vncOpts(), async (t) => {
  const srv = await startServer(t);
  const cases = [
    [wmvi(0, 24, 1), /switched to a pixel format glovebox cannot use \(0 bits per pixel, depth 24, true colour\)/],
    [wmvi(24, 24, 1), /\(24 bits per pixel, depth 24, true colour\)/],
    [wmvi(8, 8, 0), /\(8 bits per pixel, depth 8, a colour map\): it needs true colour at 8, 16 or 32 bits per pixel/],
    [wmvi(32, 24, 1, 40), /\(32 bits per pixel, depth 24, true colour\)/],
  ];
  for (const [after, why] of cases) {
    const port = await fakeServer(t, { width: 64, height: 48, after: Buffer.concat([rawUpdate(0, 0, 64, 48), after]) });
    const c = await srv.call('vnc_connect', { host: '127.0.0.1', port });
    if (c.isError) {
      assert.equal(c.structuredContent.error.code, 'device_unavailable');
      assert.match(c.structuredContent.error.message, why);
      continue;
    }
    const s = await ended(srv, c.structuredContent.id);
    assert.match(s.end_reason, why);
  }
  // A format libgvnc can paint from (16-bit true colour) is kept, and the
  // screen painted in it.
  const port = await fakeServer(t, { width: 64, height: 48, after: Buffer.concat([rawUpdate(0, 0, 64, 48), wmvi(16, 16, 1),
    rectUpdate(0, 0, 64, 48, 0, Buffer.alloc(64 * 48 * 2, 0xff))]) });
  const ok = await srv.ok('vnc_connect', { host: '127.0.0.1', port, name: 'sixteen' });
  assert.equal(ok.sc.width, 64);
  await srv.ok('screenshot', { session: 'sixteen', format: 'png' });
  await srv.ok('status', {});
  await srv.close();
});

// The other sites fuzz_vnc found are inside libgvnc, where the worker
// never sees the data (fuzz/README.md lists them): each ends its
// connection's process, and that session only.
test('each libgvnc crash fuzz_vnc found ends that session only', vncOpts(), async (t) => {
  const srv = await startServer(t);
  const good = await fakeServer(t, { width: 64, height: 48, after: rawUpdate(0, 0, 64, 48) });
  await srv.ok('vnc_connect', { host: '127.0.0.1', port: good, name: 'keep' });
  const why = /the VNC connection's process ended \((signal \d+|exit status \d+)\): the server sent data the client library could not handle/;
  const cases = {
    // A cursor with alpha (-314, never asked for) of 23387 x 23296: its
    // size in int overflows.
    'alpha cursor': rectUpdate(0, 0, 0x5b5b, 0x5b00, -314, Buffer.alloc(4096)),
    // An X cursor (-240) of 65535 x 65280, likewise.
    'X cursor': rectUpdate(0, 0, 65535, 65280, -240, Buffer.alloc(4096)),
    // ZRLE (16) data announced as 4 GiB - 232 bytes: allocated at once.
    'ZRLE length': rectUpdate(0, 0, 4, 2, 16, Buffer.from([0xff, 0xff, 0xff, 0x18, 0, 0, 0, 0])),
  };
  for (const [what, after] of Object.entries(cases)) {
    const port = await fakeServer(t, { width: 64, height: 48, after: Buffer.concat([rawUpdate(0, 0, 64, 48), after]) });
    const c = await srv.call('vnc_connect', { host: '127.0.0.1', port });
    if (c.isError) {
      assert.match(c.structuredContent.error.message, why, what);
      continue;
    }
    assert.match((await ended(srv, c.structuredContent.id)).end_reason, why, what);
  }
  const shot = await srv.ok('screenshot', { session: 'keep', format: 'png' });
  assert.ok(shot.content.some((b) => b.type === 'image'));
  await srv.ok('status', {});
  await srv.close();
});

test('a connection\'s process ends with its session, and dies with a server killed -9', vncOpts(), async (t) => {
  const port = await fakeServer(t, { width: 32, height: 32, after: rawUpdate(0, 0, 32, 32) });
  const srv = await startServer(t);
  const worker = () => readFileSync(`/proc/${srv.pid}/task/${srv.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
    .find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('glovebox-vnc-wo'));
  const gone = (pid) => {
    try {
      return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)/, ')'));
    } catch {
      return true;
    }
  };
  const a = await srv.ok('vnc_connect', { host: '127.0.0.1', port });
  const first = worker();
  assert.ok(first, 'the session has its process');
  await srv.ok('session_stop', { session: a.sc.id });
  await until(async () => !worker(), ms(10000), 'the process to end and be reaped with its session');

  await srv.ok('vnc_connect', { host: '127.0.0.1', port });
  const second = worker();
  assert.ok(second);
  srv.closed = true; // nothing to close cleanly after this
  const exited = new Promise((resolve) => srv.child.once('exit', resolve));
  process.kill(srv.pid, 'SIGKILL');
  await exited;
  await until(async () => gone(second), ms(5000), 'the process to die with the server');
});

test('the policy: hosts rules apply to vnc_connect\'s host; blocked windows keep input away', vncOpts(), async (t) => {
  const port = await fakeServer(t, { width: 32, height: 32, after: rawUpdate(0, 0, 32, 32) });
  const dir = mkdtempSync(join(tmpdir(), 'gb-vnc-policy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({
    allow: ['vnc_connect', 'session_stop', 'click', 'type_text', 'screenshot'],
    rules: { vnc_connect: { hosts: ['127.0.0.1'] }, input: { blocked_windows: ['*Password*'] } },
  }));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') } });
  const call = (name, args) => srv.client.callTool({ name, arguments: args });
  const denied = await call('vnc_connect', { host: 'localhost', port, password: 'pw-not-shown' });
  assert.equal(denied.structuredContent.error.code, 'denied');
  assert.match(denied.content[0].text, /localhost/);
  assert.ok(!JSON.stringify(denied).includes('pw-not-shown'));
  const ok = await call('vnc_connect', { host: '127.0.0.1', port });
  assert.ok(!ok.isError, JSON.stringify(ok));
  // Which window input would reach is unknown over VNC: none goes.
  for (const [name, args] of [['click', { x: 1, y: 1 }], ['type_text', { text: 'x' }]]) {
    const r = await call(name, args);
    assert.equal(r.structuredContent.error.code, 'denied', name);
    assert.match(r.content[0].text, /cannot tell which window input reaches/);
  }
  const seen = await call('screenshot', {});
  assert.ok(!seen.isError, JSON.stringify(seen).slice(0, 300));
  await srv.close();
});

test('a server that accepts but never speaks: a timeout error within timeout_ms', vncOpts(), async (t) => {
  const sockets = new Set();
  const silent = createServer((s) => sockets.add(s));
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const srv = await startServer(t);
  const t0 = Date.now();
  const r = await srv.call('vnc_connect', { host: '127.0.0.1', port: silent.address().port, timeout_ms: 700 });
  assert.equal(r.structuredContent.error.code, 'timeout');
  assert.match(r.structuredContent.error.message, /did not complete the handshake within 700 ms/);
  // Bounded by the timeout, not by the server: far below a hang, with room
  // for the first session loading the module on a busy machine.
  assert.ok(Date.now() - t0 < ms(15000), 'timeout_ms ends the wait');
  // Stopped while it waits for the handshake: the connect hears why at once.
  const pending = srv.call('vnc_connect', { host: '127.0.0.1', port: silent.address().port, timeout_ms: 60000, name: 'pending' });
  await until(async () => JSON.stringify((await srv.ok('session_list', {})).sc).includes('"pending"'), ms(5000), 'the starting session');
  await srv.ok('session_stop', { session: 'pending' });
  const stopped = await pending;
  assert.equal(stopped.structuredContent.error.code, 'session_expired');
  assert.match(stopped.structuredContent.error.message, /stopped before it was ready/);
  // Nothing listening: a clear error at once.
  const closed = await srv.call('vnc_connect', { host: '127.0.0.1', port: 1 });
  assert.equal(closed.structuredContent.error.code, 'device_unavailable');
  assert.match(closed.structuredContent.error.message, /cannot connect to 127\.0\.0\.1:1/);
  await srv.status();
  await srv.close();
});

test('a connection process that cannot be started says so, not that the server misbehaved', vncOpts(), async (t) => {
  // The modules of this build beside a worker that is no program at all
  // (execve fails: the child exits 127).
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-badworker-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of readdirSync(BUILD).filter((f) => /^glovebox-.*\.so$/.test(f))) copyFileSync(join(BUILD, f), join(dir, f));
  writeFileSync(join(dir, 'glovebox-vnc-worker'), 'not a program\n');
  chmodSync(join(dir, 'glovebox-vnc-worker'), 0o755);
  const srv = await startServer(t, { env: { GLOVEBOX_MODULE_DIR: dir } });
  const r = await srv.call('vnc_connect', { host: '127.0.0.1', port: 5999 });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.code, 'device_unavailable');
  assert.match(r.structuredContent.error.message, /the VNC connection's process could not be started \(exit status 127\): is glovebox-vnc-worker installed beside the vnc module\?/);
  assert.doesNotMatch(r.structuredContent.error.message, /server sent data/);
  await srv.status(); // still serving
});
