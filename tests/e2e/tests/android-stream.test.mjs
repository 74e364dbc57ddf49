// Screenshots from the screen stream (docs/android.md, "The screen stream"):
// the fake device's `screenrecord --output-format=h264` (ffmpeg encodes its
// frames), decoded by glovebox. A stream screenshot shows what a screencap
// shows; after an action that changes the screen the next screenshot shows
// the new screen, never the old; the session's end leaves no adb connection
// and no encoder behind; a device whose screenrecord fails is served by
// screencap, with a note.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { startFakeAdb } from '../lib/fake-adb/index.mjs';
import { needs, sleep } from '../lib/server.mjs';
import { decodePng, imageOf, startServer, topts } from '../lib/terminal.mjs';

const W = 720;
const H = 1600;

const haveFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-hide_banner', '-encoders'], { stdio: ['ignore', 'pipe', 'ignore'] });
    return true;
  } catch {
    return false;
  }
})();
const opts = () => needs('android', topts({ skip: haveFfmpeg ? false : 'needs ffmpeg (scripts/deps.sh test)' }));

async function fake(t, device = {}) {
  const adb = await startFakeAdb({ devices: [{ serial: 'emulator-5554', width: W, height: H, density: 320, ...device }] });
  t.after(() => adb.close());
  return adb;
}

/** Polls fn (truthy: done) every 50 ms for up to ms; returns its last value. */
async function until(fn, ms = 20000) {
  const end = Date.now() + ms;
  let v;
  while (!(v = await fn()) && Date.now() < end) await sleep(50);
  return v;
}

/** The session's entry in session_list. */
async function sessionOf(srv, id) {
  const { sc } = await srv.ok('session_list', {});
  return sc.sessions.find((s) => s.id === id);
}

/** The image as a grid of cell colours (cols × rows averages): images of
 * different sizes and a lossy one compare cell by cell. */
function grid(img, cols = 24, rows = 48) {
  const cells = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x0 = Math.floor((c * img.width) / cols), x1 = Math.floor(((c + 1) * img.width) / cols);
      const y0 = Math.floor((r * img.height) / rows), y1 = Math.floor(((r + 1) * img.height) / rows);
      const sum = [0, 0, 0];
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = (y * img.width + x) * 4;
          for (let k = 0; k < 3; k++) sum[k] += img.data[i + k];
        }
      }
      const n = (x1 - x0) * (y1 - y0);
      cells.push(sum.map((s) => s / n));
    }
  }
  return cells;
}

/** The largest difference of one cell's colour between two grids. */
function distance(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(a[i][k] - b[i][k]));
  }
  return worst;
}

/** Opens the login app on session; resolves the refs of its username field and Sign in. */
async function openLogin(srv, session) {
  await srv.ok('click', { session, text: 'Login', role: 'label' });
  const snap = (await srv.ok('snapshot', { session })).sc;
  const byId = (id) => snap.elements.find((e) => e.resource_id?.endsWith(`:id/${id}`));
  return { user: byId('username'), signIn: byId('sign_in') };
}

async function shot(srv, session) {
  const r = await srv.ok('screenshot', { session });
  return decodePng(imageOf(r).data);
}

