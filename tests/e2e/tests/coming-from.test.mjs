// docs/coming-from.md maps every tool of other screen-control servers to a
// glovebox call. Kept true here: every glovebox tool its tables name (the
// code spans of the second column) exists in tools/list of a full build, and
// every tool of mobile-mcp (when its package is installed for the
// benchmarks) has a row.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { REPO_DIR, connectClient, needs, opts } from '../lib/server.mjs';

const DOC = join(REPO_DIR, 'docs/coming-from.md');
const SYSTEMS = ['mirroir-mcp', 'Overlay Companion MCP', 'Mobile MCP microservice', 'The terminal MCP server', 'Daemon OS', 'playwright-mcp', 'mobile-mcp'];

// Tools the other parts of issue 23 add on their own branches. Named by the
// doc already; while one is missing from this build it is reported, not
// failed. Remove each name once its tool has landed.
const PENDING = new Set([]);

/** { section: [{ theirs, ours: [tool names], line }] } from the doc's tables. */
function tables() {
  const out = {};
  let section = null;
  readFileSync(DOC, 'utf8').split('\n').forEach((line, i) => {
    const h = /^## (.+)$/.exec(line);
    if (h) section = h[1];
    if (!line.startsWith('|') || /^\|[-| ]+\|$/.test(line)) return;
    const cells = line.slice(1, -1).split(' | ').map((c) => c.trim());
    if (cells[1] === 'glovebox') return; // the header
    assert.equal(cells.length, 3, `docs/coming-from.md:${i + 1}: a row has three cells: ${line}`);
    const ours = [...cells[1].matchAll(/`([^`]+)`/g)].map((m) => {
      const name = /^[a-z][a-z0-9_]*/.exec(m[1]);
      assert.ok(name, `docs/coming-from.md:${i + 1}: "${m[1]}" does not start with a tool name`);
      return name[0];
    });
    (out[section] ??= []).push({ theirs: cells[0], ours, line: i + 1, text: cells[1] });
  });
  return out;
}

describe('docs/coming-from.md', () => {
  test('has a table for each system, each row a glovebox call or why not', () => {
    const t = tables();
    for (const sys of SYSTEMS) {
      const section = Object.keys(t).find((s) => s.startsWith(sys));
      assert.ok(section, `no section for ${sys}`);
      assert.ok(t[section].length >= 5, `${sys}: only ${t[section].length} rows`);
      for (const row of t[section])
        assert.ok(row.ours.length > 0 || /^not offered/.test(row.text), `line ${row.line}: neither a glovebox call nor "not offered": ${row.text}`);
    }
  });

  test('every glovebox tool it names exists in a full build', needs('terminal', 'desktop', 'vnc', 'webdriver', 'android', opts()), async (t) => {
    const srv = await connectClient(t, { bin: 'glovebox', args: ['--tools', 'all'] });
    try {
      const have = new Set((await srv.client.listTools()).tools.map((x) => x.name));
      const pending = new Set();
      for (const rows of Object.values(tables())) {
        for (const row of rows) {
          for (const name of row.ours) {
            if (have.has(name)) continue;
            assert.ok(PENDING.has(name), `docs/coming-from.md:${row.line} names "${name}", which tools/list does not have`);
            pending.add(name);
          }
        }
      }
      if (pending.size) t.diagnostic(`named, not in this build yet (PENDING): ${[...pending].sort().join(', ')}`);
    } finally {
      await srv.close();
    }
  });

  // mobile-mcp's own list, from the package bench/ installs (scripts/run-bench.sh).
  const mobile = join(REPO_DIR, 'bench/peers/mobile-mcp/node_modules/@mobilenext/mobile-mcp/lib/server.js');
  test('every tool of the installed mobile-mcp has a row', { skip: existsSync(mobile) ? false : 'mobile-mcp is not installed (make bench installs it)' }, () => {
    const names = [...readFileSync(mobile, 'utf8').matchAll(/(?:tool|registerTool)\(\s*"(mobile_[a-z_]+)"/g)].map((m) => m[1]);
    assert.ok(names.length > 10, `found only ${names}`);
    const section = tables()['mobile-mcp'];
    const theirs = new Set(section.flatMap((r) => r.theirs.split(/,\s*/)));
    for (const n of new Set(names)) assert.ok(theirs.has(n), `mobile-mcp's ${n} has no row in docs/coming-from.md`);
  });
});
