// Recording benchmark: a WebM recording of a busy 1280×800 desktop (an
// xterm full of numbers, all different in every screenful) at 10 fps for
// BENCH_RECORD_S seconds (default 60). Prints the server's memory while it
// records (VmRSS at 2 s and at the end, VmHWM), the CPU of the encoder
// thread per frame (the tasks named gb-video: glovebox's encoder thread and
// libvpx's threads it starts), the server's CPU, how long record_stop takes,
// and what was written. No peer: this measures glovebox against itself
// (run it with GLOVEBOX_BUILD pointing at an older build to compare).
// Prints figures, never asserts on them; exits 1 only if glovebox
// misbehaves.
import { readdirSync, readFileSync } from 'node:fs';
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';

const SECONDS = Number(process.env.BENCH_RECORD_S ?? 60);
const FPS = 10;
const TICK = 100; // clock ticks a second (USER_HZ)
// Rows of numbers across the whole xterm, all different in each screenful:
// every frame changes (nearly) the whole 1200×780 window.
const BUSY = "i=0; while :; do i=$((i+1)); awk -v i=$i 'BEGIN { for (r = 0; r < 60; r++) { s = \"\"; for (c = 0; c < 33; c++) s = s sprintf(\"%6d\", i * 7 + r * 33 + c); print s } }'; sleep 0.03; done";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nsToMs = (ns) => Number(ns) / 1e6;

function status(pid, field) {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

/** utime+stime in seconds of the process, or of its tasks named comm. */
function cpu(pid, comm) {
  const ticks = (stat) => {
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  };
  if (!comm) return ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')) / TICK;
  let sum = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === comm)
        sum += ticks(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
    } catch {
      // the task ended meanwhile
    }
  }
  return sum / TICK;
}

async function main() {
  const server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all'], required: true };
  const peer = new StdioPeer(server);
  expectResult(server, 'initialize', (await peer.request('initialize', initializeParams, 30000)).msg);
  peer.notify('notifications/initialized');
  const call = async (name, args, timeoutMs = 600000) => {
    const r = await peer.request('tools/call', { name, arguments: args }, timeoutMs);
    const result = expectResult(server, name, r.msg);
    if (result.isError) throw new Error(`${name} failed: ${result.content?.map((c) => c.text).join(' ')}`);
    return { sc: result.structuredContent, ms: nsToMs(r.ns) };
  };
  const pid = peer.child.pid;
  const { sc: desk } = await call('desktop_start', { width: 1280, height: 800 });
  const session = desk.id;
  await call('launch_app', {
    session,
    command: ['xterm', '-geometry', '200x58+0+0', '-e', 'sh', '-c', BUSY],
  });
  await sleep(2000);
  const rssBefore = status(pid, 'VmRSS');
  const cpu0 = cpu(pid);
  await call('record_start', { session, format: 'webm', fps: FPS, max_bytes: 268435456 });
  await sleep(2000);
  const rss2 = status(pid, 'VmRSS');
  await sleep((SECONDS - 2) * 1000);
  const rssEnd = status(pid, 'VmRSS');
  const encCpu = cpu(pid, 'gb-video');
  const stop = await call('record_stop', { session });
  const cpu1 = cpu(pid);
  const hwm = status(pid, 'VmHWM');
  await sleep(500);
  const rssAfter = status(pid, 'VmRSS');
  const r = stop.sc;
  const res = {
    seconds: SECONDS,
    frames: r.frames,
    frames_dropped: r.frames_dropped ?? null,
    bytes: r.bytes,
    stopped_reason: r.stopped_reason,
    rss_before_mib: rssBefore,
    rss_2s_mib: rss2,
    rss_end_mib: rssEnd,
    vmhwm_mib: hwm,
    rss_after_stop_mib: rssAfter,
    encoder_cpu_s: encCpu,
    encoder_cpu_ms_per_frame: r.frames ? (encCpu * 1000) / r.frames : null,
    server_cpu_s: cpu1 - cpu0,
    record_stop_ms: stop.ms,
  };
  console.log(`\nWebM recording of a busy 1280×800 desktop, ${FPS} fps, ${SECONDS} s (${gloveboxBinary()})`);
  console.log(`  frames encoded            ${r.frames} (dropped while the encoder was busy: ${res.frames_dropped ?? 'n/a'})`);
  console.log(`  file                      ${(r.bytes / 1024 / 1024).toFixed(2)} MiB${r.stopped_reason ? `; stopped early: ${r.stopped_reason}` : ''}`);
  console.log(`  VmRSS before / 2 s / end  ${rssBefore.toFixed(1)} / ${rss2.toFixed(1)} / ${rssEnd.toFixed(1)} MiB`);
  console.log(`  VmHWM after record_stop   ${hwm.toFixed(1)} MiB; VmRSS 0.5 s after: ${rssAfter.toFixed(1)} MiB`);
  console.log(`  encoder CPU per frame     ${res.encoder_cpu_ms_per_frame === null || !encCpu ? 'n/a (no encoder thread)' : `${res.encoder_cpu_ms_per_frame.toFixed(1)} ms`}`);
  console.log(`  server CPU, whole run     ${res.server_cpu_s.toFixed(1)} s (capture, compare, encode)`);
  console.log(`  record_stop answered in   ${stop.ms.toFixed(0)} ms`);
  saveResults('record', res);
  peer.child.stdin.end();
  const exit = await peer.exited;
  if (exit.code !== 0) throw new Error(`glovebox exited uncleanly: ${JSON.stringify(exit)}\n${peer.stderr}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
