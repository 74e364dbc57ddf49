// Android benchmark: glovebox's android tools against mobile-mcp (npm
// @mobilenext/mobile-mcp, pinned in peers/mobile-mcp/package.json) on the same fake device
// (tests/e2e/lib/fake-adb, 1080×2400) through the same fake adb server in one
// run. The fake answers at once, so the figures are each server's own
// overhead: glovebox speaks the adb protocol itself, mobile-mcp (with
// MOBILEMCP_LEGACY_ROBOT=1) runs the `adb` program for every action.
//   tap: `click {x, y}` vs mobile_click_on_screen_at_coordinates (glovebox's
//     taps go through one shell kept open on the device; a second fake device
//     that refuses to keep one measures the step-per-tap path too; a third
//     with a writable touchscreen measures taps as evdev events written to
//     /dev/input/event1 through one kept stream: no `input` at all)
//   element list: `snapshot` vs mobile_list_elements_on_screen
//   screenshot: `screenshot` (PNG) vs mobile_take_screenshot; glovebox's come
//     from the session's screen stream (the fake's screenrecord, encoded by
//     ffmpeg: needs the ffmpeg package), measured once it is live; a second
//     session with `stream: false` measures the screencap path too
// Full tool-call round trips over stdio; p50 of BENCH_ACTIONS calls. Without
// bench/node_modules (cd bench && npm ci) only glovebox is measured.
// Prints figures, never asserts on them.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startFakeAdb } from '../tests/e2e/lib/fake-adb/index.mjs';
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatMs, percentile, printComparison, saveResults } from './lib/report.mjs';
import { benchDir, gloveboxBinary } from './lib/servers.mjs';

const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 50);
const PAIRS = Math.max(5, Math.floor(ACTIONS / 2));
const WARMUP = 3;
const SERIAL = 'emulator-5554';

async function timed(n, fn) {
  for (let i = 0; i < WARMUP; i++) await fn();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times;
}

