// The fake adb server (tests/e2e/lib/fake-adb) driven by the real adb client
// (Debian package `adb`): proves the fake speaks the protocol the client
// expects — host queries, transport switches, shell v2 exit codes, exec-out,
// sync push/pull — and that its device behaves like a phone for the tools the
// android backend will call. Never starts a real adb server: every adb run is
// pointed at the fake's port, which listens before adb starts.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';

import { inputTextRewrite } from '../lib/fake-adb/commands.mjs';
import { FakeDevice, startFakeAdb } from '../lib/fake-adb/index.mjs';

const ADB = '/usr/bin/adb';
const skip = existsSync(ADB) ? false : `${ADB} is missing (apt-get install adb) — the real client is what proves the fake`;
const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const W = 720;
const H = 1600;

/** Runs the real adb client against the fake on `port`; resolves {code, stdout (Buffer), stderr}. */
function adb(port, args, { input } = {}) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ANDROID_ADB_SERVER_PORT: String(port), ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` };
    const child = spawn(ADB, ['-P', String(port), ...args], { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', reject);
    if (input !== undefined) child.stdin.end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** The bounds centre of the node whose resource-id ends with `id`, from a uiautomator dump. */
function centre(xml, id) {
  const m = new RegExp(`resource-id="[^"]*:id/${id}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`).exec(xml);
  assert.ok(m, `node ${id} in ${xml}`);
  return [Math.round((+m[1] + +m[3]) / 2), Math.round((+m[2] + +m[4]) / 2)];
}

/** Speaks the smart-socket protocol directly: a transport switch, then one service; reads to the end. */
function rawService(port, transport, service) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    const frame = (s) => Buffer.from(s.length.toString(16).padStart(4, '0') + s);
    let buf = Buffer.alloc(0);
    let error = null;
    sock.on('connect', () => sock.write(Buffer.concat([frame(transport), frame(service)])));
    sock.on('data', (b) => { buf = Buffer.concat([buf, b]); });
    sock.on('error', (e) => { error = e.code; });
    sock.on('close', () => resolve({ status: buf.toString('latin1', 0, 8), data: buf.subarray(8), error }));
  });
}

describe('fake adb server driven by the real adb client', { skip }, () => {
  let fake;
  let port;
  let dev;
  const run = (...args) => adb(port, args);
  const sh = async (cmd) => {
    const r = await run('shell', cmd);
    assert.equal(r.code, 0, `adb shell ${cmd}: ${r.stderr}${r.stdout}`);
    return r.stdout.toString('utf8');
  };
  const dump = async () => {
    const r = await run('exec-out', 'uiautomator dump /dev/tty');
    return r.stdout.toString('utf8');
  };

  before(async () => {
    fake = await startFakeAdb({ devices: [{ serial: 'emulator-5554', width: W, height: H, density: 320 }] });
    port = fake.port;
    dev = fake.device('emulator-5554');
  });
  after(async () => {
    // The client never asked the fake to die (a version mismatch would have sent host:kill).
    assert.ok(!fake.requests.includes('host:kill'), `requests: ${fake.requests.join(' | ')}`);
    await fake.close();
  });

  test('adb devices -l lists the device in the long format', async () => {
    const r = await run('devices', '-l');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.toString(), 'List of devices attached\n' +
      'emulator-5554          device product:panther model:Pixel_7 device:panther transport_id:1\n\n');
    assert.ok(fake.requests.includes('host:version'));
  });

  test('adb shell: output and exit codes through shell v2', async () => {
    let r = await run('shell', 'echo', 'hi');
    assert.deepEqual([r.code, r.stdout.toString()], [0, 'hi\n']);
    assert.ok(dev.entries('service').some((e) => e.service.startsWith('shell,v2,') && e.service.endsWith(',raw:echo hi')),
      JSON.stringify(dev.entries('service')));
    r = await run('shell', 'exit 3');
    assert.equal(r.code, 3);
    r = await run('shell', 'nosuchcommand --x');
    assert.equal(r.code, 127);
    assert.equal(r.stdout.length, 0, 'the error goes to stderr, kept apart by shell v2');
    assert.equal(r.stderr, '/system/bin/sh: nosuchcommand: inaccessible or not found\n');
    r = await run('shell', 'false || echo "a  b"; true && echo \'c;d\'');
    assert.deepEqual([r.code, r.stdout.toString()], [0, 'a  b\nc;d\n']);
    r = await run('shell', 'echo "unterminated');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no closing quote/);
  });

  test('adb shell with a script on stdin and no command', async () => {
    const r = await adb(port, ['shell'], { input: 'echo one\necho two\nexit 4\n' });
    assert.deepEqual([r.code, r.stdout.toString()], [4, 'one\ntwo\n']);
  });

  test('adb shell kept open: each line runs as it arrives, before stdin closes; $? and variables carry over', async () => {
    const env = { ...process.env, ANDROID_ADB_SERVER_PORT: String(port), ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` };
    const child = spawn(ADB, ['-P', String(port), 'shell'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => { out += b; });
    const exited = new Promise((res) => child.on('close', (code) => res(code)));
    const seen = async (re) => {
      for (let i = 0; i < 200 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 25));
      assert.match(out, re);
    };
    try {
      const taps = dev.entries('tap').length;
      child.stdin.write('input tap 5 6; echo "@@$?@@"\n');
      await seen(/^@@0@@\n$/);
      assert.equal(dev.entries('tap').length, taps + 1, 'ran while stdin is still open');
      child.stdin.write('x=7; false\necho "$x $?"\n');
      await seen(/@@0@@\n7 1\n$/);
    } finally {
      child.stdin.end('exit 3\n');
    }
    assert.equal(await exited, 3);
    // A device made with keptShell: false refuses a shell without a command; with one it still runs.
    fake.addDevice({ serial: 'nokeep', width: 360, height: 800, keptShell: false });
    try {
      let r = await adb(port, ['-s', 'nokeep', 'shell'], { input: 'echo hi\n' });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /closed/);
      r = await adb(port, ['-s', 'nokeep', 'shell', 'echo hi']);
      assert.deepEqual([r.code, r.stdout.toString()], [0, 'hi\n']);
    } finally {
      fake.removeDevice('nokeep');
    }
  });

  test('exec-out screencap -p is a PNG of the screen; raw screencap has the 16-byte header', async () => {
    let r = await run('exec-out', 'screencap -p');
    assert.equal(r.code, 0, r.stderr);
    const png = PNG.sync.read(r.stdout);
    assert.deepEqual([png.width, png.height], [W, H]);
    assert.deepEqual([...png.data.subarray(0, 4)], [33, 33, 33, 255], 'the status bar is dark at the top-left');
    r = await run('exec-out', 'screencap');
    const raw = r.stdout;
    assert.deepEqual([raw.readUInt32LE(0), raw.readUInt32LE(4), raw.readUInt32LE(8), raw.readUInt32LE(12)], [W, H, 1, 1]);
    assert.equal(raw.length, 16 + W * H * 4);
    assert.ok(raw.subarray(16).equals(png.data), 'raw pixels are the PNG pixels');
  });

  test('exec-out screenrecord --output-format=h264 is an H.264 stream ffmpeg decodes; its options are checked', { skip: hasFfmpeg ? false : 'needs ffmpeg' }, async () => {
    const r = await run('exec-out', 'screenrecord --output-format=h264 --size 360x800 --bit-rate 4M --time-limit 1 -');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([...r.stdout.subarray(0, 4)], [0, 0, 0, 1], 'Annex B: a start code first');
    const dir = mkdtempSync(join(tmpdir(), 'fake-adb-h264-'));
    try {
      writeFileSync(join(dir, 's.h264'), r.stdout);
      // The last frame, decoded to raw RGB by ffmpeg: the status bar is dark at the top-left.
      const rgb = execFileSync('ffmpeg', ['-v', 'error', '-f', 'h264', '-i', join(dir, 's.h264'), '-frames:v', '1',
        '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1 << 24 });
      assert.equal(rgb.length, 360 * 800 * 3, 'one 360x800 picture');
      assert.ok(rgb[0] < 60 && rgb[1] < 60 && rgb[2] < 60, `dark status bar, got ${[...rgb.subarray(0, 3)]}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const bad = await run('shell', 'screenrecord --output-format=h264 --time-limit 200 -');
    assert.equal(bad.code, 2);
    assert.match(bad.stdout.toString() + bad.stderr, /Time limit 200s outside acceptable range \[1,180\]/);
    assert.ok(dev.entries('screenrecord').some((e) => e.size.width === 360 && e.bitRate === 4000000 && e.timeLimit === 1));
  });

  test('uiautomator dump /dev/tty: one line of XML, then "UI hierchary dumped to"; dump to a file then cat', async () => {
    const out = await sh('uiautomator dump /dev/tty');
    assert.match(out, /^<\?xml version='1\.0' encoding='UTF-8' standalone='yes' \?><hierarchy rotation="0">.*<\/hierarchy>UI hierchary dumped to: \/dev\/tty\n$/s);
    assert.equal(out.split('\n').length, 2, 'the XML is one line');
    assert.equal(await sh('uiautomator dump'), 'UI hierchary dumped to: /sdcard/window_dump.xml\n');
    const file = await sh('cat /sdcard/window_dump.xml');
    assert.equal(file, out.slice(0, out.indexOf('UI hierchary')));
  });

  test('wm, getprop, settings, dumpsys window', async () => {
    assert.equal(await sh('wm size'), `Physical size: ${W}x${H}\n`);
    assert.equal(await sh('wm density'), 'Physical density: 320\n');
    assert.equal(await sh('getprop ro.product.model'), 'Pixel 7\n');
    assert.equal(await sh('getprop ro.build.version.sdk'), '33\n');
    assert.equal(await sh('settings get system user_rotation'), '0\n');
    assert.match(await sh('dumpsys window'), /mCurrentFocus=Window\{\w+ u0 com\.google\.android\.apps\.nexuslauncher\//);
  });

  test('radios, input methods and ADBKeyBoard broadcasts answer as on Android 12+', async () => {
    assert.equal(await sh('svc wifi disable; settings get global wifi_on'), '0\n');
    assert.equal(await sh('svc wifi enable; settings get global wifi_on'), '1\n');
    assert.equal(await sh('cmd connectivity airplane-mode enable; cmd connectivity airplane-mode'), 'enabled\n');
    await sh('cmd connectivity airplane-mode disable');
    const unknown = await run('shell', 'cmd connectivity bogus');
    assert.equal(unknown.code, 255);
    assert.equal(unknown.stdout.toString(), 'Unknown command: bogus\n');
    assert.match(await sh('ime list -s'), /^com\.google\.android\.inputmethod\.latin\/com\.android\.inputmethod\.latin\.LatinIME\n$/);
    const set = await run('shell', 'ime set com.android.adbkeyboard/.AdbIME');
    assert.equal(set.code, 255);
    assert.match(set.stderr.toString(), /Unknown input method com\.android\.adbkeyboard\/\.AdbIME cannot be selected/);
    assert.match(await sh('am broadcast -a ADB_INPUT_B64 --es msg Y2Fmw6k='),
      /^Broadcasting: Intent \{ act=ADB_INPUT_B64 flg=0x400000 \(has extras\) \}\nBroadcast completed: result=0\n$/);
    assert.equal(dev.entries('ime-text').length, 0, 'not typed: ADBKeyBoard is not the input method');
  });

  test('rotation through settings swaps the screen; a replaced dump is served as is', async () => {
    try {
      await sh('settings put system user_rotation 1');
      assert.equal(await sh('wm size'), `Physical size: ${W}x${H}\n`, 'wm size stays the physical size');
      const png = PNG.sync.read((await run('exec-out', 'screencap -p')).stdout);
      assert.deepEqual([png.width, png.height], [H, W]);
      assert.match(await dump(), /^<\?xml[^>]*\?><hierarchy rotation="1">/);
      assert.match(await sh('dumpsys input'), /SurfaceOrientation: 1/);
    } finally {
      await sh('settings put system user_rotation 0');
    }
    dev.setUiXml('<?xml version="1.0"?><hierarchy><node text="broken"');
    try {
      assert.equal(await sh('uiautomator dump /dev/tty'),
        '<?xml version="1.0"?><hierarchy><node text="broken"UI hierchary dumped to: /dev/tty\n');
    } finally {
      dev.setUiXml(null);
    }
  });

  test('the login app: monkey launches it, taps focus fields, input text types, Sign in welcomes', async () => {
    assert.match(await sh('monkey -p com.example.login -c android.intent.category.LAUNCHER 1'), /Events injected: 1/);
    let xml = await dump();
    assert.match(xml, /resource-id="com\.example\.login:id\/password"[^>]*password="true"/);
    const before = (await run('exec-out', 'screencap -p')).stdout;
    await sh(`input tap ${centre(xml, 'sign_in').join(' ')}`);
    assert.match(await dump(), /text="Enter a username"/, 'an empty username is refused');
    await sh(`input tap ${centre(xml, 'username').join(' ')}`);
    await sh('input text Ann%sLee');
    await sh('input keyevent KEYCODE_E 67 DEL'); // types e, then deletes it and the last e
    await sh(`input tap ${centre(xml, 'password').join(' ')}`);
    await sh("input text 'pa ss'"); // device-side only "pa ss" reaches input as one argument
    assert.equal(dev.login.password, 'pa ss');
    xml = await dump();
    assert.match(xml, /text="Ann Le"/);
    assert.match(xml, /text="•••••"[^>]*password="true"/, 'password text is masked');
    await sh(`input tap ${centre(xml, 'sign_in').join(' ')}`);
    assert.match(await dump(), /text="Welcome, Ann Le"/);
    const after = (await run('exec-out', 'screencap -p')).stdout;
    assert.ok(!PNG.sync.read(after).data.equals(PNG.sync.read(before).data), 'the screen shows the new state');
    await sh('input keyevent BACK');
    assert.match(await dump(), /resource-id="com\.example\.login:id\/sign_in"/);
    await sh('input keyevent 3');
    assert.equal(dev.foreground, 'com.google.android.apps.nexuslauncher');
  });

  test('input text: shell metacharacters quoted by the caller are typed literally, never run', async () => {
    await sh('am start -n com.example.login/.MainActivity');
    const xml = await dump();
    await sh(`input tap ${centre(xml, 'username').join(' ')}`);
    const text = 'a$(reboot)`id`"q\'; ls\nz\\';
    const quoted = `'${text.replace(/'/g, "'\\''")}'`; // the escaping a correct client does
    const typedBefore = dev.entries('text').length;
    await sh(`input text ${quoted}`);
    const last = dev.log.filter((e) => e.kind === 'shell').pop();
    assert.deepEqual(last.expansions, [], 'nothing was expanded');
    assert.deepEqual(last.argv, [['input', 'text', text]]);
    assert.equal(dev.entries('text')[typedBefore].text, text);
    // The fake is not lenient: the same text unquoted is expanded (as a phone would run it).
    const r = await run('shell', 'input text $(echo pwned)`echo x`');
    assert.equal(r.code, 0, r.stderr);
    const bad = dev.log.filter((e) => e.kind === 'shell').pop();
    assert.deepEqual(bad.expansions, ['$(echo pwned)', '`echo x`']);
    assert.equal(dev.entries('text').pop().text, 'pwnedx');
  });

  test('input text with non-ASCII fails like Android (exception, exit 255)', async () => {
    const r = await run('shell', 'input text café');
    assert.equal(r.code, 255);
    assert.match(r.stderr, /^Exception occurred while executing 'text':\njava\.lang\.NullPointerException/);
  });

  test('input swipe and long press are logged with their coordinates', async () => {
    await sh('input swipe 100 1200 100 300 250; input swipe 50 60 50 60 800');
    const [swipe, hold] = [dev.entries('swipe').pop(), dev.entries('longpress').pop()];
    assert.deepEqual([swipe.x1, swipe.y1, swipe.x2, swipe.y2, swipe.ms], [100, 1200, 100, 300, 250]);
    assert.deepEqual([hold.x1, hold.y1, hold.ms], [50, 60, 800]);
  });

  test('am start -a VIEW -d URL opens the browser; am force-stop; pm list packages', async () => {
    assert.equal(await sh('am start -a android.intent.action.VIEW -d https://example.com/a?b=1'),
      'Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/a?b=1 }\n');
    assert.match(await dump(), /text="https:\/\/example\.com\/a\?b=1"/);
    assert.match(await sh('dumpsys window windows'), /mCurrentFocus=.*com\.android\.chrome\//);
    await sh('am force-stop com.android.chrome');
    assert.equal(dev.foreground, 'com.example.login', 'the task under the stopped one comes back');
    assert.equal(await sh('pm list packages -3'), 'package:com.example.login\n');
    const r = await run('shell', 'am start -n com.nope/.Main');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error: Activity class \{com\.nope\/\.Main\} does not exist\./);
  });

  test('adb push and pull a small file; pm install after a push', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-adb-'));
    try {
      const src = join(dir, 'demo.apk');
      writeFileSync(src, 'package=com.example.demo label=Demo\n' + 'x'.repeat(70000)); // more than one DATA chunk
      let r = await run('push', src, '/data/local/tmp/demo.apk');
      assert.equal(r.code, 0, r.stderr + r.stdout);
      r = await run('pull', '/data/local/tmp/demo.apk', join(dir, 'back.apk'));
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.ok(readFileSync(join(dir, 'back.apk')).equals(readFileSync(src)));
      assert.equal(await sh('pm install -r /data/local/tmp/demo.apk'), 'Success\n');
      assert.match(await sh('pm list packages demo'), /^package:com\.example\.demo\n$/);
      // adb install on a device without the cmd feature: push to /data/local/tmp, pm install, rm.
      writeFileSync(join(dir, 'other.apk'), 'package=com.example.other\n');
      r = await run('install', join(dir, 'other.apk'));
      assert.deepEqual([r.code, r.stderr], [0, ''], r.stdout.toString());
      assert.match(r.stdout.toString(), /Performing Push Install\n[^\n]*1 file pushed[^\n]*\nSuccess\n$/);
      assert.match(await sh('pm list packages other'), /^package:com\.example\.other\n$/);
      assert.equal((await run('shell', 'ls /data/local/tmp/other.apk')).code, 1, 'the pushed copy was removed');
      r = await run('pull', '/sdcard/missing.txt', join(dir, 'x'));
      assert.notEqual(r.code, 0);
      assert.match(r.stdout.toString() + r.stderr, /remote object '\/sdcard\/missing\.txt' does not exist/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the game: its words only in the pixels (screencap), never in the dump; a tap changes them; pm uninstall', async () => {
    const extra = fake.addDevice({ serial: 'game', width: 360, height: 800, density: 320, game: true });
    try {
      const on = (...args) => adb(port, ['-s', 'game', ...args]);
      let r = await on('shell', 'monkey -p com.example.game -c android.intent.category.LAUNCHER 1');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(extra.foreground, 'com.example.game');
      const xml = (await on('exec-out', 'uiautomator dump /dev/tty')).stdout.toString();
      assert.match(xml, /class="android\.view\.SurfaceView" package="com\.example\.game"/);
      assert.doesNotMatch(xml, /PRESS|START/);
      const shot = async () => PNG.sync.read((await on('exec-out', 'screencap -p')).stdout).data;
      const title = await shot();
      // Dark glyph pixels in the middle third of the screen: the words.
      const dark = (px) => { let n = 0; for (let i = 360 * 4 * 250; i < 360 * 4 * 550; i += 4) if (px[i] < 100) n++; return n; };
      assert.ok(dark(title) > 100, 'words drawn');
      assert.equal((await on('shell', 'input tap 180 400')).code, 0);
      const ready = await shot();
      assert.ok(!ready.equals(title), 'the tap changed the picture');
      assert.equal((await on('exec-out', 'uiautomator dump /dev/tty')).stdout.toString(), xml, 'and not the tree');

      r = await on('shell', 'pm uninstall com.example.game');
      assert.deepEqual([r.code, r.stdout.toString()], [0, 'Success\n']);
      assert.notEqual(extra.foreground, 'com.example.game');
      r = await on('shell', 'pm uninstall -k com.example.game');
      assert.deepEqual([r.code, r.stdout.toString()], [1, 'Failure [DELETE_FAILED_INTERNAL_ERROR]\n']);
      r = await on('shell', 'pm path com.example.game');
      assert.equal(r.code, 1);
    } finally {
      fake.removeDevice('game');
    }
  });

  test('a device that drops mid-call: the output stops with no exit packet, the device goes offline', async () => {
    const extra = fake.addDevice({ serial: 'flaky', width: 360, height: 800, density: 160 });
    try {
      extra.dropNextCall({ match: /uiautomator/, after: '<?xml' });
      // Raw protocol: what a client sees is the partial output and then a reset, never packet 3.
      const got = await rawService(port, 'host:transport:flaky', 'shell,v2,raw:uiautomator dump /dev/tty');
      assert.equal(got.status, 'OKAYOKAY');
      assert.deepEqual([...got.data], [1, 5, 0, 0, 0, ...Buffer.from('<?xml')], 'one stdout packet, no exit packet');
      // The fake resets the connection (RST); whether a reader sees ECONNRESET or a plain end
      // depends on when the RST lands relative to its reads, so that is not asserted.
      const list = (await run('devices')).stdout.toString();
      assert.match(list, /^flaky\toffline$/m);
      const again = await run('-s', 'flaky', 'shell', 'echo hi');
      assert.notEqual(again.code, 0);
      assert.match(again.stdout.toString() + again.stderr, /device offline \(no transport\)/);
      // Note: the real adb 29 client exits 0 when the exit packet never comes (read_and_dump starts at 0).
      extra.setState('device');
      extra.dropNextCall({ after: 'partial' });
      const r = await run('-s', 'flaky', 'shell', 'echo hi');
      assert.deepEqual([r.code, r.stdout.toString()], [0, 'partial']);
    } finally {
      fake.removeDevice('flaky');
    }
  });
});

describe('fake adb command line (cli.mjs)', { skip }, () => {
  test('--port 0 serves devices with --offline / --unauthorized; a bad --size is refused by name', async () => {
    const cli = new URL('../lib/fake-adb/cli.mjs', import.meta.url).pathname;
    const bad = spawn(process.execPath, [cli, '--size', 'big'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    bad.stderr.on('data', (b) => { err += b; });
    assert.equal(await new Promise((r) => bad.on('close', r)), 2);
    assert.match(err, /^--size: expected WIDTHxHEIGHT such as 1080x2400, got "big"/);
    const child = spawn(process.execPath, [cli, '--port', '0', '--size', '360x800', '--offline', 'OFF1'],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise((resolve) => {
        let out = '';
        child.stdout.on('data', (b) => { out += b; if (out.includes('\n')) resolve(out); });
      });
      const port = Number(/127\.0\.0\.1:(\d+)/.exec(line)[1]);
      const r = await adb(port, ['devices']);
      assert.equal(r.stdout.toString(), 'List of devices attached\nemulator-5554\tdevice\nOFF1\toffline\n\n');
      assert.equal((await adb(port, ['-s', 'emulator-5554', 'shell', 'wm size'])).stdout.toString(), 'Physical size: 360x800\n');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('close', r));
    }
  });
});

describe('fake adb server with several devices', { skip }, () => {
  let fake;
  before(async () => {
    fake = await startFakeAdb({ devices: [
      { serial: 'emulator-5554', width: 360, height: 800, density: 160 },
      { serial: 'R58M123ABC', state: 'offline' },
      { serial: '0123456789', state: 'unauthorized' },
    ] });
  });
  after(() => fake.close());

  test('devices -l shows every state; -s picks one; errors name the problem', async () => {
    let r = await adb(fake.port, ['devices', '-l']);
    assert.equal(r.stdout.toString(), 'List of devices attached\n' +
      'emulator-5554          device product:panther model:Pixel_7 device:panther transport_id:1\n' +
      'R58M123ABC             offline transport_id:2\n' +
      '0123456789             unauthorized transport_id:3\n\n');
    r = await adb(fake.port, ['shell', 'echo hi']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /more than one device\/emulator/);
    r = await adb(fake.port, ['-s', 'emulator-5554', 'shell', 'echo hi']);
    assert.deepEqual([r.code, r.stdout.toString()], [0, 'hi\n']);
    r = await adb(fake.port, ['-s', 'R58M123ABC', 'shell', 'echo hi']);
    assert.match(r.stderr, /device offline \(no transport\)/);
    r = await adb(fake.port, ['-s', '0123456789', 'shell', 'echo hi']);
    assert.match(r.stderr, /device unauthorized/);
    r = await adb(fake.port, ['-s', 'nosuch', 'shell', 'echo hi']);
    assert.match(r.stderr, /device 'nosuch' not found/);
    r = await adb(fake.port, ['-s', 'R58M123ABC', 'get-state']);
    assert.equal(r.stdout.toString(), 'offline\n');
  });
});

// The device's sh and commands without any client: runs even where adb is not installed.
describe('fake device shell (no client)', () => {
  const run = async (dev, line) => {
    const out = [];
    const err = [];
    const code = await dev.runShell(line, { out: (b) => out.push(Buffer.from(b)), err: (b) => err.push(Buffer.from(b)), stdin: Buffer.alloc(0) });
    return { code, out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString() };
  };

  test('quoting, separators, redirections and exit codes follow sh', async () => {
    const dev = new FakeDevice({ width: 100, height: 200 });
    assert.deepEqual(await run(dev, `echo 'a  b' "c\\"d" e\\ f; echo "$(echo x)"`), { code: 0, out: 'a  b c"d e f\nx\n', err: '' });
    assert.deepEqual(await run(dev, 'false && echo no; false || echo yes'), { code: 0, out: 'yes\n', err: '' });
    assert.deepEqual(await run(dev, 'echo hi > /sdcard/f.txt; cat /sdcard/f.txt; cat < /sdcard/f.txt'), { code: 0, out: 'hi\nhi\n', err: '' });
    assert.deepEqual(await run(dev, 'getprop ro.product.model | grep Pixel'), { code: 0, out: 'Pixel 7\n', err: '' });
    assert.deepEqual(await run(dev, 'nosuch 2>&1'), { code: 127, out: '/system/bin/sh: nosuch: inaccessible or not found\n', err: '' });
    assert.deepEqual(await run(dev, 'echo a; exit 7; echo b'), { code: 7, out: 'a\n', err: '' });
    assert.equal((await run(dev, "echo 'open")).code, 1);
    assert.deepEqual(dev.log.filter((e) => e.kind === 'shell')[0].expansions, ['$(echo x)']);
  });

  test("input text: %s becomes a space by Android's loop; only the first argument is typed", async () => {
    assert.equal(inputTextRewrite('a%sb'), 'a b');
    assert.equal(inputTextRewrite('100%'), '100%');
    assert.equal(inputTextRewrite('%%s'), '% ');
    const dev = new FakeDevice({ width: 100, height: 200 });
    await run(dev, 'input text one two');
    assert.equal(dev.entries('text')[0].text, 'one');
  });
});

/** struct input_event as a process of that bitness writes it: zero time, type, code, value. */
function inputEvents(size, events) {
  return Buffer.concat(events.map(([type, code, value]) => {
    const b = Buffer.alloc(size);
    b.writeUInt16LE(type, size - 8);
    b.writeUInt16LE(code, size - 6);
    b.writeInt32LE(value, size - 4);
    return b;
  }));
}

describe('the fake touchscreen driven by the real adb client', { skip }, () => {
  // A tap as protocol B events at screen pixel (x, y) of a 720x1600 portrait
  // screen, on the fake panel's 0..4095 axes.
  const tap = (size, x, y) => inputEvents(size, [
    [3, 0x2f, 0], [3, 0x39, 7], [3, 0x35, Math.floor(((x + 0.5) * 4096) / W)], [3, 0x36, Math.floor(((y + 0.5) * 4096) / H)],
    [3, 0x3a, 60], [1, 0x14a, 1], [1, 0x145, 1], [0, 0, 0],
    [3, 0x39, -1], [1, 0x14a, 0], [1, 0x145, 0], [0, 0, 0],
  ]);

  for (const [abi, size] of [['x86_64', 24], ['armeabi-v7a', 16]]) {
    test(`getevent -p lists the panel; events piped into cat > /dev/input/event1 tap the app (${abi}, ${size}-byte events)`, async (t) => {
      const fake = await startFakeAdb({ devices: [{ serial: 'emulator-5554', width: W, height: H, touchscreen: true, abi }] });
      t.after(() => fake.close());
      const dev = fake.device();
      const ge = await adb(fake.port, ['shell', 'getevent', '-p']);
      assert.equal(ge.code, 0, ge.stderr);
      const text = ge.stdout.toString();
      assert.match(text, /add device \d+: \/dev\/input\/event1\n {2}name: {5}"fts_ts"/);
      assert.match(text, / {16}0035 {2}: value 0, min 0, max 4095, fuzz 0, flat 0, resolution 0\n/);
      assert.match(text, /INPUT_PROP_DIRECT/);
      assert.equal((await adb(fake.port, ['shell', 'test -w /dev/input/event1 && echo yes'])).stdout.toString(), 'yes\n');
      assert.equal((await adb(fake.port, ['shell', 'getprop', 'ro.product.cpu.abi'])).stdout.toString(), `${abi}\n`);
      assert.equal((await adb(fake.port, ['shell', 'am start -n com.example.login/.MainActivity'])).code, 0);
      const xml = (await adb(fake.port, ['exec-out', 'uiautomator dump /dev/tty'])).stdout.toString();
      const [x, y] = centre(xml, 'password');
      const r = await adb(fake.port, ['shell', 'cat > /dev/input/event1'], { input: tap(size, x, y) });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(dev.login.focus, 'password', 'the tap focused the password field');
      const taps = dev.entries('tap');
      assert.equal(taps.length, 1);
      assert.deepEqual([taps[0].x, taps[0].y, taps[0].via], [x, y, 'events']);
      assert.equal(dev.entries('shell').filter((e) => /\binput (tap|swipe|motionevent)/.test(e.line)).length, 0, 'no input command ran');
    });
  }

  test('a touchscreen the shell user may not write: test -w fails, the redirection is refused', async (t) => {
    const fake = await startFakeAdb({ devices: [{ serial: 'emulator-5554', touchscreen: 'readonly' }] });
    t.after(() => fake.close());
    assert.match((await adb(fake.port, ['shell', 'getevent', '-p'])).stdout.toString(), /\/dev\/input\/event1/);
    assert.equal((await adb(fake.port, ['shell', 'test -w /dev/input/event1'])).code, 1);
    const r = await adb(fake.port, ['shell', 'cat > /dev/input/event1'], { input: tap(24, 10, 10) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /can't create \/dev\/input\/event1: Permission denied/);
    assert.equal(fake.device().entries('tap').length, 0);
  });
});
