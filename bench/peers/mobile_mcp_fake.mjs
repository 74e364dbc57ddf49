// Checks what mobile-mcp (npm @mobilenext/mobile-mcp, pinned in peers/mobile-mcp/package.json)
// can do against the fake adb server: it runs the real `adb` for every action,
// pointed at the fake by ANDROID_ADB_SERVER_PORT. Prints one line per tool
// call with its time and whether the fake device saw the effect. The peer for
// the android benchmark; run: node peers/mobile_mcp_fake.mjs
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFakeAdb } from '../../tests/e2e/lib/fake-adb/index.mjs';

const require = createRequire(new URL('./mobile-mcp/package.json', import.meta.url));
const entry = require.resolve('@mobilenext/mobile-mcp/lib/index.js');
const fake = await startFakeAdb({ devices: [{ serial: 'emulator-5554' }] });
const dev = fake.device();
const env = { ...process.env, ANDROID_ADB_SERVER_PORT: String(fake.port), ADB_SERVER_SOCKET: `tcp:127.0.0.1:${fake.port}` };
// mobile-mcp and its mobilecli look for $ANDROID_HOME/platform-tools/adb; Debian installs it there.
env.ANDROID_HOME = process.env.FAKE_ADB_ANDROID_HOME ?? "/usr/lib/android-sdk";
const client = new Client({ name: 'fake-adb-check', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], env, stderr: 'pipe' }));

const results = [];
async function call(name, args, check) {
  const t0 = performance.now();
  let res;
  let error = null;
  try {
    res = await client.callTool({ name, arguments: { device: 'emulator-5554', ...args } });
  } catch (e) {
    error = e.message;
  }
  const ms = performance.now() - t0;
  const text = res?.content?.map((c) => (c.type === 'text' ? c.text : `[${c.type} ${c.mimeType ?? ''} ${c.data?.length ?? 0}b]`)).join(' ') ?? '';
  const ok = !error && !res?.isError && (check ? check(text, res) : true);
  results.push({ name, ok, ms: Math.round(ms) });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(40)} ${String(Math.round(ms)).padStart(5)} ms  ${(error ?? text).slice(0, process.env.FULL ? 2000 : 150).replace(/\n/g, ' ')}`);
  return text;
}

await call('mobile_list_available_devices', {}, (t) => t.includes('emulator-5554'));
await call('mobile_get_screen_size', {}, (t) => t.includes('1080'));
await call('mobile_list_apps', {}, (t) => t.includes('com.example.login'));
await call('mobile_launch_app', { packageName: 'com.example.login' }, () => dev.foreground === 'com.example.login');
const els = await call('mobile_list_elements_on_screen', {}, (t) => t.includes('Username'));
await call('mobile_take_screenshot', {}, (t, r) => r.content?.some((c) => c.type === 'image'));
await call('mobile_click_on_screen_at_coordinates', { x: 540, y: 420 }, () => dev.login.focus === 'username');
await call('mobile_type_keys', { text: "it's $(id) `x` ; a&b", submit: false },
  () => dev.login.username === "it's $(id) `x` ; a&b");
await call('mobile_type_keys', { text: '#tag 100%s', submit: false }, () => dev.login.username.endsWith('#tag 100%s'));
await call('mobile_press_button', { button: 'BACK' }, () => dev.foreground !== 'com.example.login');
await call('mobile_open_url', { url: 'https://example.com/?q=a b&c=1' }, () => dev.apps.url === 'https://example.com/?q=a b&c=1');
await call('mobile_get_orientation', {}, (t) => /portrait/.test(t));
await call('mobile_set_orientation', { orientation: 'landscape' }, () => dev.rotation() === 1);
await call('mobile_long_press_on_screen_at_coordinates', { x: 100, y: 100 }, () => dev.entries('longpress').length === 1);
await call('mobile_swipe_on_screen', { direction: 'up' }, () => dev.entries('swipe').length === 1);
await call('mobile_terminate_app', { packageName: 'com.android.chrome' }, () => dev.foreground !== 'com.android.chrome');

// Timing of the three calls the benchmark will compare (p50 of 10).
for (const [name, args] of [['mobile_click_on_screen_at_coordinates', { x: 10, y: 10 }],
  ['mobile_list_elements_on_screen', {}], ['mobile_take_screenshot', {}]]) {
  const times = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    await client.callTool({ name, arguments: { device: 'emulator-5554', ...args } });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`p50 ${name}: ${times[5].toFixed(1)} ms (fake device, adb process per action)`);
}
void els;
await client.close();
// What the device refused: commands the fake does not know or that failed, and services it closed.
const failed = dev.log.filter((e) => (e.kind === 'shell' && e.exit !== 0)).map((e) => `exit ${e.exit}: ${e.line}`);
const services = [...new Set(dev.entries('service').map((e) => e.service.replace(/:.*$/s, ':…')))];
console.log(`services used: ${services.join(' ')}`);
for (const f of [...new Set(failed)]) console.log(`device refused: ${f.slice(0, 200)}`);
if (process.env.FAKE_ADB_VERBOSE) for (const l of new Set(dev.entries("shell").map((e) => e.line))) console.log(`shell: ${l.slice(0, 200)}`);
// mobile-mcp starts a `mobilecli daemon` that outlives it and keeps the adb port it was started
// with; stop the one this run started so the next run does not talk to a dead fake.
{
  const { spawnSync } = await import('node:child_process');
  const bin = require.resolve('@mobilenext/mobilecli-linux-amd64/mobilecli-linux-amd64');
  spawnSync(bin, ['daemon', 'stop'], { env, timeout: 10000 });
}
await fake.close();
console.log(`${results.filter((r) => r.ok).length}/${results.length} calls did what they should`);
