// The servers a benchmark compares: glovebox (the build under test) and the
// TypeScript reference server (@modelcontextprotocol/server-everything, run
// directly with node so the measured process is the server, not npx).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = resolve(benchDir, '..');

/** The glovebox build to measure: $GLOVEBOX_BUILD (default build-bench/). */
export function gloveboxBinary() {
  const build = resolve(repoDir, process.env.GLOVEBOX_BUILD ?? 'build-bench');
  return join(build, 'glovebox');
}

/** { name, command, args, required } for each server, glovebox first.
 * required: a failure of this server fails the benchmark run. */
export function stdioServers() {
  const glovebox = gloveboxBinary();
  if (!existsSync(glovebox))
    throw new Error(`${glovebox} not found; build it (scripts/run-bench.sh does)`);
  // The reference server picks its transport from argv[2]: "stdio" (the
  // default), "sse" or "streamableHttp" (see its dist/index.js).
  const reference = join(benchDir, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  if (!existsSync(reference))
    throw new Error(`${reference} not found; run npm ci in bench/`);
  return [
    { name: 'glovebox', command: glovebox, args: ['serve', '--allow-all'], required: true },
    { name: 'reference (TS)', command: process.execPath, args: [reference, 'stdio'], required: false },
  ];
}
