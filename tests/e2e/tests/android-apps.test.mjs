// The phone tools on the fake device (tests/e2e/lib/fake-adb): apps (list,
// launch, stop, clear data), buttons, orientation, the radios, URLs and text
// beyond ASCII through ADBKeyBoard — each one's success and its refusals.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { startFakeAdb } from '../lib/fake-adb/index.mjs';
import { connectClient, needs } from '../lib/server.mjs';
import { decodeGif, decodePng, imageOf, ms, startServer, topts, until } from '../lib/terminal.mjs';

const W = 360;
const H = 800;
const LOGIN = 'com.example.login';

/** A fake adb server with one device (opts: FakeDevice options), and a connected session. */
async function phone(t, opts = {}, srvOpts = {}) {
  const adb = await startFakeAdb({ devices: [{ serial: 'emulator-5554', width: W, height: H, density: 320, ...opts }] });
  t.after(() => adb.close());
  const srv = await startServer(t, srvOpts);
  const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
  return { adb, dev: adb.device(), srv, s };
}

function errorOf(r) {
  assert.equal(r.isError, true, JSON.stringify(r).slice(0, 400));
  return r.structuredContent.error;
}

describe('phone tools on the fake adb server', () => {
  test('app_list, app_stop and app_reset, and what they refuse', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t);
    let { sc } = await srv.ok('app_list', {});
    const apps = Object.fromEntries(sc.apps.map((a) => [a.app, a]));
    assert.equal(sc.count, sc.apps.length);
    assert.deepEqual(apps[LOGIN], { app: LOGIN, activity: `${LOGIN}.MainActivity`, launchable: true, system: false });
    assert.equal(apps['com.android.settings'].system, true);
    assert.equal(apps['com.android.systemui'], undefined, 'not launchable: only with all');
    sc = (await srv.ok('app_list', { all: true })).sc;
    assert.equal(sc.apps.find((a) => a.app === 'com.android.systemui').launchable, false);

    dev.apps.launch(LOGIN);
    dev.login.username = 'ada';
    await srv.ok('app_reset', { app: LOGIN });
    assert.equal(dev.login.username, '', 'pm clear wiped the app state');
    dev.apps.launch(LOGIN);
    await srv.ok('app_stop', { app: LOGIN });
    assert.notEqual(dev.foreground, LOGIN);
    for (const tool of ['app_stop', 'app_reset']) {
      let r = await srv.call(tool, { app: 'com.example.missing' });
      assert.equal(errorOf(r).code, 'not_found', tool);
      r = await srv.call(tool, { app: '$(reboot)' });
      assert.equal(errorOf(r).code, 'invalid_argument', tool);
    }
    assert.ok(!dev.log.some((e) => e.kind === 'shell' && e.argv?.some((a) => a[0] === 'reboot')));
  });

  test('launch_app {app} starts an app or a component; missing apps, bad names and both forms refused', needs('android', needs('desktop', topts())), async (t) => {
    const { dev, srv } = await phone(t);
    const { sc } = await srv.ok('launch_app', { app: LOGIN });
    assert.equal(sc.app, LOGIN);
    assert.equal(dev.foreground, LOGIN);
    assert.equal(dev.entries('monkey').at(-1).package, LOGIN);
    let r = await srv.call('launch_app', { app: 'com.example.missing' });
    assert.equal(errorOf(r).code, 'not_found');
    assert.match(errorOf(r).message, /com\.example\.missing is not installed/);
    r = await srv.call('launch_app', { app: 'rm -rf /' });
    assert.equal(errorOf(r).code, 'invalid_argument');
    assert.match(errorOf(r).message, /app: "rm -rf \/" is not an Android package name/);
    r = await srv.call('launch_app', { app: LOGIN, command: ['xterm'] });
    assert.equal(errorOf(r).code, 'invalid_argument');
    r = await srv.call('launch_app', {});
    assert.equal(errorOf(r).code, 'invalid_argument');
    assert.match(errorOf(r).message, /command: required/);
    await srv.ok('launch_app', { app: 'com.android.settings/.Settings' });
    assert.equal(dev.foreground, 'com.android.settings');
    r = await srv.call('launch_app', { app: 'com.android.settings/.Nope' });
    assert.equal(errorOf(r).code, 'not_found');
  });

  test('computer on a phone: taps, a finger down, moved and lifted (motionevent), swipes, keys; hover-only moves just say where', needs('android', topts()), async (t) => {
    const { dev, srv, s } = await phone(t);
    const act = async (args) => (await srv.ok('computer', { session: s.id, ...args })).sc;
    const shot = await act({ action: 'screenshot' });
    assert.deepEqual(shot.display, { width: W, height: H });
    await act({ action: 'left_click', coordinate: [100, 200] });
    assert.deepEqual(dev.entries('tap').at(-1).x, 100);
    await act({ action: 'double_click', coordinate: [110, 210] });
    assert.equal(dev.entries('tap').length, 3);
    // A move with no finger down sends nothing; down, move and up do.
    const before = dev.log.length;
    const moved = await act({ action: 'mouse_move', coordinate: [50, 60] });
    assert.deepEqual(moved.cursor, { x: 50, y: 60 });
    assert.equal(dev.entries('motion').length, 0);
    assert.equal(dev.log.slice(before).filter((e) => ['tap', 'motion', 'swipe'].includes(e.kind)).length, 0);
    await act({ action: 'left_mouse_down' });
    await act({ action: 'mouse_move', coordinate: [70, 300] });
    await act({ action: 'left_mouse_up' });
    assert.deepEqual(dev.entries('motion').map((e) => [e.action, e.x, e.y]), [['DOWN', 50, 60], ['MOVE', 70, 300], ['UP', 70, 300]]);
    const pos = await act({ action: 'cursor_position' });
    assert.deepEqual(pos.position, { x: 70, y: 300 });
    await act({ action: 'scroll', coordinate: [180, 400], scroll_direction: 'down', scroll_amount: 1 });
    assert.ok(dev.entries('swipe').length >= 1);
    await act({ action: 'key', text: 'Return' });
    assert.equal(dev.entries('key').at(-1).code, 66);
    // What a phone cannot do is named.
    const hold = await srv.call('computer', { session: s.id, action: 'hold_key', text: 'shift', duration: 0.1 });
    assert.equal(errorOf(hold).code, 'not_supported');
    const out = await srv.call('computer', { session: s.id, action: 'mouse_move', coordinate: [W, 10] });
    assert.equal(errorOf(out).code, 'invalid_argument');
  });

  test('a subscription on a phone screen fires when the screen changes, not while it is still', needs('android', topts()), async (t) => {
    const { ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { dev, srv, s } = await phone(t, {}, { args: ['--subscribe-interval', '50'] });
    const uri = `glovebox://session/${s.id}/screen`;
    const heard = [];
    srv.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.push(n.params.uri));
    await srv.client.subscribeResource({ uri });
    await new Promise((r) => setTimeout(r, ms(2500)));
    assert.deepEqual(heard, [], 'a still screen sends nothing');
    dev.apps.launch(LOGIN);
    await until(() => heard.includes(uri), ms(10000), 'notifications/resources/updated for the phone screen');
    const read = await srv.client.readResource({ uri });
    assert.equal(decodePng(read.contents[0].blob).width, W);
  });

  test('a subscription on a phone screen is not fooled by the stream\'s first picture coming late (a screencap and a picture of one screen differ)', needs('android', topts()), async (t) => {
    const { ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const adb = await startFakeAdb({ devices: [{ serial: 'emulator-5554', width: W, height: H, density: 320 }] });
    t.after(() => adb.close());
    const dev = adb.device();
    const hold = dev.holdScreenrecord();
    const srv = await startServer(t, { args: ['--subscribe-interval', '50'] });
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    const uri = `glovebox://session/${s.id}/screen`;
    const heard = [];
    srv.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.push(n.params.uri));
    await srv.client.subscribeResource({ uri });
    // The sampler looks while the stream has no picture yet, then the
    // first picture comes: the same screen, so nothing is sent.
    await new Promise((r) => setTimeout(r, ms(1000)));
    hold.release(1);
    await until(async () => (await srv.ok('session_list', {})).sc.sessions.find((x) => x.id === s.id)?.stream === 'live', ms(10000), 'the stream to be live');
    hold.done();
    await new Promise((r) => setTimeout(r, ms(1500)));
    assert.deepEqual(heard, [], 'the same screen, first by screencap then in a picture, sends nothing');
    dev.apps.launch(LOGIN);
    await until(() => heard.includes(uri), ms(10000), 'notifications/resources/updated for the phone screen');
  });

  test('press_button: home, back and power reach the device as their key codes', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t);
    dev.apps.launch(LOGIN);
    dev.apps.launch('com.android.settings');
    let { sc } = await srv.ok('press_button', { button: 'back' });
    assert.deepEqual([sc.button, sc.keycode], ['back', 4]);
    assert.equal(dev.foreground, LOGIN);
    await srv.ok('press_button', { button: 'home' });
    assert.equal(dev.foreground, 'com.google.android.apps.nexuslauncher');
    await srv.ok('press_button', { button: 'power' });
    assert.equal(dev.apps.screenOn, false);
    for (const [button, code] of [['app_switch', 187], ['volume_up', 24], ['volume_down', 25], ['enter', 66], ['menu', 82]]) {
      sc = (await srv.ok('press_button', { button })).sc;
      assert.equal(sc.keycode, code);
      assert.equal(dev.entries('key').at(-1).code, code);
    }
    const r = await srv.call('press_button', { button: 'turbo' });
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r), /button/);
  });

  test('orientation: read, turn to landscape (screenshots and taps follow), auto, and a device that refuses', needs('android', topts()), async (t) => {
    const { adb, dev, srv } = await phone(t);
    let { sc } = await srv.ok('orientation', {});
    assert.deepEqual([sc.orientation, sc.rotation, sc.width, sc.height, sc.auto_rotate], ['portrait', 0, W, H, false]);
    sc = (await srv.ok('orientation', { set: 'landscape' })).sc;
    assert.deepEqual([sc.orientation, sc.rotation, sc.width, sc.height], ['landscape', 90, H, W]);
    assert.equal(dev.settings.system.user_rotation, '1');
    const shot = await srv.ok('screenshot', {});
    const png = decodePng(imageOf(shot).data);
    assert.deepEqual([png.width, png.height], [H, W]);
    await srv.ok('click', { x: 700, y: 10 }); // outside the portrait screen, inside the landscape one
    sc = (await srv.ok('orientation', { set: 'auto' })).sc;
    assert.equal(sc.auto_rotate, true);
    assert.equal(sc.orientation, 'landscape', 'the device still shows what the dump says');
    // A session connected while the device is turned sees it turned.
    const again = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    assert.deepEqual([again.width, again.height], [H, W]);

    const locked = await phone(t, { settingsWritable: false });
    const r = await locked.srv.call('orientation', { set: 'landscape' });
    assert.equal(errorOf(r).code, 'not_supported');
    assert.match(errorOf(r).message, /does not let adb set the rotation: .*WRITE_SECURE_SETTINGS/);
    assert.equal((await locked.srv.ok('orientation', {})).sc.orientation, 'portrait', 'reading still works');
  });

  test('set_network switches Wi-Fi, data and airplane mode; not_supported where the device cannot', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t);
    let { sc } = await srv.ok('set_network', {});
    assert.deepEqual(sc.state, { wifi: true, data: true, airplane: false });
    sc = (await srv.ok('set_network', { wifi: false, airplane: true })).sc;
    assert.deepEqual(sc.state, { wifi: false, data: true, airplane: true });
    assert.equal(dev.settings.global.airplane_mode_on, '1');
    sc = (await srv.ok('set_network', { wifi: true, data: false, airplane: false })).sc;
    assert.deepEqual(sc.state, { wifi: true, data: false, airplane: false });

    const old = await phone(t, { sdk: 29, release: '10' });
    let r = await old.srv.call('set_network', { airplane: true });
    assert.equal(errorOf(r).code, 'not_supported');
    assert.match(errorOf(r).message, /airplane: .*Unknown command: airplane-mode.*Android 11/);
    const tablet = await phone(t, { telephony: false });
    r = await tablet.srv.call('set_network', { wifi: false, data: true });
    assert.equal(errorOf(r).code, 'not_supported');
    assert.match(errorOf(r).message, /data: .*Can't find service: phone/);
  });

  test('open_url opens a VIEW intent on the phone; other schemes are refused', needs('android', needs('webdriver', topts())), async (t) => {
    const { dev, srv } = await phone(t);
    const url = "https://example.com/a?q=1&x='$(id)'";
    const { sc } = await srv.ok('open_url', { url });
    assert.equal(sc.url, url);
    assert.equal(dev.foreground, 'com.android.chrome');
    assert.equal(dev.apps.url, url);
    assert.ok(!dev.log.some((e) => e.kind === 'shell' && e.argv?.some((a) => a[0] === 'id')));
    const r = await srv.call('open_url', { url: 'file:///etc/passwd' });
    assert.equal(errorOf(r).code, 'denied');
  });

  test('text beyond ASCII goes through ADBKeyBoard when it is the input method; else what to install or select', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t, { adbKeyboard: 'selected' });
    dev.apps.launch(LOGIN);
    dev.login.focus = 'username';
    const text = "café 日本 $(id) 'q'";
    const { sc } = await srv.ok('type_text', { text });
    assert.equal(sc.characters, [...text].length);
    assert.equal(dev.login.username, text);
    assert.ok(!dev.log.some((e) => e.kind === 'shell' && e.argv?.some((a) => a[0] === 'id')));
    assert.equal(dev.entries('ime-text').at(-1).text, text);
    assert.equal(dev.entries('am-broadcast').at(-1).package, 'com.android.adbkeyboard', 'sent to ADBKeyBoard alone');

    const installed = await phone(t, { adbKeyboard: true });
    let r = await installed.srv.call('type_text', { text: 'naïve' });
    assert.equal(errorOf(r).code, 'not_supported');
    assert.match(errorOf(r).message, /U\+00EF.*installed but is not the current input method: run `adb shell ime enable com\.android\.adbkeyboard\/\.AdbIME`/);
    const none = await phone(t);
    r = await none.srv.call('type_text', { text: 'naïve' });
    assert.equal(errorOf(r).code, 'not_supported');
    assert.match(errorOf(r).message, /Install ADBKeyBoard/);
  });

  test('a launch_app commands rule restricts phone apps by /android/<package>', needs('android', needs('desktop', topts())), async (t) => {
    const tmp = mkdtempSync(join(tmpdir(), 'gb-android-policy-'));
    const policy = join(tmp, 'policy.json');
    writeFileSync(policy, JSON.stringify({
      allow: ['android_connect', 'launch_app', 'session_list'],
      rules: { launch_app: { apps: ['/android/com.example.*'] } },
    }));
    const adb = await startFakeAdb({ devices: [{ width: W, height: H }] });
    t.after(() => adb.close());
    const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy, '--data-dir', join(tmp, 'data')],
      env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') } });
    const call = (name, args) => srv.client.callTool({ name, arguments: args });
    assert.equal((await call('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).isError, undefined);
    assert.equal((await call('launch_app', { app: LOGIN })).isError, undefined);
    assert.equal(adb.device().foreground, LOGIN);
    const r = await call('launch_app', { app: 'com.android.settings' });
    assert.equal(errorOf(r).code, 'denied');
    assert.match(errorOf(r).message, /rules\.launch_app/);
    assert.equal(adb.device().foreground, LOGIN);
  });

  test('app_uninstall removes an app after the person confirms; unknown and system apps refused', needs('android', topts()), async (t) => {
    const tmp = mkdtempSync(join(tmpdir(), 'gb-android-uninstall-'));
    const policy = join(tmp, 'policy.json');
    writeFileSync(policy, JSON.stringify({ allow: ['*'], confirm: ['app_uninstall'] }));
    const adb = await startFakeAdb({ devices: [{ width: W, height: H, game: true }] });
    t.after(() => adb.close());
    const dev = adb.device();
    const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy, '--data-dir', join(tmp, 'data')],
      env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') }, capabilities: { elicitation: {} } });
    const asked = [];
    let answer = { action: 'accept', content: { confirm: true } };
    srv.client.setRequestHandler(ElicitRequestSchema, async (req) => { asked.push(req.params.message); return answer; });
    const call = (name, args) => srv.client.callTool({ name, arguments: args });
    const s = (await call('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).structuredContent;
    dev.apps.launch(LOGIN);

    // The person says no: nothing reaches the device.
    answer = { action: 'decline' };
    let r = await call('app_uninstall', { app: LOGIN });
    assert.equal(r.isError, true);
    assert.match(asked[0], new RegExp(`^Allow the agent to uninstall the app "${LOGIN}" from the current session\\?`));
    assert.ok(dev.apps.packages.has(LOGIN));
    assert.ok(!dev.log.some((e) => e.kind === 'shell' && /pm uninstall/.test(e.line)));

    answer = { action: 'accept', content: { confirm: true } };
    r = await call('app_uninstall', { app: LOGIN });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.deepEqual(r.structuredContent, { session: s.id, app: LOGIN });
    assert.ok(!dev.apps.packages.has(LOGIN), 'pm uninstall removed it');
    assert.notEqual(dev.foreground, LOGIN, 'it left the screen');
    assert.ok(!(await call('app_list', {})).structuredContent.apps.some((a) => a.app === LOGIN));
    r = await call('app_uninstall', { session: s.id, app: 'com.example.game', keep_data: true });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.equal(asked.at(-1).split('\n')[0], `Allow the agent to uninstall the app "com.example.game" (keeping its data) from session "${s.id}"?`);
    assert.ok(dev.log.some((e) => e.kind === 'shell' && e.line.includes('pm uninstall -k com.example.game')));

    // Not installed (now, or ever): not_found naming app_list; a system app:
    // the device's refusal; a name that is no package: invalid_argument.
    for (const app of [LOGIN, 'com.example.missing']) {
      const e = errorOf(await call('app_uninstall', { app }));
      assert.equal(e.code, 'not_found', app);
      assert.match(e.message, new RegExp(`app: ${app.replace(/\./g, '\\.')} is not installed.*app_list`));
    }
    let e = errorOf(await call('app_uninstall', { app: 'com.android.settings' }));
    assert.equal(e.code, 'tool_failed');
    assert.match(e.message, /DELETE_FAILED_INTERNAL_ERROR/);
    e = errorOf(await call('app_uninstall', { app: '$(reboot)' }));
    assert.equal(e.code, 'invalid_argument');
    assert.ok(dev.apps.packages.has('com.android.settings'));
  });

  test('record_start/record_stop: a GIF of the phone screen through the shared recorder; a device that leaves keeps its file', needs('android', topts()), async (t) => {
    const { dev, srv, s } = await phone(t, { width: 180, height: 400 });
    let r = await srv.call('record_start', { fps: 11 });
    assert.equal(errorOf(r).code, 'invalid_argument');
    assert.match(errorOf(r).message, /"fps" is at most 10 for android sessions \(each frame is a screencap\)/);
    const start = (await srv.ok('record_start', { format: 'gif', fps: 10 })).sc;
    assert.equal(start.fps, 10);
    r = await srv.call('record_start', {});
    assert.match(errorOf(r).message, /already being recorded/);
    // The first sample is on its way (the launcher) when the screen changes and
    // record_stop comes: its last look, after that sample, shows the login app.
    const release = dev.holdScreencap();
    await until(async () => dev.entries('screencap').length >= 1, ms(10000), 'a first screencap');
    dev.apps.launch(LOGIN);
    const stopping = srv.ok('record_stop', {});
    await new Promise((r) => setTimeout(r, 100));
    release();
    const stop = await stopping;
    assert.equal(stop.sc.recording, start.recording);
    assert.ok(stop.sc.frames >= 2, `${stop.sc.frames} frames`);
    const link = stop.content.find((c) => c.type === 'resource_link');
    assert.equal(link.mimeType, 'image/gif');
    const gif = decodeGif(readFileSync(stop.sc.path));
    assert.deepEqual([gif.width, gif.height], [180, 400]);
    r = await srv.call('record_stop', {});
    assert.equal(errorOf(r).code, 'not_found');
    // Ended by the device going away: the recording is written.
    const again = (await srv.ok('record_start', { session: s.id, format: 'webp' })).sc;
    dev.dropNextCall({ match: /uiautomator/, after: '<hierarchy>' });
    await srv.call('snapshot', { session: s.id });
    const uri = `glovebox://recording/${again.recording}`;
    await until(async () => (await srv.client.listResources()).resources.some((x) => x.uri === uri), ms(15000), `${uri} listed`);
    r = await srv.call('record_stop', { session: s.id });
    assert.equal(errorOf(r).code, 'not_found');
    assert.match(errorOf(r).message, new RegExp(`was written when the session ended \\(${uri}\\)`));
  });

  test('a server that shuts down while a screencap is on its way writes the recording and exits cleanly', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t, { width: 180, height: 400 });
    const release = dev.holdScreencap();
    const start = (await srv.ok('record_start', { format: 'gif' })).sc;
    await until(async () => dev.entries('screencap').length >= 1, ms(10000), 'a first screencap');
    const closing = srv.close(); // asserts a clean exit (no sanitizer report)
    await new Promise((r) => setTimeout(r, 200));
    release();
    await closing;
    assert.deepEqual(readdirSync(join(srv.dataDir, 'recordings')).filter((f) => f.startsWith(start.recording)), [`${start.recording}.gif`]);
  });

  test('app_install copies an APK with sync: and installs it, with progress; missing files and bad APKs refused', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t);
    const dir = mkdtempSync(join(tmpdir(), 'gb-apk-'));
    const apk = join(dir, 'notes.apk');
    // The fake device's APK format (its README): a first line naming the package.
    const size = 3 * 1048576 + 38;
    writeFileSync(apk, 'package=com.example.notes label=Notes\n' + 'x'.repeat(size - 38));
    const seen = [];
    const r = await srv.ok('app_install', { path: apk }, { onprogress: (p) => seen.push(p) });
    assert.deepEqual([r.sc.path, r.sc.bytes], [apk, size]);
    // Bytes copied, a MiB at a time, then the install: each figure above
    // the last (as MCP asks), all of one total, the last one complete.
    const got = seen.map((p) => [p.progress, p.total, p.message]);
    assert.deepEqual(got[0], [0, size + 1, 'copying to the device']);
    // The SDK hands notifications on a tick later than answers, so the
    // last one ("installed", sent just before the answer) may come too late
    // for onprogress: it is checked only when it came.
    if (got.at(-1)[2] === 'installed') assert.deepEqual(got.pop(), [size + 1, size + 1, 'installed']);
    assert.deepEqual(got.at(-1), [size, size + 1, 'copied; installing']);
    const copied = got.slice(1, -1);
    assert.ok(copied.length >= 2, `a notification per MiB copied: ${JSON.stringify(got)}`);
    for (const [p, total, message] of copied) {
      assert.equal(total, size + 1);
      assert.match(message, /^copied \d+\.\d of 3\.0 MiB to the device$/);
      assert.ok(p > 0 && p < size, `${p}`);
    }
    for (let i = 1; i < got.length; i++) assert.ok(got[i][0] > got[i - 1][0], `progress increases: ${JSON.stringify(got)}`);
    const push = dev.entries('push').at(-1);
    assert.equal(push.bytes, size);
    assert.match(push.path, /^\/data\/local\/tmp\/glovebox-\d+-\d+\.apk$/);
    assert.equal(dev.fs.read(push.path), null, 'the copy on the device is removed');
    assert.ok((await srv.ok('app_list', {})).sc.apps.some((a) => a.app === 'com.example.notes'));

    let e = errorOf(await srv.call('app_install', { path: join(dir, 'missing.apk') }));
    assert.equal(e.code, 'not_found');
    assert.match(e.message, /path: cannot read ".*missing\.apk" on the glovebox machine: No such file/);
    writeFileSync(join(dir, 'bad.apk'), 'not an apk');
    e = errorOf(await srv.call('app_install', { path: join(dir, 'bad.apk') }));
    assert.equal(e.code, 'tool_failed');
    assert.match(e.message, /Failure \[INSTALL_PARSE_FAILED_NOT_APK/);
    e = errorOf(await srv.call('app_install', { path: dir }));
    assert.equal(e.code, 'not_found');
  });

  test('a remote adb server only where the policy lists its host in rules.<tool>.hosts', needs('android', topts()), async (t) => {
    const adb = await startFakeAdb({ devices: [{ width: W, height: H }] });
    t.after(() => adb.close());
    // ::ffff:127.0.0.1 is not a loopback address by name, but the traffic stays on this machine.
    const remote = `[::ffff:127.0.0.1]:${adb.port}`;
    const open = await startServer(t);
    let e = errorOf(await open.call('device_list', { adb_server: remote }));
    assert.equal(e.code, 'invalid_argument');
    assert.match(e.message, /not a loopback address.*rules\.android_connect\.hosts/);

    const tmp = mkdtempSync(join(tmpdir(), 'gb-android-hosts-'));
    const policy = join(tmp, 'policy.json');
    const hosts = ['[::ffff:127.0.0.1]'];
    writeFileSync(policy, JSON.stringify({
      allow: ['android_connect', 'device_list', 'session_list'],
      rules: { android_connect: { hosts }, device_list: { hosts } },
    }));
    const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy, '--data-dir', join(tmp, 'data')],
      env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') } });
    const call = (name, args) => srv.client.callTool({ name, arguments: args });
    let r = await call('device_list', { adb_server: remote });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.equal(r.structuredContent.count, 1);
    r = await call('android_connect', { adb_server: remote });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.equal(r.structuredContent.adb_server, `::ffff:127.0.0.1:${adb.port}`);
    // A host the rule does not list is refused before any traffic.
    e = errorOf(await call('android_connect', { adb_server: '192.0.2.7:5037' }));
    assert.equal(e.code, 'denied');
    assert.match(e.message, /may not reach "192\.0\.2\.7".*rules\.android_connect\.hosts/);
  });

  test('wait_for text, regex, gone and stable_ms on uiautomator dumps; timeout, refusals, a session that stops', needs('android', topts()), async (t) => {
    const { dev, srv, s } = await phone(t);
    dev.apps.launch(LOGIN);
    dev.login.username = 'ada';
    const waiting = srv.ok('wait_for', { text: 'Welcome', timeout_ms: 20000 });
    const gone = srv.ok('wait_for', { text: 'Sign in to Example', gone: true, timeout_ms: 20000 });
    await until(async () => dev.entries('uiautomator').length >= 2, ms(10000), 'the waits looking');
    dev.apps.signIn();
    let r = (await waiting).sc;
    assert.deepEqual([r.matched, r.line, r.source], [true, 'Welcome, ada', 'accessibility']);
    assert.equal(typeof r.elapsed_ms, 'number');
    assert.equal((await gone).sc.matched, true);
    r = (await srv.ok('wait_for', { regex: '^Welcome, \\w+$' })).sc;
    assert.deepEqual([r.matched, r.line], [true, 'Welcome, ada']);
    r = (await srv.ok('wait_for', { text: 'nowhere', timeout_ms: 300 })).sc;
    assert.deepEqual([r.matched, r.reason], [false, 'timeout']);
    r = (await srv.ok('wait_for', { stable_ms: 300, timeout_ms: 20000 })).sc;
    assert.equal(r.matched, true);
    for (const [args, code] of [[{ ref: 'e1' }, 'not_found'], [{ exit: true }, 'not_supported'], [{ text: 'a', regex: 'b' }, 'invalid_argument'], [{ regex: '(' }, 'invalid_argument']]) {
      assert.equal(errorOf(await srv.call('wait_for', args)).code, code, JSON.stringify(args));
    }
    // A wait on a session that is stopped answers at once.
    const stopped = srv.call('wait_for', { session: s.id, text: 'never', timeout_ms: 60000 });
    await until(async () => dev.entries('uiautomator').length >= 1 && true, ms(10000), 'looking');
    await new Promise((res) => setTimeout(res, 300));
    await srv.ok('session_stop', { session: s.id });
    assert.equal(errorOf(await stopped).code, 'session_expired');
  });

  test('a server that shuts down during a wait_for answers it and exits cleanly', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t);
    const waiting = srv.call('wait_for', { text: 'never', timeout_ms: 60000 }).catch((e) => e);
    await until(async () => dev.entries('uiautomator').length >= 2, ms(10000), 'the wait looking');
    await srv.close(); // asserts a clean exit (no sanitizer report)
    await waiting;
  });

  test('read_text by OCR: asked for, or when uiautomator has no hierarchy; refusals', needs('android', needs('ocr', topts())), async (t) => {
    const { dev, srv } = await phone(t);
    dev.apps.launch(LOGIN);
    let { sc } = await srv.ok('read_text', { ocr: true });
    assert.equal(sc.source, 'ocr');
    assert.ok(sc.lines.includes('Username') && sc.lines.includes('Password'), sc.text);
    assert.equal(sc.fallback, undefined);
    dev.setUiXml('ERROR: could not get idle state.');
    sc = (await srv.ok('read_text', {})).sc;
    assert.equal(sc.source, 'ocr');
    assert.ok(sc.lines.includes('Username'), sc.text);
    assert.match(sc.fallback, /^uiautomator gave no window hierarchy: ERROR: could not get idle state\.$/);
    dev.setUiXml(null);
    assert.equal((await srv.ok('read_text', {})).sc.source, 'accessibility');
    assert.equal(errorOf(await srv.call('read_text', { ocr: true, lang: 'no such lang' })).code, 'invalid_argument');
    assert.equal(errorOf(await srv.call('read_text', { ref: 'e1' })).code, 'not_supported');
  });

  test('drag is a one-finger swipe from one point to another', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t);
    const { sc } = await srv.ok('drag', { from: { x: 100, y: 600 }, to: { x: 100, y: 200 }, duration_ms: 400 });
    assert.deepEqual([sc.from, sc.to], [{ x: 100, y: 600 }, { x: 100, y: 200 }]);
    const swipe = dev.entries('swipe').at(-1);
    assert.deepEqual([swipe.x1, swipe.y1, swipe.x2, swipe.y2, swipe.ms], [100, 600, 100, 200, 400]);
    assert.equal(errorOf(await srv.call('drag', { from: { x: 1, y: 1 }, to: { x: 5000, y: 1 } })).code, 'invalid_argument');
    assert.equal(errorOf(await srv.call('drag', { from: { x: 1, y: 1 }, to: { x: 2, y: 2 }, button: 'right' })).code, 'not_supported');
  });
});
