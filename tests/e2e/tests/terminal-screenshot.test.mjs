// Screenshots of terminal sessions: the image's size follows the cell grid,
// colours come out exact, wide characters take two cells, the formats and
// scaling work, and the screen and text resources read back.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertColour, decodePng, imageOf, pixel, startServer, terminalOpts as topts } from '../lib/terminal.mjs';

const DEFAULT_BG = [0x1e, 0x1e, 0x1e];
const RED_196 = [255, 0, 0]; // xterm 256-colour palette: 196 = #ff0000
const BLUE_21 = [0, 0, 255]; // 21 = #0000ff
const TRUE_GREEN = [10, 200, 30];

/** Cell geometry of a decoded screenshot of a cols×rows screen. */
function cells(png, cols, rows) {
  assert.equal(png.width % cols, 0, `width ${png.width} is not a multiple of ${cols} columns`);
  assert.equal(png.height % rows, 0, `height ${png.height} is not a multiple of ${rows} rows`);
  const cw = png.width / cols;
  const ch = png.height / rows;
  assert.ok(cw >= 5 && ch >= 8, `cells of ${cw}×${ch} px`);
  return {
    cw,
    ch,
    centre: (row, col) => pixel(png, col * cw + Math.floor(cw / 2), row * ch + Math.floor(ch / 2)),
    /** Every pixel of a cell. */
    all: (row, col) => {
      const px = [];
      for (let y = row * ch; y < (row + 1) * ch; y++) for (let x = col * cw; x < (col + 1) * cw; x++) px.push(pixel(png, x, y));
      return px;
    },
  };
}

const same = (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

/** A bash session showing coloured blocks and wide characters at known cells:
 *  row 0: cols 0-1 colour 196, cols 4-5 true colour (10,200,30)
 *  row 1: 日 on colour 21 (cols 0-1), a blank (col 2), 🙂 on colour 21 (cols 3-4)
 *  row 2: "done-1"; the prompt below. */
async function colourScreen(srv, cols = 40, rows = 10) {
  const s = await srv.bash({ cols, rows });
  await srv.type(
    s.id,
    "printf '\\e[H\\e[2J\\e[48;5;196m  \\e[0m  \\e[48;2;10;200;30m  \\e[0m\\n" +
      "\\e[48;5;21m\\346\\227\\245\\e[0m \\e[48;5;21m\\360\\237\\231\\202\\e[0m\\n%s-%s\\n' done 1\n",
  );
  await srv.waitFor(s.id, { regex: '^done-1$' });
  await srv.waitFor(s.id, { regex: '^gb\\$$' });
  const r = await srv.readText(s.id);
  assert.deepEqual(r.lines.slice(0, 4), ['', '日 🙂', 'done-1', 'gb$']);
  return s;
}

test('a PNG screenshot is the cell grid, with exact 256-colour and true colour', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await colourScreen(srv);
  const r = await srv.ok('screenshot', { session: s.id });
  const img = imageOf(r);
  assert.equal(img.mimeType, 'image/png');
  const png = decodePng(img.data);
  assert.equal(r.sc.width, png.width);
  assert.equal(r.sc.height, png.height);
  assert.equal(r.sc.format, 'png');
  assert.equal(r.sc.scale, 1);
  assert.equal(r.sc.bytes, Buffer.from(img.data, 'base64').length);
  const g = cells(png, 40, 10);
  for (const col of [0, 1]) assertColour(g.centre(0, col), RED_196, 2, `colour 196 at row 0 col ${col}`);
  for (const col of [4, 5]) assertColour(g.centre(0, col), TRUE_GREEN, 2, `true colour at row 0 col ${col}`);
  for (const col of [2, 3, 6]) assertColour(g.centre(0, col), DEFAULT_BG, 2, `default background at row 0 col ${col}`);
  // The text mirror names the size.
  assert.ok(r.content.some((c) => c.type === 'text' && c.text.includes(`${png.width}x${png.height}`)));
});

test('wide characters (CJK, emoji) fill two cells in the screenshot', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await colourScreen(srv);
  const png = decodePng(imageOf(await srv.ok('screenshot', { session: s.id })).data);
  const g = cells(png, 40, 10);
  // The background of each wide character covers both of its cells, and
  // nothing beyond them.
  for (const col of [0, 1, 3, 4]) {
    assert.ok(g.all(1, col).some((p) => same(p, BLUE_21)), `row 1 col ${col} should show colour 21`);
  }
  for (const col of [2, 5]) {
    assert.ok(!g.all(1, col).some((p) => same(p, BLUE_21)), `row 1 col ${col} should not show colour 21`);
  }
  // The glyphs themselves reach into both cells.
  const ink = (row, col) => g.all(row, col).filter((p) => !same(p, BLUE_21)).length;
  for (const col of [0, 1, 3, 4]) assert.ok(ink(1, col) > 0, `no glyph drawn in row 1 col ${col}`);
});

