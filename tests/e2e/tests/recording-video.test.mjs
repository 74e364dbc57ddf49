// WebM recordings stream: frames are encoded as they come on the
// recording's encoder thread and written at once, so a long recording of a
// busy screen keeps the server's memory flat, record_stop only flushes and
// indexes, max_bytes limits the file, and a session that ends while
// recording still leaves a whole, indexed video.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';

import { startDesktop } from '../lib/desktop.mjs';
import { readWebm } from '../lib/media.mjs';
import { sleep } from '../lib/server.mjs';
import { SANITIZED, imageOf, ms, startServer, topts, until } from '../lib/terminal.mjs';

const MiB = 1024 * 1024;
// Rows of numbers across the whole xterm, all different in each screenful:
// every frame changes (nearly) the whole window.
const BUSY = "i=0; while :; do i=$((i+1)); awk -v i=$i 'BEGIN { for (r = 0; r < 60; r++) { s = \"\"; for (c = 0; c < 33; c++) s = s sprintf(\"%6d\", i * 7 + r * 33 + c); print s } }'; sleep 0.03; done";

function rssBytes(pid) {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1];
  return Number(kb) * 1024;
}

/** Starts an xterm (geometry: its size in cells) filling it with numbers
 * for good (BUSY), and waits until two screenshots differ (it is
 * drawing). */
async function busyScreen(srv, session, geometry) {
  await srv.ok('launch_app', {
    session,
    command: ['xterm', '-geometry', geometry, '-e', 'sh', '-c', BUSY],
  });
  const shot = async () => Buffer.from(imageOf(await srv.ok('screenshot', { session, format: 'png' })).data, 'base64');
  await until(async () => {
    const a = await shot();
    await sleep(150);
    return !a.equals(await shot());
  }, ms(20000), 'the xterm to draw');
}

function assertWholeVideo(r, width, height) {
  const file = readFileSync(r.path);
  assert.equal(r.bytes, statSync(r.path).size);
  const webm = readWebm(file);
  assert.equal(webm.codec, 'V_VP9');
  assert.equal(webm.width, width);
  assert.equal(webm.height, height);
  // Every encoded frame is a block, plus the last picture repeated at the end.
  assert.ok(webm.blocks >= r.frames, `${webm.blocks} blocks for ${r.frames} frames`);
  // The index is written only when the file is finished.
  assert.ok(webm.cues >= 1, 'no cues: the file was not finished');
  return webm;
}

test('a long webm recording of a busy desktop keeps memory flat and decodes whole', topts({ timeout: ms(180000) }), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 1280, height: 800 });
  await busyScreen(srv, session, '200x58+0+0');

  const short = await srv.ok('record_start', { session, format: 'webm', fps: 10, max_bytes: 268435456 });
  await sleep(1000);
  const a = (await srv.ok('record_stop', { session })).sc;
  assert.equal(a.recording, short.sc.recording);
  const shortVideo = assertWholeVideo(a, 1280, 800);

  // The old way held every changed picture (up to 4 MB each at 1280×800)
  // until record_stop: 8 s of a scrolling xterm grew the server by
  // hundreds of MiB. Streaming holds one or two pictures.
  await srv.ok('record_start', { session, format: 'webm', fps: 10, max_bytes: 268435456 });
  await sleep(2000);
  const rss2 = rssBytes(srv.pid);
  await sleep(6000);
  const rssEnd = rssBytes(srv.pid);
  // It answers (and says what it wrote) however long the recording ran.
  const b = (await srv.ok('record_stop', { session })).sc;
  assert.equal(b.stopped_reason, null);
  assert.equal(b.truncated, false);
  assert.ok(Number.isInteger(b.frames_dropped) && b.frames_dropped >= 0, JSON.stringify(b));
  const longVideo = assertWholeVideo(b, 1280, 800);
  assert.ok(b.frames > a.frames, `${b.frames} frames in ${b.duration_ms} ms, ${a.frames} in ${a.duration_ms} ms`);
  assert.ok(longVideo.blocks > shortVideo.blocks, `${longVideo.blocks} blocks vs ${shortVideo.blocks}`);
  assert.ok(Math.abs(longVideo.durationMs - b.duration_ms) < 1500, `video lasts ${longVideo.durationMs} ms, the recording ${b.duration_ms} ms`);
  // AddressSanitizer keeps freed memory in quarantine (up to 256 MiB), so
  // RSS says nothing about live memory there.
  if (!SANITIZED)
    assert.ok(rssEnd - rss2 < 48 * MiB, `RSS grew from ${(rss2 / MiB).toFixed(1)} MiB at 2 s to ${(rssEnd / MiB).toFixed(1)} MiB at 8 s`);
});

test('a webm recording stops at max_bytes with its file within max_bytes, whole and playable', topts({ timeout: ms(120000) }), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 480, height: 360 });
  await busyScreen(srv, session, '80x26+0+0');
  const limited = async (maxBytes) => {
    await srv.ok('record_start', { session, format: 'webm', fps: 10, max_bytes: maxBytes });
    await until(async () => /stopped by itself \(max_bytes reached/.test(await srv.err('record_start', { session })), ms(60000), 'the size limit');
    const r = (await srv.ok('record_stop', { session })).sc;
    assert.equal(r.truncated, true);
    assert.match(r.stopped_reason, new RegExp(`^max_bytes reached \\(the file holds \\d+ bytes, the next frame did not fit in ${maxBytes}\\)$`));
    assert.ok(r.frames >= 1, `${r.frames} frames`);
    assertWholeVideo(r, 480, 360);
    return r;
  };
  // Several frames fit: the file stops short of the limit.
  let r = await limited(400000);
  assert.ok(r.frames >= 2, `${r.frames} frames in ${r.bytes} bytes`);
  assert.ok(r.bytes <= 400000, `${r.bytes} bytes`);
  // The first frame is written even when it alone is over the limit.
  r = await limited(65536);
  assert.ok(r.bytes <= 65536 || r.frames === 1, `${r.frames} frames in ${r.bytes} bytes`);
});

test('a terminal recorded as webm and stopped mid-stream leaves a whole, indexed video', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 60, rows: 12 });
  const start = await srv.ok('record_start', { session: s.id, format: 'webm', fps: 20 });
  await srv.type(s.id, 'i=0; while :; do i=$((i+1)); seq $i $((i+29)); sleep 0.02; done\n');
  await sleep(1500);
  await srv.ok('session_stop', { session: s.id });
  const uri = `glovebox://recording/${start.sc.recording}`;
  await until(async () => (await srv.client.listResources()).resources.some((r) => r.uri === uri), ms(15000), uri);
  const read = await srv.client.readResource({ uri });
  assert.equal(read.contents[0].mimeType, 'video/webm');
  const webm = readWebm(Buffer.from(read.contents[0].blob, 'base64'));
  assert.equal(webm.codec, 'V_VP9');
  assert.ok(webm.blocks >= 2, `${webm.blocks} blocks`);
  assert.ok(webm.cues >= 1, 'no cues: the file was not finished');
});
