// Memory of idle xterm-peer sessions, measured in a process of its own so the
// benchmark's other work does not blur it:
//   node --expose-gc bench/peers/xterm_peer_rss.mjs SESSIONS SETTLE_MS
// Prints one JSON line: {sessions, beforeKiB, afterKiB, afterStopKiB}, VmRSS of
// this Node process (the shells are other processes and not counted, as they
// are not for glovebox).
import { XtermPeer, selfRssKiB } from './xterm_peer.mjs';

const sessions = Number(process.argv[2] ?? 50);
const settleMs = Number(process.argv[3] ?? 1000);
const cols = Number(process.env.BENCH_COLS ?? 120);
const rows = Number(process.env.BENCH_ROWS ?? 40);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Garbage is not held against the peer: collect it before each reading.
const collect = async () => {
  globalThis.gc?.();
  await sleep(50);
  globalThis.gc?.();
};

await collect();
const beforeKiB = selfRssKiB();
const peers = [];
for (let i = 0; i < sessions; i++) {
  const p = new XtermPeer({ command: ['bash', '--norc', '--noprofile'], cols, rows,
    env: { PS1: '$ ', HISTFILE: '' } });
  peers.push(p);
  const r = await p.waitFor({ regex: /^\$$/, timeoutMs: 10000 });
  if (!r.matched) throw new Error(`xterm peer: session ${i + 1} showed no prompt (${r.reason})`);
}
await sleep(settleMs);
await collect();
const afterKiB = selfRssKiB();
await Promise.all(peers.map((p) => p.stop()));
await collect();
const afterStopKiB = selfRssKiB();
console.log(JSON.stringify({ sessions, beforeKiB, afterKiB, afterStopKiB, gc: typeof globalThis.gc === 'function' }));
process.exit(0); // node-pty may keep handles open