test('jpeg and webp screenshots, quality, and max_width scaling', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await colourScreen(srv);
  const full = await srv.ok('screenshot', { session: s.id });

  const jpeg = await srv.ok('screenshot', { session: s.id, format: 'jpeg', quality: 90 });
  assert.equal(imageOf(jpeg).mimeType, 'image/jpeg');
  assert.equal(jpeg.sc.format, 'jpeg');
  const jb = Buffer.from(imageOf(jpeg).data, 'base64');
  assert.deepEqual([...jb.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  assert.equal(jpeg.sc.bytes, jb.length);
  assert.equal(jpeg.sc.width, full.sc.width);
  const low = await srv.ok('screenshot', { session: s.id, format: 'jpeg', quality: 5 });
  assert.ok(low.sc.bytes < jpeg.sc.bytes, `quality 5 (${low.sc.bytes} B) should be smaller than 90 (${jpeg.sc.bytes} B)`);

  const webp = await srv.ok('screenshot', { session: s.id, format: 'webp' });
  assert.equal(imageOf(webp).mimeType, 'image/webp');
  assert.equal(webp.sc.format, 'webp');
  const wb = Buffer.from(imageOf(webp).data, 'base64');
  assert.equal(wb.subarray(0, 4).toString('latin1'), 'RIFF');
  assert.equal(wb.subarray(8, 12).toString('latin1'), 'WEBP');

  const small = await srv.ok('screenshot', { session: s.id, max_width: 200 });
  const sp = decodePng(imageOf(small).data);
  assert.ok(small.sc.width <= 200, `width ${small.sc.width}`);
  assert.equal(sp.width, small.sc.width);
  assert.equal(sp.height, small.sc.height);
  assert.ok(small.sc.scale < 1, `scale ${small.sc.scale}`);
  assert.ok(Math.abs(small.sc.scale - small.sc.width / full.sc.width) < 1e-6, `scale ${small.sc.scale}`);
  assert.ok(Math.abs(sp.height - full.sc.height * small.sc.scale) <= 1, `height ${sp.height}`);
  // Area averaging keeps a large block's colour: the red block is 2 cells wide.
  const fx = (full.sc.width / 40) * 1; // the boundary between cols 0 and 1
  const y = Math.floor((full.sc.height / 10) * 0.5 * small.sc.scale);
  assertColour(pixel(sp, Math.floor(fx * small.sc.scale), y), RED_196, 12, 'scaled red block');

  // max_width at least the full width leaves the image alone.
  const same_ = await srv.ok('screenshot', { session: s.id, max_width: 16384 });
  assert.equal(same_.sc.width, full.sc.width);
  assert.equal(same_.sc.scale, 1);
  await srv.err('screenshot', { session: s.id, format: 'gif' }, /"format"/);
  await srv.err('screenshot', { session: s.id, max_width: 8 }, /"max_width"/);
});

test('as: "link" returns a resource link whose screen and text resources read back', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await colourScreen(srv);
  const r = await srv.ok('screenshot', { session: s.id, as: 'link' });
  assert.ok(!r.content.some((c) => c.type === 'image'), 'a link result should not inline the image');
  const link = r.content.find((c) => c.type === 'resource_link');
  assert.ok(link, JSON.stringify(r.content));
  const uri = `glovebox://session/${s.id}/screen`;
  assert.equal(link.uri, uri);
  assert.equal(link.mimeType, 'image/png');
  assert.equal(r.sc.uri, uri);

  const read = await srv.client.readResource({ uri });
  assert.equal(read.contents.length, 1);
  assert.equal(read.contents[0].uri, uri);
  assert.equal(read.contents[0].mimeType, 'image/png');
  const png = decodePng(read.contents[0].blob);
  assert.equal(png.width, r.sc.width);
  assert.equal(png.height, r.sc.height);
  assertColour(cells(png, 40, 10).centre(0, 0), RED_196, 2, 'colour 196 in the screen resource');

  const textUri = `glovebox://session/${s.id}/text`;
  const text = await srv.client.readResource({ uri: textUri });
  assert.equal(text.contents[0].uri, textUri);
  assert.equal(text.contents[0].mimeType, 'text/plain');
  assert.equal(text.contents[0].text, '\n日 🙂\ndone-1\ngb$');

  // Both are listed while the session lives.
  const list = await srv.client.listResources();
  const uris = list.resources.map((x) => x.uri);
  assert.ok(uris.includes(uri) && uris.includes(textUri), JSON.stringify(uris));
  // An unknown view or session is "resource not found".
  await assert.rejects(srv.client.readResource({ uri: `glovebox://session/${s.id}/nope` }), (e) => e.code === -32002);
  await assert.rejects(srv.client.readResource({ uri: 'glovebox://session/terminal-999/screen' }), (e) => e.code === -32002);
});

test('a session that has ended can still be screenshotted, without a cursor', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.start({ command: ['sh', '-c', "printf '\\033[48;5;196m  \\033[0mbye\\n'"], cols: 20, rows: 4 });
  await srv.waitFor(s.id, { exit: true });
  const r = await srv.ok('screenshot', { session: s.id });
  const png = decodePng(imageOf(r).data);
  const g = cells(png, 20, 4);
  assertColour(g.centre(0, 0), RED_196, 2, 'colour 196 on the last screen');
  // The cursor (row 1, col 0) is not drawn: the cell is plain background.
  assert.ok(g.all(1, 0).every((p) => same(p, DEFAULT_BG)), 'a cursor was drawn on an ended session');
});

test('by default a 120×40 terminal screenshot stays full size; a wide one is fitted to 1568 px with its scale', topts(), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash({ cols: 120, rows: 40 });
  const small = await srv.ok('screenshot', { session: s.id });
  const png = decodePng(imageOf(small).data);
  assert.equal(png.width, 1200); // 120 cells of 10 px
  assert.equal(small.sc.scale, 1);

  await srv.ok('resize', { session: s.id, cols: 200, rows: 40 });
  const wide = await srv.ok('screenshot', { session: s.id });
  assert.equal(wide.sc.width, 1568);
  assert.equal(decodePng(imageOf(wide).data).width, 1568);
  assert.ok(Math.abs(wide.sc.scale - 1568 / 2000) < 1e-9, `scale ${wide.sc.scale}`);
  // fit: false keeps the render's own size.
  const full = await srv.ok('screenshot', { session: s.id, fit: false });
  assert.equal(full.sc.width, 2000);
  assert.equal(full.sc.scale, 1);
  await srv.err('screenshot', { session: s.id, fit: 'no' }, /"fit"/);
});
