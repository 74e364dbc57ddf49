// stdio benchmark: glovebox against the TypeScript reference server, in one
// run, over raw pipes.
//   (a) spawn → initialize result, median of BENCH_SPAWNS (20) fresh processes
//   (b) ping and tools/list round trips, p50/p99 over BENCH_CALLS (1000)
//       sequential calls each, after BENCH_WARMUP (50) uncounted ones
//   (c) peak RSS (VmHWM) of the server process after (b), before closing:
//       no session was started
//   (d) the shared libraries it has mapped then, and which of them are heavy
//       ones no session needed yet (X11/xcb, GLib/GIO, AT-SPI, Tesseract,
//       libcurl): glovebox loads those with a session's module
// Prints figures and never asserts on them; exits 1 only if glovebox
// misbehaves (error reply, timeout, crash, unclean exit).
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatKiB, formatMs, median, percentile, printComparison, saveResults } from './lib/report.mjs';
import { stdioServers } from './lib/servers.mjs';

const SPAWNS = Number(process.env.BENCH_SPAWNS ?? 20);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);

const nsToMs = (ns) => Number(ns) / 1e6;
const HEAVY = /\/lib(X11|xcb|gio-2\.0|glib-2\.0|gobject-2\.0|atspi|tesseract|leptonica|curl)[^/]*\.so/;

async function checkedClose(server, peer, failures) {
  const exit = await peer.close();
  // glovebox must leave by itself, cleanly, when stdin closes; the reference
  // server may need a signal, which is not held against it.
  if (server.required && (exit.forced || exit.code !== 0))
    failures.push(`${server.name} did not exit cleanly after stdin closed ` +
      `(${exit.forced ? 'had to be killed' : `status ${exit.code}, signal ${exit.signal}`})` +
      (peer.stderr ? `; stderr: ${peer.stderr.trim().slice(-500)}` : ''));
}

async function startupOnce(server, failures) {
  const peer = new StdioPeer(server);
  try {
    const r = await peer.request('initialize', initializeParams, 30000);
    expectResult(server, 'initialize', r.msg);
    return nsToMs(r.at - peer.spawnedAt);
  } finally {
    await checkedClose(server, peer, failures);
  }
}

