// Recipe benchmark (issue 19): what a recipe adds per step, and a 10-step
// terminal recipe replayed in one recipe_run against the same 10 calls made
// one by one from an MCP client.
//   (1) per-step cost: recipe_run of BENCH_STEPS (200) session_list steps
//       minus recipe_run of 1 such step, divided by BENCH_STEPS - 1, against
//       one session_list round trip from the raw client; median of BENCH_REPS
//   (2) 10 terminal steps (type_text "echo N" and read_text, five times) on a
//       live bash session: one recipe_run, the same calls over the raw stdio
//       client, and over the official SDK client; median of BENCH_REPS (30);
//       the replay itself is the run's own duration (its `us`)
// Figures are printed, never asserted; exits 1 only if glovebox misbehaves.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatMs, median, saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';

const STEPS = Number(process.env.BENCH_STEPS ?? 200);
const REPS = Number(process.env.BENCH_REPS ?? 30);
const nsToMs = (ns) => Number(ns) / 1e6;

const home = mkdtempSync(join(tmpdir(), 'gb-recipe-bench-'));
// The user's recipe directory: the server runs in the bench's own cwd.
const recipes = join(home, 'config', 'glovebox', 'recipes');
mkdirSync(recipes, { recursive: true });
const env = { XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
const write = (name, steps) => writeFileSync(join(recipes, `${name}.recipe.json`), JSON.stringify({ steps }));

const list = { tool: 'session_list', arguments: {} };
write('one', [list]);
write('many', Array.from({ length: STEPS }, () => list));
const terminalSteps = [];
for (let i = 0; i < 5; i++) {
  terminalSteps.push({ tool: 'type_text', arguments: { text: `echo ${i}\n` } });
  terminalSteps.push({ tool: 'read_text', arguments: {} });
}
write('ten', terminalSteps);

const server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all', '--no-audit'], required: true };
const peer = new StdioPeer(server, { env });
let failed = false;
try {
  expectResult(server, 'initialize', (await peer.request('initialize', initializeParams)).msg);
  peer.notify('notifications/initialized');
  const call = async (name, args) => {
    const r = await peer.request('tools/call', { name, arguments: args }, 60000);
    const res = expectResult(server, name, r.msg);
    if (res.isError) throw new Error(`${name} failed: ${JSON.stringify(res.content)}`);
    if (res.structuredContent?.status && res.structuredContent.status !== 'ok')
      throw new Error(`${name}: ${JSON.stringify(res.structuredContent).slice(0, 400)}`);
    return nsToMs(r.ns);
  };
  // (1)
  const perStep = [];
  const single = [];
  for (let i = 0; i < REPS; i++) {
    const one = await call('recipe_run', { name: 'one' });
    const many = await call('recipe_run', { name: 'many' });
    perStep.push((many - one) / (STEPS - 1));
    single.push(await call('session_list', {}));
  }
  // (2)
  await call('terminal_start', { command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ', HISTFILE: '' } });
  await call('wait_for', { text: '$', timeout_ms: 10000 });
  const recipeTen = [];
  const rawTen = [];
  for (let i = 0; i < REPS; i++) {
    recipeTen.push(await call('recipe_run', { name: 'ten' }));
    let t = 0;
    for (const s of terminalSteps) t += await call(s.tool, s.arguments);
    rawTen.push(t);
  }
  // The same calls through the official SDK client, a new server.
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env: { ...process.env, ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'glovebox-bench', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'terminal_start', arguments: { command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ', HISTFILE: '' } } });
  await client.callTool({ name: 'wait_for', arguments: { text: '$', timeout_ms: 10000 } });
  const sdkTen = [];
  const sdkRecipe = [];
  // The replay itself: the run's own duration as the server reports it
  // (`us`: first step spawned to last step answered), without the one
  // round trip that asks for it and carries its answer back.
  const replay = [];
  for (let i = 0; i < REPS; i++) {
    let t0 = performance.now();
    for (const s of terminalSteps) await client.callTool({ name: s.tool, arguments: s.arguments });
    sdkTen.push(performance.now() - t0);
    t0 = performance.now();
    const run = await client.callTool({ name: 'recipe_run', arguments: { name: 'ten' } });
    sdkRecipe.push(performance.now() - t0);
    replay.push(run.structuredContent.us / 1000);
  }
  await client.close();

  const results = {
    cpus: cpus().length,
    loadavg: loadavg(),
    steps: STEPS,
    reps: REPS,
    per_step_ms: median(perStep),
    session_list_round_trip_ms: median(single),
    ten_steps_recipe_ms: median(recipeTen),
    ten_steps_raw_client_ms: median(rawTen),
    ten_steps_sdk_client_ms: median(sdkTen),
    ten_steps_recipe_via_sdk_ms: median(sdkRecipe),
    ten_steps_replay_ms: median(replay),
  };
  console.log(`\nRecipes (glovebox ${server.command}; ${cpus().length} CPUs, load ${loadavg().map((x) => x.toFixed(1)).join(' ')})\n`);
  console.log(`| metric | median |`);
  console.log(`|---|---|`);
  console.log(`| recipe cost per step (session_list steps, ${STEPS} vs 1) | ${formatMs(results.per_step_ms)} |`);
  console.log(`| one session_list round trip (raw stdio client) | ${formatMs(results.session_list_round_trip_ms)} |`);
  console.log(`| 10 terminal steps: one recipe_run (raw client) | ${formatMs(results.ten_steps_recipe_ms)} |`);
  console.log(`| 10 terminal steps: 10 calls (raw client) | ${formatMs(results.ten_steps_raw_client_ms)} |`);
  console.log(`| 10 terminal steps: one recipe_run (SDK client) | ${formatMs(results.ten_steps_recipe_via_sdk_ms)} |`);
  console.log(`| 10 terminal steps: 10 calls (SDK client) | ${formatMs(results.ten_steps_sdk_client_ms)} |`);
  console.log(`| 10 terminal steps: the replay itself (the run's \`us\`, SDK runs) | ${formatMs(results.ten_steps_replay_ms)} |`);
  console.log(`\nrecipe / raw client: ${(results.ten_steps_recipe_ms / results.ten_steps_raw_client_ms).toFixed(2)}; recipe / SDK client: ${(results.ten_steps_recipe_via_sdk_ms / results.ten_steps_sdk_client_ms).toFixed(2)}; replay / SDK client: ${(results.ten_steps_replay_ms / results.ten_steps_sdk_client_ms).toFixed(3)} (target < 0.1)`);
  saveResults('recipe', results);
} catch (e) {
  failed = true;
  console.error(`recipe benchmark: ${e.message}\n${peer.stderr}`);
} finally {
  await peer.close();
  rmSync(home, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
