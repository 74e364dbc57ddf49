// Recordings of every kind: desktops record too, in GIF, animated WebP and
// WebM video; frames only when the screen changed; limits stop a recording
// and keep what it has; a session stopped while recording keeps its
// recording as a resource; files appear only whole; old recordings are
// pruned; terminals record in WebP.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { element, launchShell, startDesktop } from '../lib/desktop.mjs';
import { readWebm, readWebp } from '../lib/media.mjs';
import { sleep } from '../lib/server.mjs';
import { assertColour, decodeGif, decodePng, desktopOpts, imageOf, ms, pixel, startServer, tempDir, terminalOpts, topts, until } from '../lib/terminal.mjs';

const W = 320;
const H = 240;

/** Sets the desktop's background colour and waits until a screenshot shows it. */
async function paintRoot(srv, session, colour, rgb) {
  await srv.ok('launch_app', { session, command: ['xsetroot', '-solid', colour] });
  await until(async () => {
    const png = decodePng(imageOf(await srv.ok('screenshot', { session })).data);
    const p = pixel(png, 5, 5);
    return p[0] === rgb[0] && p[1] === rgb[1] && p[2] === rgb[2];
  }, ms(15000), `the background to turn ${colour}`);
}

function recordingsDir(srv) {
  return join(srv.dataDir, 'recordings');
}

function assertNoTemporaryFiles(srv, list) {
  const names = readdirSync(recordingsDir(srv));
  assert.ok(!names.some((n) => n.includes('.tmp-')), `temporary files visible: ${names}`);
  assert.ok(!list.resources.some((r) => r.uri.includes('.tmp')), JSON.stringify(list.resources));
}

function lastGifPixel(gif, x, y) {
  const px = new Uint8Array(gif.width * gif.height * 4);
  for (let i = 0; i < gif.numFrames(); i++) gif.decodeAndBlitFrameRGBA(i, px);
  const i = (y * gif.width + x) * 4;
  return [px[i], px[i + 1], px[i + 2]];
}

test('a desktop records in gif, webp and webm: files a player decodes, at the screen size', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: W, height: H });
  const colours = [
    ['red', [255, 0, 0]],
    ['blue', [0, 0, 255]],
  ];
  for (const format of ['gif', 'webp', 'webm']) {
    const start = await srv.ok('record_start', { session, format, fps: 10 });
    assert.equal(start.sc.format, format);
    assert.equal(start.sc.fps, 10);
    for (const [name, rgb] of colours) await paintRoot(srv, session, name, rgb);
    colours.reverse();
    const stop = await srv.ok('record_stop', { session });
    const r = stop.sc;
    assert.equal(r.format, format);
    assert.equal(r.recording, start.sc.recording);
    assert.equal(r.path, join(recordingsDir(srv), `${r.recording}.${format}`));
    assert.equal(r.bytes, statSync(r.path).size);
    assert.equal(r.truncated, false);
    assert.equal(r.stopped_reason, null);
    // The first picture and the last (record_stop takes a last look); the
    // colour between may fall between two samples.
    assert.ok(r.frames >= 2, `${format}: ${r.frames} frames`);
    const file = readFileSync(r.path);
    const link = stop.content.find((c) => c.type === 'resource_link');
    assert.equal(link.uri, `glovebox://recording/${r.recording}`);
    if (format === 'gif') {
      assert.equal(link.mimeType, 'image/gif');
      const gif = decodeGif(file);
      assert.equal(gif.width, W);
      assert.equal(gif.height, H);
      assert.equal(gif.numFrames(), r.frames);
      // It ends on what the screen showed last.
      assert.deepEqual(lastGifPixel(gif, 5, 5), colours[0][1]);
    } else if (format === 'webp') {
      assert.equal(link.mimeType, 'image/webp');
      const webp = readWebp(file);
      assert.equal(webp.width, W);
      assert.equal(webp.height, H);
      assert.ok(webp.frames >= 2 && webp.frames <= r.frames, `${webp.frames} WebP frames of ${r.frames}`);
    } else {
      assert.equal(link.mimeType, 'video/webm');
      const webm = readWebm(file);
      assert.equal(webm.docType, 'webm');
      assert.equal(webm.codec, 'V_VP9');
      assert.equal(webm.width, W);
      assert.equal(webm.height, H);
      assert.ok(webm.blocks >= r.frames, `${webm.blocks} video blocks for ${r.frames} frames`);
    }
    const read = await srv.client.readResource({ uri: r.uri });
    assert.equal(read.contents[0].mimeType, r.mime_type);
    assert.ok(Buffer.from(read.contents[0].blob, 'base64').equals(file), `${format}: the resource is not the file`);
    assertNoTemporaryFiles(srv, await srv.client.listResources());
  }
  await srv.err('record_start', { session, format: 'mp3' }, /format/);
  await srv.err('record_start', { session, fps: 31 }, /"fps" is at most 30 for desktop sessions/);
});

