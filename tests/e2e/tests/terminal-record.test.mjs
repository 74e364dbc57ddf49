// Recording terminal sessions to animated GIFs: frames follow the screen at
// most fps a second, the file is a real GIF of the screen, it is served as a
// resource, and a recording survives its program and glovebox's shutdown.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

import { decodeGif, ms, startServer, terminalOpts as topts } from '../lib/terminal.mjs';

/** Composites every frame of a GIF in order; returns the final RGBA pixels. */
function lastPicture(gif) {
  const pixels = new Uint8Array(gif.width * gif.height * 4);
  for (let i = 0; i < gif.numFrames(); i++) gif.decodeAndBlitFrameRGBA(i, pixels);
  return pixels;
}

function rgbAt(gif, pixels, x, y) {
  const i = (y * gif.width + x) * 4;
  return [pixels[i], pixels[i + 1], pixels[i + 2]];
}

test('record_start/record_stop writes an animated GIF of the screen', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 40, rows: 8 });
  const shot = await srv.ok('screenshot', { session: s.id });
  const start = await srv.ok('record_start', { session: s.id, fps: 5 });
  assert.match(start.sc.recording, /^recording-\d+$/);
  assert.equal(start.sc.fps, 5);
  await srv.err('record_start', { session: s.id }, /already being recorded/);

  // About 1.2 s of output, then a red block in the top-left corner.
  await srv.type(
    s.id,
    "for i in $(seq 1 12); do echo tick-$i; sleep 0.1; done; printf '\\e[H\\e[2J\\e[48;5;196m    \\e[0m\\n%s-%s\\n' rec done\n",
  );
  await srv.waitFor(s.id, { regex: '^rec-done$' }, ms(15000));
  await srv.waitFor(s.id, { regex: '^gb\\$$' });
  const stop = await srv.ok('record_stop', { session: s.id });
  const r = stop.sc;
  assert.equal(r.recording, start.sc.recording);
  assert.ok(r.frames >= 2, `frames ${r.frames}`);
  assert.ok(r.duration_ms >= 1000, `duration ${r.duration_ms} ms`);
  // At most 5 frames a second (plus the first and the last).
  assert.ok(r.frames <= Math.ceil(r.duration_ms / 200) + 2, `${r.frames} frames in ${r.duration_ms} ms at 5 fps`);
  assert.equal(r.path, join(srv.dataDir, 'recordings', `${r.recording}.gif`));
  assert.ok(existsSync(r.path), r.path);
  assert.equal(r.bytes, statSync(r.path).size);
  assert.equal(r.uri, `glovebox://recording/${r.recording}`);
  // No temporary file is left beside it.
  assert.deepEqual(readdirSync(dirname(r.path)), [`${r.recording}.gif`]);

  const link = stop.content.find((c) => c.type === 'resource_link');
  assert.ok(link, JSON.stringify(stop.content));
  assert.equal(link.uri, r.uri);
  assert.equal(link.mimeType, 'image/gif');

  const file = readFileSync(r.path);
  assert.equal(file.subarray(0, 6).toString('latin1'), 'GIF89a');
  const gif = decodeGif(file);
  // Identical consecutive frames are merged into one shown longer.
  assert.ok(gif.numFrames() >= 2 && gif.numFrames() <= r.frames, `${gif.numFrames()} GIF frames, ${r.frames} recorded`);
  assert.equal(gif.width, shot.sc.width);
  assert.equal(gif.height, shot.sc.height);
  // Each frame is shown for as long as the screen stayed so: the delays add
  // up to the recording's duration (each rounded down to 10 ms, at least 20).
  let delayMs = 0;
  for (let i = 0; i < gif.numFrames(); i++) delayMs += gif.frameInfo(i).delay * 10;
  assert.ok(Math.abs(delayMs - r.duration_ms) <= 20 * r.frames + 50, `delays ${delayMs} ms, duration ${r.duration_ms} ms`);
  // The last picture is the last screen: the red block at the top left.
  const cw = gif.width / 40;
  const ch = gif.height / 8;
  const px = lastPicture(gif);
  const red = rgbAt(gif, px, Math.floor(cw), Math.floor(ch / 2));
  assert.deepEqual(red, [255, 0, 0], `top-left of the last frame is rgb(${red})`);

  // Served as a resource.
  const read = await srv.client.readResource({ uri: r.uri });
  assert.equal(read.contents[0].mimeType, 'image/gif');
  assert.ok(Buffer.from(read.contents[0].blob, 'base64').equals(file), 'the resource is not the file');
  const list = await srv.client.listResources();
  assert.ok(list.resources.some((x) => x.uri === r.uri && x.mimeType === 'image/gif'), JSON.stringify(list.resources));

  // Stopped means stopped.
  await srv.err('record_stop', { session: s.id }, /not being recorded/);
  // A second recording of the same session gets a new id.
  const again = await srv.ok('record_start', { session: s.id });
  assert.notEqual(again.sc.recording, r.recording);
});

test('a recording survives its program exiting; record_stop works afterwards', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['bash', '-c', 'echo one; read x; echo "got-$x"; exit 2'], cols: 30, rows: 5 });
  await srv.waitFor(s.id, { regex: '^one$' });
  await srv.ok('record_start', { session: s.id });
  await srv.type(s.id, 'hi\n');
  const w = await srv.waitFor(s.id, { exit: true });
  assert.equal(w.exit_status, 2);
  // The program is gone; starting a new recording is refused, stopping is not.
  await srv.err('record_start', { session: s.id }, /has ended/);
  const stop = await srv.ok('record_stop', { session: s.id });
  assert.ok(stop.sc.frames >= 2, `frames ${stop.sc.frames}`);
  const gif = decodeGif(readFileSync(stop.sc.path));
  assert.ok(gif.numFrames() >= 2, `${gif.numFrames()} GIF frames`);
  const read = await srv.client.readResource({ uri: stop.sc.uri });
  assert.equal(read.contents[0].mimeType, 'image/gif');
});

test('record_stop without record_start, and a bad fps, are errors', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['cat'] });
  const text = await srv.err('record_stop', { session: s.id });
  assert.match(text, /not being recorded/);
  assert.match(text, new RegExp(s.id));
  await srv.err('record_start', { session: s.id, fps: 0 }, /"fps"/);
  await srv.err('record_start', { session: s.id, fps: 51 }, /"fps"/);
  await srv.err('record_stop', { session: 'terminal-999' }, /unknown session "terminal-999"/);
});

test('a recording still running when glovebox shuts down is written anyway', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 30, rows: 5 });
  const start = await srv.ok('record_start', { session: s.id });
  await srv.run(s.id, `printf '%s-%s\\n' before exit`, '^before-exit$');
  await srv.close();
  const path = join(srv.dataDir, 'recordings', `${start.sc.recording}.gif`);
  assert.ok(existsSync(path), `${path} was not written; stderr:\n${srv.stderr()}`);
  const gif = decodeGif(readFileSync(path));
  assert.ok(gif.numFrames() >= 1);
  assert.ok(srv.stderr().includes(path), 'the path of the rescued recording is logged');
});