async function glovebox(port, { tapsOnly = false, stream = true } = {}) {
  const server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all'], required: true };
  const peer = new StdioPeer(server);
  expectResult(server, 'initialize', (await peer.request('initialize', initializeParams, 30000)).msg);
  peer.notify('notifications/initialized');
  const call = async (name, args) => {
    const r = await peer.request('tools/call', { name, arguments: args }, 30000);
    const result = expectResult(server, name, r.msg);
    if (result.isError) throw new Error(`glovebox: ${name} failed: ${result.content?.map((c) => c.text).join(' ')}`);
    return result;
  };
  const s = (await call('android_connect', { adb_server: `127.0.0.1:${port}`, stream })).structuredContent;
  if (stream) { // warm-up: the stream's first picture (ffmpeg starting in the fake)
    const end = Date.now() + 30000;
    const live = async () => (await call('session_list', {})).structuredContent.sessions.find((x) => x.id === s.id).stream === 'live';
    while (!(await live()) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  }
  // An agent's loop: an action, then a screenshot. The tap at 10,10 hits
  // nothing, so the stream has no picture after it: glovebox waits for one,
  // then takes a screencap (docs/android.md, "The screen stream").
  const pair = () => timed(PAIRS, async () => { await call('click', { x: 10, y: 10 }); await call('screenshot', {}); });
  if (!stream && !tapsOnly) {
    const screenshot = await timed(ACTIONS, () => call('screenshot', {}));
    const tapShot = await pair();
    peer.child.stdin.end();
    await peer.exited;
    return { screenshot, tapShot };
  }
  if (tapsOnly) {
    const tap = await timed(ACTIONS, () => call('click', { x: 10, y: 10 }));
    peer.child.stdin.end();
    await peer.exited;
    return { tap };
  }
  const out = {
    tap: await timed(ACTIONS, () => call('click', { x: 10, y: 10 })),
    elements: await timed(ACTIONS, () => call('snapshot', {})),
    screenshot: await timed(ACTIONS, () => call('screenshot', {})),
    tapShot: await pair(),
  };
  peer.child.stdin.end();
  await peer.exited;
  return out;
}

async function mobileMcp(port) {
  const peerDir = join(benchDir, 'peers/mobile-mcp');
  if (!existsSync(join(peerDir, 'node_modules/@mobilenext/mobile-mcp'))) return null;
  const require = createRequire(join(peerDir, 'package.json'));
  const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
  const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
  const entry = require.resolve('@mobilenext/mobile-mcp/lib/index.js');
  const env = {
    ...process.env,
    ANDROID_ADB_SERVER_PORT: String(port),
    ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}`,
    ANDROID_HOME: process.env.FAKE_ADB_ANDROID_HOME ?? '/usr/lib/android-sdk',
    MOBILEMCP_LEGACY_ROBOT: '1',
  };
  const client = new Client({ name: 'android-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], env, stderr: 'ignore' }));
  const call = (name, args = {}) => client.callTool({ name, arguments: { device: SERIAL, ...args } }, undefined, { timeout: 60000 });
  try {
    return {
      tap: await timed(ACTIONS, () => call('mobile_click_on_screen_at_coordinates', { x: 10, y: 10 })),
      elements: await timed(ACTIONS, () => call('mobile_list_elements_on_screen')),
      screenshot: await timed(ACTIONS, () => call('mobile_take_screenshot')),
      tapShot: await timed(PAIRS, async () => {
        await call('mobile_click_on_screen_at_coordinates', { x: 10, y: 10 });
        await call('mobile_take_screenshot');
      }),
    };
  } finally {
    await client.close();
    // mobile-mcp leaves a `mobilecli daemon` behind; stop the one it started.
    try {
      const { spawnSync } = await import('node:child_process');
      spawnSync(require.resolve('@mobilenext/mobilecli-linux-amd64/mobilecli-linux-amd64'), ['daemon', 'stop'], { env, timeout: 10000 });
    } catch {
      // not installed
    }
  }
}

const fake = await startFakeAdb({ devices: [{ serial: SERIAL }] });
fake.device().apps.launch('com.example.login');
try {
  const g = await glovebox(fake.port);
  const m = await mobileMcp(fake.port);
  // The same taps on a device that refuses a kept shell: a connection and a new sh per tap.
  const stepFake = await startFakeAdb({ devices: [{ serial: SERIAL, keptShell: false }] });
  let step;
  try {
    step = await glovebox(stepFake.port, { tapsOnly: true, stream: false });
  } finally {
    await stepFake.close();
  }
  // The same taps as touch events on a device whose touchscreen the shell may write.
  const touchFake = await startFakeAdb({ devices: [{ serial: SERIAL, touchscreen: true }] });
  let events;
  try {
    events = await glovebox(touchFake.port, { tapsOnly: true, stream: false });
  } finally {
    await touchFake.close();
  }
  const cap = await glovebox(fake.port, { stream: false });
  const p50 = (v) => (v ? percentile(v, 50) : NaN);
  const rows = [
    { metric: 'tap p50', a: p50(g.tap), b: p50(m?.tap), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'element list p50', a: p50(g.elements), b: p50(m?.elements), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'screenshot p50 (1080×2400 PNG)', a: p50(g.screenshot), b: p50(m?.screenshot), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'screenshot p50, glovebox by screencap (stream: false)', a: p50(cap.screenshot), b: p50(m?.screenshot), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'tap then screenshot p50 (a tap that changes nothing)', a: p50(g.tapShot), b: p50(m?.tapShot), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'tap then screenshot p50, glovebox by screencap', a: p50(cap.tapShot), b: p50(m?.tapShot), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'tap p50, glovebox alone', a: p50(g.tap), b: NaN, format: formatMs, target: { max: 5, text: '< 5 ms' } },
    { metric: 'tap p50, glovebox through touch events (/dev/input)', a: p50(events.tap), b: p50(m?.tap), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'tap p50, glovebox, a step per tap (no kept shell)', a: p50(step.tap), b: NaN, format: formatMs, target: { max: 5, text: '< 5 ms' } },
  ];
  printComparison(`android benchmark (fake device 1080×2400, ${ACTIONS} calls each)`,
    ['glovebox', m ? 'mobile-mcp (adb per action)' : 'mobile-mcp (not installed)'], rows);
  saveResults('android', { glovebox: g, glovebox_step_per_tap: step, glovebox_touch_events: events, glovebox_screencap: cap, mobile_mcp: m });
} finally {
  await fake.close();
}