test('a still desktop gives one frame however long it is recorded', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: W, height: H });
  await srv.ok('record_start', { session, fps: 20 });
  await sleep(1500);
  const r = (await srv.ok('record_stop', { session })).sc;
  assert.ok(r.duration_ms >= 1400, `duration ${r.duration_ms} ms`);
  assert.equal(r.frames, 1, `a still screen at 20 fps for ${r.duration_ms} ms gave ${r.frames} frames`);
  assert.equal(decodeGif(readFileSync(r.path)).numFrames(), 1);
});

test('a desktop recording stops by itself at max_bytes and max_duration_s, keeping its frames', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: W, height: H });

  // A full 320×240 picture is 300 KiB: the first frame is kept, a changed
  // one after it does not fit in 64 KiB more.
  await srv.ok('record_start', { session, max_bytes: 65536 });
  await paintRoot(srv, session, 'red', [255, 0, 0]);
  // The next sample sees the change and stops the recording.
  await until(async () => /stopped by itself \(max_bytes reached/.test(await srv.err('record_start', { session })), ms(15000), 'the size limit');
  let r = (await srv.ok('record_stop', { session })).sc;
  assert.equal(r.truncated, true);
  assert.match(r.stopped_reason, /^max_bytes reached/);
  assert.equal(r.frames, 1);
  assert.equal(decodeGif(readFileSync(r.path)).numFrames(), 1);

  await srv.ok('record_start', { session, max_duration_s: 1, format: 'webp' });
  await until(async () => /stopped by itself/.test(await srv.err('record_start', { session })), ms(15000), 'the duration limit');
  r = (await srv.ok('record_stop', { session })).sc;
  assert.equal(r.stopped_reason, 'max_duration_s reached (1 s)');
  assert.equal(r.duration_ms, 1000);
  assert.equal(readWebp(readFileSync(r.path)).width, W);
});

test('a desktop stopped while recording keeps its recording, listed and readable', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: W, height: H });
  const start = await srv.ok('record_start', { session, format: 'webp' });
  await paintRoot(srv, session, 'red', [255, 0, 0]);
  await srv.ok('session_stop', { session });
  const uri = `glovebox://recording/${start.sc.recording}`;
  const list = await until(async () => {
    const l = await srv.client.listResources();
    return l.resources.some((r) => r.uri === uri) && l;
  }, ms(15000), `${uri} in resources/list`);
  const entry = list.resources.find((r) => r.uri === uri);
  assert.equal(entry.mimeType, 'image/webp');
  const read = await srv.client.readResource({ uri });
  const webp = readWebp(Buffer.from(read.contents[0].blob, 'base64'));
  assert.equal(webp.width, W);
  assert.ok(webp.frames >= 1, `${webp.frames} frames`);
  assertNoTemporaryFiles(srv, list);
  await srv.err('record_stop', { session }, new RegExp(`was written when the session ended \\(${uri}\\)`));
});

const mapsLibav = (pid) => /libav(codec|format|util)\.so/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));

test('a terminal records in webp and webm; the video libraries load only for video', terminalOpts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 30, rows: 5 });
  const shot = await srv.ok('screenshot', { session: s.id });
  for (const format of ['webp', 'webm']) {
    assert.equal(mapsLibav(srv.pid), false, `libav* mapped before a ${format} recording`);
    const start = await srv.ok('record_start', { session: s.id, format });
    assert.equal(start.sc.format, format);
    await srv.run(s.id, `printf '%s-%s\\n' ${format} one`, `^${format}-one$`);
    await srv.run(s.id, `printf '%s-%s\\n' ${format} two`, `^${format}-two$`);
    const r = (await srv.ok('record_stop', { session: s.id })).sc;
    assert.equal(r.path, join(recordingsDir(srv), `${r.recording}.${format}`));
    assert.ok(r.frames >= 2, `frames ${r.frames}`);
    const file = readFileSync(r.path);
    if (format === 'webp') {
      assert.equal(r.mime_type, 'image/webp');
      const webp = readWebp(file);
      assert.equal(webp.width, shot.sc.width);
      assert.equal(webp.height, shot.sc.height);
      assert.ok(webp.frames >= 2, `${webp.frames} WebP frames`);
    } else {
      assert.equal(r.mime_type, 'video/webm');
      const webm = readWebm(file);
      assert.equal(webm.codec, 'V_VP9');
      assert.equal(webm.width, shot.sc.width + (shot.sc.width & 1));
      assert.equal(mapsLibav(srv.pid), true, 'libav* not mapped after a webm recording');
    }
  }
});

