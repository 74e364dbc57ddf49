// type_text on vnc sessions by paste: RFB cut text, then the paste chord
// (vnc_connect paste_keys), into a real xterm on a real Xvnc; the file the
// typed command writes shows what arrived and in what order. "auto" types
// keys on X servers, and on Apple's servers (iphone_mirroring stands in for
// one here) pastes the Latin-1 characters beyond ASCII between typed runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { ms, startServer, topts, until } from '../lib/terminal.mjs';
import { startXvnc, xclient } from '../lib/vnc.mjs';

const vncOpts = () => needs('vnc', topts({ timeout: ms(120000) }));

/** Xvnc with an xterm running sh, a glovebox connected with args, the
 * xterm clicked into; out(name) is a path for a typed command to write. */
async function xtermSession(t, args = {}) {
  const xvnc = await startXvnc(t, { width: 640, height: 480 });
  const srv = await startServer(t);
  const c = await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, ...args });
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-vnc-paste-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  xclient(t, xvnc, 'xterm', ['-geometry', '70x10+0+0', '-fa', 'DejaVu Sans Mono', '-fs', '14', '-bg', 'white', '-fg', 'black', '-e', 'sh']);
  const ready = await srv.ok('wait_for', { text: 'gbvnc>', timeout_ms: 20000 });
  assert.equal(ready.sc.matched, true, 'the xterm shows its prompt');
  await srv.ok('click', { x: 100, y: 60 });
  return { xvnc, srv, c, out: (name) => join(dir, name) };
}

async function fileIs(path, want) {
  await until(() => existsSync(path) && readFileSync(path, 'utf8') === want, ms(10000), `the file ${path} the typed command writes`).catch((e) => {
    e.message += ` (file: ${existsSync(path) ? JSON.stringify(readFileSync(path, 'utf8')) : 'none'})`;
    throw e;
  });
}

const selection = (xvnc, which) => spawnSync('xclip', ['-o', '-selection', which], { env: xvnc.env, encoding: 'utf8', timeout: 3000 }).stdout;

test('type_text via paste: cut text and shift+Insert type Latin-1 into an xterm; the clipboard keeps the text', vncOpts(), async (t) => {
  const { xvnc, srv, c, out } = await xtermSession(t, { paste_keys: 'shift+Insert' });
  assert.equal(c.sc.paste_keys, 'shift+Insert');
  const file = out('pasted.txt');
  const text = `printf '%s' "Grüße, café à ½" > ${file}\n`;
  const r = await srv.ok('type_text', { text, via: 'paste' });
  assert.equal(r.sc.via, 'paste');
  assert.equal(r.sc.pasted, [...text].length);
  assert.equal(r.sc.keys, 0);
  assert.equal(r.sc.paste_keys, 'shift+Insert');
  assert.equal(r.sc.clipboard_replaced, true);
  assert.match(r.content[0].text, /pasted \(cut text, then shift\+Insert\); the server's clipboard now holds/);
  await fileIs(file, 'Grüße, café à ½');
  // Xvnc puts client cut text on both CLIPBOARD and PRIMARY (xterm's
  // shift+Insert pastes PRIMARY).
  assert.equal(selection(xvnc, 'clipboard'), text);
  assert.equal(selection(xvnc, 'primary'), text);

  // Beyond Latin-1 nothing can be pasted: a clear error, nothing sent.
  const wide = await srv.call('type_text', { text: 'ab Жc', via: 'paste' });
  assert.equal(wide.structuredContent.error.code, 'invalid_argument');
  assert.match(wide.structuredContent.error.message, /argument "text": character 3 \(U\+0416\) is outside Latin-1, and via "paste" sends RFB cut text/);
  assert.match(wide.structuredContent.error.message, /via "keys"/);
  await srv.close();
});

test('type_text auto on an X server types every character as a key', vncOpts(), async (t) => {
  const { xvnc, srv, out } = await xtermSession(t);
  const file = out('keys.txt');
  const text = `printf '%s' "naïve ж €" > ${file}\n`;
  const r = await srv.ok('type_text', { text });
  assert.equal(r.sc.via, 'auto');
  assert.equal(r.sc.pasted, 0);
  assert.equal(r.sc.keys, [...text].length);
  assert.equal(r.sc.clipboard_replaced, undefined);
  await fileIs(file, 'naïve ж €');
  assert.equal(selection(xvnc, 'clipboard'), '', 'the clipboard was not touched');
  await srv.close();
});

test('type_text auto on an Apple server: ASCII typed, other Latin-1 pasted, in order', vncOpts(), async (t) => {
  // iphone_mirroring marks the server as Apple's; the chord is made xterm's.
  const { srv, out } = await xtermSession(t, { iphone_mirroring: true, paste_keys: 'shift+Insert' });
  const file = out('mixed.txt');
  const text = `printf '%s' "Grüße à la café!" > ${file}\n`;
  const r = await srv.ok('type_text', { text });
  // ü ß, à, é: three pastes between four typed runs.
  assert.equal(r.sc.pasted, 4);
  assert.equal(r.sc.keys, [...text].length - 4);
  assert.match(r.content[0].text, /4 pasted/);
  await fileIs(file, 'Grüße à la café!');

  // What neither way can carry: the character's offset and what would work.
  const wide = await srv.call('type_text', { text: 'ok ж' });
  assert.equal(wide.structuredContent.error.code, 'invalid_argument');
  assert.match(wide.structuredContent.error.message, /character 3 \(U\+0436\) can be neither typed nor pasted with via "auto"/);
  assert.match(wide.structuredContent.error.message, /give via "keys"/);
  // Forced keys go as keysyms, as asked.
  const forced = await srv.ok('type_text', { text: 'é', via: 'keys' });
  assert.equal(forced.sc.keys, 1);
  assert.equal(forced.sc.pasted, 0);
  await srv.close();
});

test('bad via and paste_keys: invalid_argument naming the field', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  const srv = await startServer(t);
  const bad = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, paste_keys: 'ctrl+nosuchkey' });
  assert.equal(bad.structuredContent.error.code, 'invalid_argument');
  assert.match(bad.structuredContent.error.message, /paste_keys/);
  await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display });
  const via = await srv.call('type_text', { text: 'x', via: 'clipboard' });
  assert.equal(via.structuredContent.error.code, 'invalid_argument');
  assert.match(via.structuredContent.error.message, /via/);
  await srv.close();
});