describe('android screenshots from the screen stream', () => {
  test('a stream screenshot shows what a screencap shows, without a screencap', opts(), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    const adbServer = `127.0.0.1:${adb.port}`;
    const live = (await srv.ok('android_connect', { adb_server: adbServer })).sc;
    const cap = (await srv.ok('android_connect', { adb_server: adbServer, stream: false })).sc;
    assert.equal(cap.stream, 'off');
    const rec = dev.entries('screenrecord');
    assert.equal(rec.length, 1, 'one screenrecord, for the session that wants it');
    // The size clients get by default, the aspect kept, both even.
    assert.deepEqual(rec[0].size, { width: 702, height: 1560 });
    assert.equal(rec[0].timeLimit, 180);
    assert.ok(await until(async () => (await sessionOf(srv, live.id)).stream === 'live'), 'the stream goes live');

    const reference = await shot(srv, cap.id);
    assert.deepEqual([reference.width, reference.height], [705, 1567]);
    // Served from the stream once it shows the screen (no action yet: at once).
    const before = dev.entries('screencap').length;
    let img;
    assert.ok(await until(async () => {
      img = await shot(srv, live.id);
      return dev.entries('screencap').length === before;
    }), 'a screenshot without a screencap');
    assert.deepEqual([img.width, img.height], [702, 1560]);
    const d = distance(grid(img), grid(reference));
    assert.ok(d < 24, `the stream's picture looks like the screencap (worst cell ${d.toFixed(1)})`);
    // And not like a screen it is not: the same comparison sees another screen.
    await srv.ok('click', { session: cap.id, text: 'Login', role: 'label' });
    const login = await shot(srv, cap.id);
    assert.ok(distance(grid(login), grid(reference)) > 60, 'the login screen differs from the launcher');
  });

  // Back and forth between the login and the welcome screen: every screenshot
  // right after the tap, and the one after it, shows the screen the tap made.
  // fast: glovebox has seen a screencap's cost first (a tap on the status bar,
  // which changes nothing, then a screenshot: a screencap compared with the
  // picture), so it takes one at once after an action rather than wait for
  // the stream; otherwise it waits for the stream's picture.
  for (const fast of [false, true]) {
    test(`after a tap that changes the screen, the next screenshots show the new screen${fast ? ' (screencap known to be fast)' : ''}`, opts(), async (t) => {
      const adb = await fake(t);
      const dev = adb.device();
      const srv = await startServer(t);
      const adbServer = `127.0.0.1:${adb.port}`;
      const s = (await srv.ok('android_connect', { adb_server: adbServer })).sc;
      const cap = (await srv.ok('android_connect', { adb_server: adbServer, stream: false })).sc;
      assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream goes live');
      const { user, signIn } = await openLogin(srv, s.id);
      // The two screens, by screencap.
      const login = grid(await shot(srv, cap.id));
      await srv.ok('type_text', { session: s.id, ref: user.ref, text: 'ada' });
      await srv.ok('click', { session: s.id, ref: signIn.ref });
      assert.equal(dev.login.signedInAs, 'ada');
      const welcome = grid(await shot(srv, cap.id));
      const signOut = (await srv.ok('find', { session: s.id, text: 'Sign out' })).sc.matches[0];
      assert.ok(distance(login, welcome) > 60);
      if (fast) {
        // (A picture of the sign-in may still be on its way: then the stream
        // answers; again until a screencap does.)
        assert.ok(await until(async () => {
          const caps = dev.entries('screencap').length;
          await srv.ok('click', { session: s.id, x: 10, y: 10 });
          const g = grid(await shot(srv, s.id));
          assert.ok(distance(g, welcome) < 24);
          return dev.entries('screencap').length === caps + 1;
        }), 'a tap that changed nothing: a screencap');
      }

      const at = (e) => ({ session: s.id, x: e.bounds.x + Math.floor(e.bounds.width / 2), y: e.bounds.y + Math.floor(e.bounds.height / 2) });
      let streamed = 0;
      const check = async (want, other, what) => {
        for (const which of ['first', 'second']) {
          const caps = dev.entries('screencap').length;
          const g = grid(await shot(srv, s.id));
          streamed += dev.entries('screencap').length === caps;
          assert.ok(distance(g, want) < distance(g, other), `${what}, ${which} screenshot: the new screen, not the old one`);
          assert.ok(distance(g, want) < 24, `${what}, ${which} screenshot: the new screen (worst cell ${distance(g, want).toFixed(1)})`);
        }
      };
      for (let i = 0; i < 4; i++) {
        await srv.ok('click', at(signOut));
        assert.equal(dev.login.signedInAs, null);
        await check(login, welcome, `sign out ${i}`);
        await srv.ok('click', at(user));
        await srv.ok('type_text', { session: s.id, text: 'ada' });
        await srv.ok('click', at(signIn));
        assert.equal(dev.login.signedInAs, 'ada');
        await check(welcome, login, `sign in ${i}`);
      }
      t.diagnostic(`${streamed} of 16 screenshots after a tap came from the stream`);
    });
  }

  test('the policy\'s redact areas are painted over stream screenshots too, where the screen has them', opts(), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const tmp = mkdtempSync(join(tmpdir(), 'gb-stream-policy-'));
    t.after(() => rmSync(tmp, { recursive: true, force: true }));
    const policy = join(tmp, 'policy.json');
    // Screen coordinates; the stream's picture is 702×1560 for this 720×1600 screen.
    writeFileSync(policy, JSON.stringify({ allow: ['android_connect', 'session_list'], redact: [{ x: 100, y: 400, width: 200, height: 200 }] }));
    const srv = await startServer(t, { args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0' } });
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream goes live');
    const before = dev.entries('screencap').length;
    let r;
    assert.ok(await until(async () => {
      r = await srv.ok('screenshot', { session: s.id });
      return dev.entries('screencap').length === before;
    }), 'a screenshot from the stream');
    assert.equal(r.sc.redacted, 1);
    const png = decodePng(imageOf(r).data);
    assert.deepEqual([png.width, png.height], [702, 1560]);
    assert.ok(Math.abs(r.sc.scale - 702 / 720) < 1e-3, `image pixels per screen coordinate: ${r.sc.scale}`);
    const at = (x, y) => [...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3)];
    const scale = 702 / 720;
    // Inside the area (in image pixels), grey; just outside it, the screen.
    for (const [x, y] of [[100, 400], [299, 599], [200, 500]]) {
      assert.deepEqual(at(Math.round(x * scale), Math.round(y * scale)), [0x60, 0x60, 0x60], `${x},${y} is painted over`);
    }
    assert.notDeepEqual(at(Math.round(320 * scale), Math.round(500 * scale)), [0x60, 0x60, 0x60], 'outside the area is the screen');
  });

  test('a picture from before the action that arrives after it is never served: the stream is behind until it catches up', opts(), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    const adbServer = `127.0.0.1:${adb.port}`;
    const s = (await srv.ok('android_connect', { adb_server: adbServer })).sc;
    const cap = (await srv.ok('android_connect', { adb_server: adbServer, stream: false })).sc;
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream goes live');
    const { user, signIn } = await openLogin(srv, s.id);
    const login = grid(await shot(srv, cap.id));
    // The frames of what follows are held back: the typed name (X), then the
    // welcome screen (Y).
    const hold = dev.holdScreenrecord();
    t.after(() => hold.done());
    await srv.ok('type_text', { session: s.id, ref: user.ref, text: 'ada' });
    await sleep(100); // the fake takes X
    await srv.ok('click', { session: s.id, ref: signIn.ref });
    assert.equal(dev.login.signedInAs, 'ada');
    await sleep(100); // and Y
    const welcome = grid(await shot(srv, cap.id));
    assert.ok(distance(login, welcome) > 60);
    const close = (g, want, other, what) => {
      assert.ok(distance(g, want) < distance(g, other), `${what}: the welcome screen`);
      assert.ok(distance(g, want) < 24, `${what} (worst cell ${distance(g, want).toFixed(1)})`);
    };
    // No picture since the action: a screencap, which shows more than the pictures.
    close(grid(await shot(srv, s.id)), welcome, login, 'right after sign in');
    // X, from before the click, arrives after it; then nothing for a while.
    hold.release(1);
    await sleep(1500);
    let caps = dev.entries('screencap').length;
    close(grid(await shot(srv, s.id)), welcome, login, 'after the stale picture came');
    assert.equal(dev.entries('screencap').length, caps + 1, 'a screencap: the stream is behind');
    // Y arrives: the stream has caught up, and serves the welcome screen.
    hold.done();
    assert.ok(await until(async () => {
      caps = dev.entries('screencap').length;
      close(grid(await shot(srv, s.id)), welcome, login, 'after the stream caught up');
      return dev.entries('screencap').length === caps;
    }), 'the stream serves again once it caught up');
  });

  // The screencap a stream is behind is compared block by block with each
  // new picture: one of another size (the stream's parameters changed
  // mid-stream) has more blocks than the screencap's were counted for, and
  // was compared past their end (an ASan report; random verdicts before).
  test('a stream that is behind and then changes its picture size keeps serving screenshots', opts(), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    const adbServer = `127.0.0.1:${adb.port}`;
    const s = (await srv.ok('android_connect', { adb_server: adbServer })).sc;
    const cap = (await srv.ok('android_connect', { adb_server: adbServer, stream: false })).sc;
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream goes live');
    const { user, signIn } = await openLogin(srv, s.id);
    const login = grid(await shot(srv, cap.id));
    const hold = dev.holdScreenrecord();
    t.after(() => hold.done());
    await srv.ok('type_text', { session: s.id, ref: user.ref, text: 'ada' });
    await srv.ok('click', { session: s.id, ref: signIn.ref });
    await sleep(100);
    const welcome = grid(await shot(srv, cap.id));
    // No picture since the action: a screencap, unlike the latest picture.
    let caps = dev.entries('screencap').length;
    await shot(srv, s.id);
    assert.equal(dev.entries('screencap').length, caps + 1, 'a screencap: the stream is behind');
    // The held pictures now come twice as large on each side.
    dev.screenrecordResize = { width: 2 * W, height: 2 * H };
    hold.done();
    await sleep(1500);
    for (let i = 0; i < 3; i++) {
      const g = grid(await shot(srv, s.id));
      assert.ok(distance(g, welcome) < distance(g, login), 'the welcome screen');
      assert.ok(distance(g, welcome) < 24, `the welcome screen (worst cell ${distance(g, welcome).toFixed(1)})`);
    }
    caps = dev.entries('screencap').length;
    assert.ok((await sessionOf(srv, s.id)), 'the session is still there');
  });

  test('stopping the session closes the stream: no adb connection, no encoder left', opts(), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream goes live');
    await srv.ok('click', { session: s.id, x: 10, y: 10 }); // the kept input shell too
    assert.ok(dev.encoders.size >= 1, 'an encoder runs while the stream does');
    await srv.ok('session_stop', { session: s.id });
    assert.ok(await until(() => dev.encoders.size === 0 && adb.server.sockets.size === 0, 10000),
      `encoders left: ${dev.encoders.size}, connections left: ${adb.server.sockets.size}`);
    for (const pid of dev.encoders) assert.fail(`ffmpeg ${pid} still runs`);
  });

  test('a stream that ends by itself is started again', opts(), async (t) => {
    const adb = await fake(t, { screenrecordLimit: 1 });
    const dev = adb.device();
    const srv = await startServer(t);
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    assert.ok(await until(() => dev.entries('screenrecord').length >= 3), 'screenrecord started again after each end');
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream is live again');
    const before = dev.entries('screencap').length;
    assert.ok(await until(async () => {
      await shot(srv, s.id);
      return dev.entries('screencap').length === before;
    }), 'screenshots come from the new stream');
  });

  test('pictures whose bytes come with a gap: the stream waits longer for the rest, and shows the screen', opts(), async (t) => {
    const adb = await fake(t, { screenrecordGapMs: 25 });
    const dev = adb.device();
    const srv = await startServer(t);
    const adbServer = `127.0.0.1:${adb.port}`;
    const s = (await srv.ok('android_connect', { adb_server: adbServer })).sc;
    const cap = (await srv.ok('android_connect', { adb_server: adbServer, stream: false })).sc;
    // A gap longer than the silence that ends a picture: the decoder sees the
    // rest come after it, the stream starts again waiting longer, until it fits.
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream goes live');
    const reference = grid(await shot(srv, cap.id));
    const before = dev.entries('screencap').length;
    let img;
    assert.ok(await until(async () => {
      img = await shot(srv, s.id);
      return dev.entries('screencap').length === before;
    }), 'screenshots come from the stream');
    assert.ok(distance(grid(img), reference) < 24, 'and show the screen');
    assert.ok(dev.entries('screenrecord').length >= 2, 'the first stream was given up for a longer wait');
  });

  test('the next screenrecord takes over before the time limit, and the old one stops', opts(), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    // Renewal every 1.5 s instead of 170 s (screenrecord's limit is 180 s).
    const srv = await startServer(t, { env: { GLOVEBOX_ANDROID_STREAM_RENEW_MS: '1500' } });
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    let most = 0;
    const sampler = setInterval(() => { most = Math.max(most, dev.encoders.size); }, 10);
    t.after(() => clearInterval(sampler));
    assert.ok(await until(() => dev.entries('screenrecord').length >= 4), 'screenrecord renewed again and again');
    // Each takeover stops the one before: never more than the current and the next.
    assert.ok(await until(() => dev.encoders.size === 1 || dev.entries('screenrecord').length >= 8));
    clearInterval(sampler);
    assert.ok(most <= 2, `at most two screenrecords at once, saw ${most}`);
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'live across takeovers');
    const before = dev.entries('screencap').length;
    assert.ok(await until(async () => {
      await shot(srv, s.id);
      return dev.entries('screencap').length === before;
    }), 'screenshots come from the stream after takeovers');
    await srv.ok('session_stop', { session: s.id });
    assert.ok(await until(() => dev.encoders.size === 0 && adb.server.sockets.size === 0, 10000), 'nothing left after the end');
  });

  // fails-latin1: the device's words are not UTF-8; the note still says them.
  for (const [kind, words] of [['old', /unrecognized option '--output-format=h264'/], ['fails', /unable to configure video\/avc codec/],
    ['fails-latin1', /unable to configure video\/avc codec .*\(encodeur r\uFFFDfus\uFFFD\)/]]) {
    test(`a device whose screenrecord fails (${kind}) is served by screencap, with a note`, opts(), async (t) => {
      const adb = await fake(t, { screenrecord: kind });
      const dev = adb.device();
      const srv = await startServer(t);
      const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
      const entry = await until(async () => {
        const e = await sessionOf(srv, s.id);
        return e.stream === 'failed' ? e : null;
      });
      assert.ok(entry, 'the stream gives up');
      assert.match(entry.stream_note, /screenshots by screencap/);
      assert.match(entry.stream_note, words);
      const before = dev.entries('screencap').length;
      const img = await shot(srv, s.id);
      assert.deepEqual([img.width, img.height], [705, 1567]);
      assert.equal(dev.entries('screencap').length, before + 1);
    });
  }

  test('an encoder that refuses the smaller size: the stream runs at the screen\'s own size', opts(), async (t) => {
    const adb = await fake(t, { screenrecord: 'sized-fails' });
    const dev = adb.device();
    const srv = await startServer(t);
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    assert.ok(await until(async () => (await sessionOf(srv, s.id)).stream === 'live'), 'the stream goes live');
    const rec = dev.entries('screenrecord');
    assert.deepEqual(rec[0].size, { width: 702, height: 1560 });
    assert.deepEqual(rec.at(-1).size, { width: W, height: H }, 'then without --size');
    const before = dev.entries('screencap').length;
    let img;
    assert.ok(await until(async () => {
      img = await shot(srv, s.id);
      return dev.entries('screencap').length === before;
    }), 'screenshots come from the stream');
    assert.deepEqual([img.width, img.height], [705, 1567], 'scaled to the default fit by the pipeline');
  });

  test('stream: false never starts screenrecord', opts(), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}`, stream: false })).sc;
    await shot(srv, s.id);
    await srv.ok('click', { session: s.id, x: 10, y: 10 });
    await shot(srv, s.id);
    assert.equal(dev.entries('screenrecord').length, 0);
    assert.equal(dev.entries('screencap').length, 2);
  });
});