test('a terminal stopped while recording keeps its recording', terminalOpts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 30, rows: 5 });
  const start = await srv.ok('record_start', { session: s.id });
  await srv.run(s.id, `printf '%s-%s\\n' still here`, '^still-here$');
  await srv.ok('session_stop', { session: s.id });
  const uri = `glovebox://recording/${start.sc.recording}`;
  await until(async () => (await srv.client.listResources()).resources.some((r) => r.uri === uri), ms(15000), uri);
  const read = await srv.client.readResource({ uri });
  assert.ok(decodeGif(Buffer.from(read.contents[0].blob, 'base64')).numFrames() >= 1);
});

test('recordings are pruned by age and total size; numbering goes on from the folder', terminalOpts(), async (t) => {
  const dir0 = { env: { GLOVEBOX_RECORDINGS_MAX_BYTES: '1', GLOVEBOX_RECORDINGS_MAX_AGE_S: String(7 * 86400) } };
  const srv = await startServer(t, dir0);
  // What an earlier run left: an old recording, a stale and a fresh
  // temporary file (the fresh one may be another server's, still writing).
  const rec = recordingsDir(srv);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(rec, { recursive: true });
  const old = join(rec, 'recording-41.gif');
  const stale = join(rec, 'recording-7.gif.tmp-abcdef');
  const fresh = join(rec, 'recording-8.gif.tmp-ghijkl');
  for (const f of [old, stale, fresh]) writeFileSync(f, 'x');
  const longAgo = Date.now() / 1000 - 30 * 86400;
  utimesSync(old, longAgo, longAgo);
  utimesSync(stale, longAgo, longAgo);

  const s = await srv.bash({ cols: 20, rows: 3 });
  const first = await srv.ok('record_start', { session: s.id });
  // Numbers go on after what the folder holds, so nothing is overwritten.
  assert.equal(first.sc.recording, 'recording-42');
  const a = (await srv.ok('record_stop', { session: s.id })).sc;
  let names = readdirSync(rec).sort();
  assert.deepEqual(names, ['recording-42.gif', 'recording-8.gif.tmp-ghijkl']);

  // A budget of one byte keeps only the newest recording.
  await srv.ok('record_start', { session: s.id });
  await srv.run(s.id, `printf '%s-%s\\n' second one`, '^second-one$');
  const b = (await srv.ok('record_stop', { session: s.id })).sc;
  names = readdirSync(rec).sort();
  assert.deepEqual(names, [`${b.recording}.gif`, 'recording-8.gif.tmp-ghijkl']);
  const uris = (await srv.client.listResources()).resources.map((r) => r.uri);
  assert.ok(uris.includes(b.uri), JSON.stringify(uris));
  assert.ok(!uris.includes(a.uri), `${a.uri} was pruned but is still listed`);
  await assert.rejects(srv.client.readResource({ uri: a.uri }), /no such recording/);
});

test('a desktop recording still running when glovebox shuts down is written anyway', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: W, height: H });
  const start = await srv.ok('record_start', { session, format: 'webm' });
  await paintRoot(srv, session, 'red', [255, 0, 0]);
  await srv.close();
  const path = join(recordingsDir(srv), `${start.sc.recording}.webm`);
  const webm = readWebm(readFileSync(path));
  assert.equal(webm.codec, 'V_VP9');
  assert.equal(webm.width, W);
  assert.ok(webm.blocks >= 1);
  // Finished, not cut off: the index (cues) is written last.
  assert.ok(webm.cues >= 1, 'no cues: the video was not finished');
  assert.deepEqual(readdirSync(recordingsDir(srv)), [`${start.sc.recording}.webm`]);
  assert.ok(srv.stderr().includes(path), 'the path of the rescued recording is logged');
});

test('a password field is painted over in every frame of a desktop recording, as in screenshots', desktopOpts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv);
  await launchShell(srv, session, tempDir(t, 'glovebox-rec-'), 'pw', 'zenity --password --title Secret');
  await srv.ok('wait_for', { session, text: 'Password', timeout_ms: ms(15000) });
  const field = element((await srv.ok('snapshot', { session, app: 'zenity' })).sc, 'password text');
  const start = await srv.ok('record_start', { session, fps: 10 });
  await srv.ok('type_text', { session, ref: field.ref, text: 'hunter2' });
  const r = (await srv.ok('record_stop', { session })).sc;
  assert.equal(r.recording, start.sc.recording);
  const gif = decodeGif(readFileSync(r.path));
  const px = new Uint8Array(gif.width * gif.height * 4);
  const b = field.bounds;
  const points = [[b.x + 1, b.y + 1], [b.x + b.width - 2, b.y + b.height - 2], [b.x + b.width / 2, b.y + b.height / 2]];
  for (let i = 0; i < gif.numFrames(); i++) {
    gif.decodeAndBlitFrameRGBA(i, px);
    for (const [x, y] of points) {
      const at = (Math.floor(y) * gif.width + Math.floor(x)) * 4;
      // 0x60 grey, as near as GIF's fixed palette comes.
      assertColour([px[at], px[at + 1], px[at + 2]], [0x60, 0x60, 0x60], 4, `frame ${i} pixel ${x},${y}`);
    }
  }
});
