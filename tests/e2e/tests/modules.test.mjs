// Each kind of session is a module loaded when its first session starts:
// a server that has run no session, or only terminals, maps none of the
// desktop's libraries (X11, GLib/GIO, AT-SPI) nor Tesseract or libcurl; and a
// module that cannot be loaded fails the start with the file and the reason,
// while the server keeps serving.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { builtKinds, needs, runCli } from '../lib/server.mjs';
import { startServer, topts, textOf } from '../lib/terminal.mjs';

const HEAVY = /\/lib(X11|xcb|gio-2\.0|glib-2\.0|gobject-2\.0|atspi|tesseract|leptonica|curl)[^/]*\.so/;

/** The shared objects process pid has mapped, by path. */
function mapped(pid) {
  const paths = new Set();
  for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
    const path = line.split(/\s+/)[5];
    if (path && path.includes('.so')) paths.add(path);
  }
  return [...paths];
}

function assertNoHeavy(pid, when) {
  const heavy = mapped(pid).filter((p) => HEAVY.test(p));
  assert.deepEqual(heavy, [], `${when}, glovebox maps libraries no session needs yet`);
}

test('a new server maps no X11, GLib, Tesseract or libcurl; nor after a terminal session ran a command', topts(), async (t) => {
  const srv = await startServer(t);
  assertNoHeavy(srv.pid, 'after initialize');
  assert.ok(!mapped(srv.pid).some((p) => /glovebox-(terminal|desktop|ocr)\.so$/.test(p)), 'no module is loaded before a session needs it');
  if (!builtKinds().has('terminal')) return;
  const s = await srv.bash();
  await srv.run(s.id, 'echo modules-$((6*7))', 'modules-42');
  assertNoHeavy(srv.pid, 'after a terminal session ran a command');
  assert.ok(mapped(srv.pid).some((p) => p.endsWith('/glovebox-terminal.so')), 'the terminal module is loaded');
  assert.ok(!mapped(srv.pid).some((p) => p.endsWith('/glovebox-desktop.so')), 'the desktop module is not');
});

test('the desktop module and its libraries are loaded by the first desktop_start, Tesseract not yet', needs('desktop', topts()), async (t) => {
  const srv = await startServer(t);
  const d = (await srv.ok('desktop_start', {})).sc;
  const maps = mapped(srv.pid);
  assert.ok(maps.some((p) => p.endsWith('/glovebox-desktop.so')), 'glovebox-desktop.so is mapped');
  assert.ok(maps.some((p) => /\/libxcb\.so/.test(p)), 'libxcb is mapped');
  // OCR is its own module, loaded when text is first read by OCR.
  assert.ok(!maps.some((p) => /libtesseract|glovebox-ocr\.so/.test(p)), 'Tesseract is not mapped before OCR is used');
  await srv.stop(d.id);
});

/** A start tool of a kind this build has, and its module's name. */
function someKind() {
  if (builtKinds().has('terminal')) return { tool: 'terminal_start', args: { command: ['true'] }, file: 'glovebox-terminal.so' };
  return { tool: 'desktop_start', args: {}, file: 'glovebox-desktop.so' };
}

test('a missing module: the start fails naming the file, and the server keeps serving', topts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-nomodules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const srv = await startServer(t, { env: { GLOVEBOX_MODULE_DIR: dir } });
  const k = someKind();
  const r = await srv.call(k.tool, k.args);
  assert.equal(r.isError, true, `${k.tool} without its module should fail: ${JSON.stringify(r).slice(0, 300)}`);
  assert.match(textOf(r), new RegExp(`module is not available \\(${dir}/${k.file.replace('.', '\\.')}: not found\\)`));
  // Still serving, and it says so again rather than remembering a failure.
  await srv.status();
  const again = await srv.call(k.tool, k.args);
  assert.match(textOf(again), /not found/);
});

test('glovebox doctor names the package of each module that is not installed', topts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-nomodules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const packages = { terminal: 'glovebox', desktop: 'glovebox-desktop', vnc: 'glovebox-vnc', webdriver: 'glovebox-browser', android: 'glovebox-android' };
  const r = await runCli(['doctor'], { env: { GLOVEBOX_MODULE_DIR: dir } });
  assert.equal(r.code, 1, r.stdout);
  const json = JSON.parse((await runCli(['doctor', '--json'], { env: { GLOVEBOX_MODULE_DIR: dir } })).stdout);
  for (const kind of Object.keys(packages).filter((k) => builtKinds().has(k))) {
    const file = `glovebox-${kind}.so`;
    assert.match(r.stdout, new RegExp(`missing the ${kind} module \\(${file.replace('.', '\\.')}\\) — apt-get install ${packages[kind]}\n`), r.stdout);
    const k = json.find((x) => x.kind === kind);
    assert.equal(k.available, false);
    assert.deepEqual(k.missing[0], { what: `the ${kind} module (${file})`, package: packages[kind] });
  }
  // Where the modules are (beside the executable), none of them is missing.
  const here = await runCli(['doctor', '--json']);
  for (const k of JSON.parse(here.stdout)) assert.ok(!k.missing.some((m) => /module/.test(m.what)), JSON.stringify(k));
});

test('a broken module: the start fails with the loader\'s reason', topts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-badmodules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const k = someKind();
  writeFileSync(join(dir, k.file), 'not a shared object\n');
  const srv = await startServer(t, { env: { GLOVEBOX_MODULE_DIR: dir } });
  const text = await srv.err(k.tool, k.args);
  assert.match(text, new RegExp(`cannot load ${dir}/${k.file.replace('.', '\\.')}: .*(invalid ELF header|file too short)`));
  await srv.status();
});

test('glovebox doctor lists every kind, and names the option a build went without', topts(), async () => {
  const r = await runCli(['doctor', '--json']);
  const kinds = JSON.parse(r.stdout);
  assert.deepEqual(kinds.map((k) => k.kind), ['terminal', 'desktop', 'vnc', 'webdriver', 'android']);
  for (const kind of ['terminal', 'desktop']) {
    const k = kinds.find((x) => x.kind === kind);
    if (k.implemented) assert.equal(k.not_built, undefined);
    else assert.match(k.not_built, new RegExp(`-D${kind}=disabled`));
  }
  const text = await runCli(['doctor']);
  for (const k of kinds.filter((x) => x.not_built)) assert.match(text.stdout, new RegExp(`^${k.kind} +not in this build$`, 'm'));
});

test('without OCR in the build, a read by OCR is refused as not_supported, naming the option', needs('desktop', topts(builtKinds().has('ocr') ? { skip: 'this glovebox has OCR: the test is for -Docr=disabled' } : {})), async (t) => {
  const srv = await startServer(t);
  const session = (await srv.ok('desktop_start', { width: 640, height: 480 })).sc.id;
  const r = await srv.call('read_text', { session, ocr: true });
  assert.equal(r.isError, true);
  assert.deepEqual(r.structuredContent, { error: { code: 'not_supported', message: textOf(r) } });
  assert.match(textOf(r), /^OCR is not in this build of glovebox \(meson -Docr=disabled/);
  await srv.ok('session_stop', { session });
});
