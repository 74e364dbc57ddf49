// Subscription benchmark: how soon a client subscribed to a terminal's text
// hears notifications/resources/updated after the screen changes.
//   The session runs `cat` (the terminal echoes what is typed, cat prints it
//   back); each sample types "a\n" (tools/call type_text) and takes the time
//   from that request to the first notifications/resources/updated for the
//   text, then waits until the burst is over. Run with --subscribe-interval 0
//   (the path alone) and with the default 250 ms (what clients get).
//   Also: the type_text round trip, the part of the path that is input.
// glovebox only: the reference server has no terminal sessions. Prints
// figures and never asserts on them; exits 1 only if glovebox misbehaves.
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatMs, percentile, saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';

const SAMPLES = Number(process.env.BENCH_SUBSCRIBE ?? 200);
const SAMPLES_DEFAULT = Number(process.env.BENCH_SUBSCRIBE_DEFAULT ?? 30);
const now = () => process.hrtime.bigint();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function run(interval, samples) {
  const server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all', '--subscribe-interval', String(interval)] };
  const peer = new StdioPeer(server);
  const call = async (method, params) => expectResult(server, method, (await peer.request(method, params)).msg);
  await call('initialize', initializeParams);
  peer.notify('notifications/initialized');
  const started = await call('tools/call', { name: 'terminal_start', arguments: { command: ['cat'], cols: 80, rows: 24 } });
  if (started.isError) throw new Error(`terminal_start: ${JSON.stringify(started.content)}`);
  const id = started.structuredContent.id;
  const uri = `glovebox://session/${id}/text`;
  let heard = [];
  peer.onNotification = (msg, at) => {
    if (msg.method === 'notifications/resources/updated' && msg.params?.uri === uri) heard.push(at);
  };
  await call('resources/subscribe', { uri });
  const latencies = [];
  const typing = [];
  const quiet = interval + 40;
  for (let i = 0; i < samples + 5; i++) {
    await sleep(quiet);
    heard = [];
    const t0 = now();
    const r = await peer.request('tools/call', { name: 'type_text', arguments: { session: id, text: 'a\n' } });
    expectResult(server, 'type_text', r.msg);
    const deadline = Date.now() + 5000 + interval;
    while (heard.length === 0) {
      if (Date.now() > deadline) throw new Error(`no notifications/resources/updated within ${5000 + interval} ms`);
      await sleep(0.2);
    }
    if (i >= 5) {
      latencies.push(Number(heard[0] - t0) / 1e6);
      typing.push(Number(r.ns) / 1e6);
    }
  }
  const closed = await peer.close();
  if (closed.code !== 0 || closed.forced) throw new Error(`glovebox did not exit cleanly: ${JSON.stringify(closed)}\n${peer.stderr}`);
  return { latencies, typing };
}

const fast = await run(0, SAMPLES);
const slow = await run(250, SAMPLES_DEFAULT);
const rows = [
  ['change → notification, --subscribe-interval 0: p50', percentile(fast.latencies, 50)],
  ['change → notification, --subscribe-interval 0: p99', percentile(fast.latencies, 99)],
  ['change → notification, default 250 ms: p50', percentile(slow.latencies, 50)],
  ['  minus the 250 ms debounce', percentile(slow.latencies, 50) - 250],
  ['type_text round trip p50 (the input part)', percentile(fast.typing, 50)],
];
console.log(`\nterminal change → notifications/resources/updated (${SAMPLES} and ${SAMPLES_DEFAULT} samples)\n`);
for (const [k, v] of rows) console.log(`${k.padEnd(56)} ${formatMs(v)}`);
console.log('\ntarget: ≤ 10 ms plus the debounce (p50)');
saveResults('subscribe', {
  samples: { fast: SAMPLES, default: SAMPLES_DEFAULT },
  p50_ms_interval0: percentile(fast.latencies, 50),
  p99_ms_interval0: percentile(fast.latencies, 99),
  p50_ms_interval250: percentile(slow.latencies, 50),
  type_text_p50_ms: percentile(fast.typing, 50),
});