async function latencySession(server, failures) {
  const peer = new StdioPeer(server);
  const out = { ping: [], toolsList: [], toolsListBytes: NaN, tools: NaN, peakRssKiB: NaN };
  try {
    expectResult(server, 'initialize', (await peer.request('initialize', initializeParams, 30000)).msg);
    peer.notify('notifications/initialized');
    for (let i = 0; i < WARMUP; i++) {
      expectResult(server, 'ping', (await peer.request('ping')).msg);
      expectResult(server, 'tools/list', (await peer.request('tools/list')).msg);
    }
    for (let i = 0; i < CALLS; i++) {
      const r = await peer.request('ping');
      expectResult(server, 'ping', r.msg);
      out.ping.push(nsToMs(r.ns));
    }
    for (let i = 0; i < CALLS; i++) {
      const r = await peer.request('tools/list');
      const result = expectResult(server, 'tools/list', r.msg);
      out.toolsList.push(nsToMs(r.ns));
      out.toolsListBytes = r.bytes;
      out.tools = result.tools.length;
    }
    if (peer.protocolError) throw new Error(peer.protocolError);
    out.peakRssKiB = peer.peakRssKiB() ?? NaN;
    const libs = peer.mappedLibraries() ?? [];
    out.libraries = libs.length || NaN;
    out.heavy = libs.filter((p) => HEAVY.test(p)).map((p) => p.replace(/^.*\//, ''));
  } finally {
    await checkedClose(server, peer, failures);
  }
  return out;
}

async function main() {
  const servers = stdioServers();
  const failures = []; // glovebox problems: fail the run
  const results = Object.fromEntries(servers.map((s) => [s.name, { startup: [], errors: [] }]));
  const note = (server, err) => {
    const msg = err instanceof Error ? err.message : String(err);
    results[server.name].errors.push(msg);
    if (server.required) failures.push(msg);
    else console.error(`warning: ${msg}`);
  };

  console.log(`stdio: ${SPAWNS} spawns per server (interleaved), then ${CALLS} pings and ` +
    `${CALLS} tools/list per server after ${WARMUP} warm-up calls of each`);
  for (const s of servers) console.log(`  ${s.name}: ${[s.command, ...s.args].join(' ')}`);

  // (a) Interleaved, so drift in machine load hits both servers alike.
  for (let i = 0; i < SPAWNS; i++) {
    for (const s of servers) {
      if (results[s.name].errors.length) continue;
      try {
        results[s.name].startup.push(await startupOnce(s, failures));
      } catch (err) {
        note(s, err);
      }
    }
  }
  // (b), (c) One server at a time, so they do not compete for the cores.
  for (const s of servers) {
    if (results[s.name].errors.length) continue;
    try {
      Object.assign(results[s.name], await latencySession(s, failures));
    } catch (err) {
      note(s, err);
    }
  }

  const [a, b] = servers.map((s) => results[s.name]);
  const stat = (r, key, p) => (r[key]?.length ? percentile(r[key], p) : NaN);
  printComparison('stdio benchmark', servers.map((s) => s.name), [
    { metric: `start-up to initialize result (median of ${SPAWNS})`, a: stat(a, 'startup', 50),
      b: stat(b, 'startup', 50), format: formatMs, target: { ratio: 1 / 20, text: '≤ 1/20' } },
    { metric: `ping p50 (${CALLS} calls)`, a: stat(a, 'ping', 50), b: stat(b, 'ping', 50),
      format: formatMs, target: { ratio: 1, text: '≤ 1×' } },
    { metric: 'ping p99', a: stat(a, 'ping', 99), b: stat(b, 'ping', 99), format: formatMs },
    { metric: `tools/list p50 (${CALLS} calls)`, a: stat(a, 'toolsList', 50),
      b: stat(b, 'toolsList', 50), format: formatMs, target: { ratio: 1, text: '≤ 1×' } },
    { metric: 'tools/list p99', a: stat(a, 'toolsList', 99), b: stat(b, 'toolsList', 99),
      format: formatMs },
    { metric: 'peak RSS (VmHWM)', a: a.peakRssKiB ?? NaN, b: b.peakRssKiB ?? NaN, format: formatKiB,
      target: { ratio: 1 / 10, text: '≤ 1/10' } },
    { metric: 'shared libraries mapped', a: a.libraries ?? NaN, b: b.libraries ?? NaN,
      format: (n) => (Number.isFinite(n) ? String(n) : 'n/a') },
  ]);
  for (const s of servers) {
    const r = results[s.name];
    if (r.heavy) console.log(`${s.name}: heavy libraries mapped with no session: ${r.heavy.length ? r.heavy.join(', ') : 'none'}`);
  }
  for (const s of servers) {
    const r = results[s.name];
    if (r.startup.length)
      console.log(`${s.name}: start-up min ${formatMs(Math.min(...r.startup))}, ` +
        `max ${formatMs(Math.max(...r.startup))}; tools/list answer ${r.tools} tools, ` +
        `${r.toolsListBytes} bytes`);
  }

  saveResults('stdio', {
    date: new Date().toISOString(),
    spawns: SPAWNS, calls: CALLS, warmup: WARMUP,
    servers: Object.fromEntries(servers.map((s) => {
      const r = results[s.name];
      return [s.name, {
        command: [s.command, ...s.args].join(' '),
        startupMedianMs: median(r.startup),
        pingP50Ms: stat(r, 'ping', 50), pingP99Ms: stat(r, 'ping', 99),
        toolsListP50Ms: stat(r, 'toolsList', 50), toolsListP99Ms: stat(r, 'toolsList', 99),
        peakRssKiB: r.peakRssKiB ?? null, libraries: r.libraries ?? null, heavy: r.heavy ?? null,
        tools: r.tools ?? null, toolsListBytes: r.toolsListBytes ?? null,
        errors: r.errors,
      }];
    })),
  });

  if (failures.length) {
    console.error('\nglovebox failed:');
    for (const f of failures) console.error(`  ${f}`);
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
