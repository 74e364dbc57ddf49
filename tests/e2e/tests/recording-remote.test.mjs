// Recordings of vnc and webdriver sessions: the shared recorder fed with
// the frames their screenshots are made of, sampled at fps — a GIF of a
// real Xvnc whose root window changes colour, a GIF of a page in headless
// Chromium; password fields painted over in every frame; a session that
// ends while recording keeps its recording.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { test } from 'node:test';

import { readWebp } from '../lib/media.mjs';
import { needs } from '../lib/server.mjs';
import { decodeGif, decodePng, imageOf, ms, pixel, startServer, topts, until } from '../lib/terminal.mjs';
import { startXvnc, xrun } from '../lib/vnc.mjs';

function lastGifPixel(gif, x, y) {
  const px = new Uint8Array(gif.width * gif.height * 4);
  for (let i = 0; i < gif.numFrames(); i++) gif.decodeAndBlitFrameRGBA(i, px);
  const i = (y * gif.width + x) * 4;
  return [px[i], px[i + 1], px[i + 2]];
}

const close = (a, b) => a.every((v, i) => Math.abs(v - b[i]) < 9);

test('a vnc session records a GIF of what its screen shows, and keeps a recording when it ends', needs('vnc', topts({ timeout: ms(90000) })), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  xrun(xvnc, 'xsetroot', ['-solid', '#ff0000']);
  const srv = await startServer(t);
  const { sc } = await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display });
  const start = await srv.ok('record_start', { session: sc.id, format: 'gif', fps: 10 });
  assert.equal(start.sc.fps, 10);
  await srv.err('record_start', { session: sc.id }, /already being recorded/);
  for (const [colour, rgb] of [['#0000ff', [0, 0, 255]], ['#00ff00', [0, 255, 0]]]) {
    xrun(xvnc, 'xsetroot', ['-solid', colour]);
    await until(async () => close(pixel(decodePng(imageOf(await srv.ok('screenshot', { session: sc.id })).data), 5, 5), rgb), ms(10000), `the screen to turn ${colour}`);
  }
  const stop = await srv.ok('record_stop', { session: sc.id });
  assert.ok(stop.sc.frames >= 2, `${stop.sc.frames} frames`);
  const gif = decodeGif(readFileSync(stop.sc.path));
  assert.equal(gif.width, 320);
  assert.equal(gif.height, 240);
  assert.ok(close(lastGifPixel(gif, 5, 5), [0, 255, 0]), 'it ends on the last colour');
  await srv.err('record_start', { session: sc.id, fps: 31 }, /"fps" is at most 30 for vnc sessions/);

  // Ended while recording: written, indexed, and record_stop says where.
  const again = await srv.ok('record_start', { session: sc.id, format: 'webp' });
  await srv.ok('session_stop', { session: sc.id });
  const uri = `glovebox://recording/${again.sc.recording}`;
  await until(async () => (await srv.client.listResources()).resources.some((r) => r.uri === uri), ms(15000), `${uri} listed`);
  const read = await srv.client.readResource({ uri });
  assert.equal(readWebp(Buffer.from(read.contents[0].blob, 'base64')).width, 320);
});

const haveBrowser = ['/usr/bin/chromium', '/usr/bin/chromedriver'].every((p) => existsSync(p));

test('a webdriver session records a GIF of its page, password fields painted over in every frame', needs('webdriver', topts({ timeout: ms(120000), ...(haveBrowser ? {} : { skip: 'chromium and chromedriver are not installed' }) })), async (t) => {
  const site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><body style="margin:0; background: rgb(255,0,0)">
<input type="password" value="secret" style="position:absolute; left:10px; top:10px; width:200px; height:40px; background: white; border: 0">
<button style="position:absolute; left:10px; top:100px; width:100px; height:40px" onclick="document.body.style.background='rgb(0,0,255)'">Blue</button></body>`);
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  t.after(() => site.close());
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { width: 640, height: 480 });
  await srv.ok('open_url', { url: `http://127.0.0.1:${site.address().port}/` });
  const start = await srv.ok('record_start', { format: 'gif', fps: 5 });
  assert.equal(start.sc.fps, 5);
  await new Promise((r) => setTimeout(r, 600));
  await srv.ok('click', { text: 'Blue' });
  await until(async () => close(pixel(decodePng(imageOf(await srv.ok('screenshot', {})).data), 300, 140), [0, 0, 255]), ms(10000), 'the page to turn blue');
  const stop = await srv.ok('record_stop', {});
  assert.ok(stop.sc.frames >= 2, `${stop.sc.frames} frames`);
  const gif = decodeGif(readFileSync(stop.sc.path));
  assert.equal(gif.width, 640);
  const px = new Uint8Array(gif.width * gif.height * 4);
  for (let i = 0; i < gif.numFrames(); i++) {
    gif.decodeAndBlitFrameRGBA(i, px);
    const at = (x, y) => [px[(y * gif.width + x) * 4], px[(y * gif.width + x) * 4 + 1], px[(y * gif.width + x) * 4 + 2]];
    assert.ok(close(at(100, 30), [0x60, 0x60, 0x60]), `frame ${i}: the password field is painted over (${at(100, 30)})`);
  }
  assert.ok(close(lastGifPixel(gif, 300, 140), [0, 0, 255]), 'it ends on the blue page');
  await srv.err('record_start', { fps: 11 }, /"fps" is at most 10 for webdriver sessions/);
  await srv.close();
});
