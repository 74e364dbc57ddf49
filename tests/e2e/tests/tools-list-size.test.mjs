// What tools/list costs a model: every client hands the whole list to its
// model on every turn, so the default set stays small (docs/tools.md, "Tool
// groups"), the other groups answer calls by name without being listed,
// and `--tools` serves only the groups a deployment names: tools of the
// others then answer as unknown tools.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { builtKinds, connectClient, opts, runCli } from '../lib/server.mjs';

// The default groups' tools as of this test's writing. Tools added later
// are bounded one by one (below); these together must stay within 15 KB.
const DEFAULT_TOOLS = [
  'terminal_start', 'desktop_start', 'launch_app',
  'session_list', 'session_stop', 'resize',
  'screenshot', 'snapshot', 'read_text', 'find', 'wait_for',
  'type_text', 'press_key', 'click', 'drag', 'scroll',
  'status', 'set_mode',
];
const DEFAULT_BOUND = 15 * 1024;
// Any one tool, as listed: new tools must stay as lean as these.
const PER_TOOL_BOUND = 1536;
// The computer-use tool carries both vendors' shapes; it is opt-in.
const COMPUTER_BOUND = 2560;
// Opt-in tools by group: listed only when their group is named (without
// --tools they still answer a call by name).
const OPT_IN = { windows: 'window_list', clipboard: 'clipboard_get', recording: 'record_start', computer_use: 'computer' };

const bytes = (v) => Buffer.byteLength(JSON.stringify(v));
// As a deployment starts it: none of the test harness's overrides.
const asDeployed = { GLOVEBOX_TOOLS: '', GLOVEBOX_OUTPUT_SCHEMAS: '' };

async function listed(t, args = [], env = asDeployed) {
  const srv = await connectClient(t, { bin: 'glovebox', args, env });
  try {
    const { tools } = await srv.client.listTools();
    return { srv, tools };
  } catch (e) {
    await srv.close();
    throw e;
  }
}

describe('tools/list size and tool groups', () => {
  test('the default tool set is at most 15 KB, each tool within its bound', opts(), async (t) => {
    const { srv, tools } = await listed(t);
    try {
      const names = tools.map((x) => x.name);
      const known = tools.filter((x) => DEFAULT_TOOLS.includes(x.name));
      // Every default tool this build has is listed (kinds configured out are not).
      const expected = DEFAULT_TOOLS.filter(
        (n) => !((n === 'terminal_start' && !builtKinds().has('terminal')) ||
          (['desktop_start', 'launch_app'].includes(n) && !builtKinds().has('desktop'))),
      );
      assert.deepEqual(known.map((x) => x.name).sort(), expected.sort());
      const size = bytes({ tools: known });
      assert.ok(size <= DEFAULT_BOUND, `the default tools take ${size} bytes in tools/list, more than ${DEFAULT_BOUND}`);
      for (const tool of tools) {
        assert.ok(bytes(tool) <= PER_TOOL_BOUND, `${tool.name} takes ${bytes(tool)} bytes in tools/list (bound ${PER_TOOL_BOUND})`);
        assert.equal(tool.outputSchema, undefined, `${tool.name}: outputSchema only with --output-schemas`);
        assert.equal(tool.annotations.title, undefined, `${tool.name}: the title is the tool's own`);
      }
      for (const [group, name] of Object.entries(OPT_IN))
        assert.ok(!names.includes(name), `${name} (group ${group}) is not listed by default`);
      // Not listed, yet served: a client that calls one by name (a script,
      // an orchestrator, a model told of it) reaches it.
      for (const name of ['window_list', 'clipboard_get', 'record_stop', 'computer', 'session_list']) {
        const r = await srv.client.callTool({ name, arguments: {} }).then((x) => x, (e) => e);
        assert.doesNotMatch(String(r.message ?? ''), /Unknown tool/, `${name} answers a call by name`);
        assert.ok(r.content, `${name}: a tool result, not a protocol error: ${r.message}`);
      }
      t.diagnostic(`default tools/list: ${tools.length} tools, ${bytes({ tools })} bytes`);
    } finally {
      await srv.close();
    }
  });

  test('every group together stays lean per tool', opts(), async (t) => {
    const { srv, tools } = await listed(t, ['--tools', 'all']);
    try {
      for (const [group, name] of Object.entries(OPT_IN))
        assert.ok(tools.some((x) => x.name === name), `--tools all serves ${name} (group ${group})`);
      for (const tool of tools) {
        const bound = tool.name === 'computer' ? COMPUTER_BOUND : PER_TOOL_BOUND;
        assert.ok(bytes(tool) <= bound, `${tool.name} takes ${bytes(tool)} bytes in tools/list (bound ${bound})`);
      }
      t.diagnostic(`--tools all: ${tools.length} tools, ${bytes({ tools })} bytes`);
    } finally {
      await srv.close();
    }
  });

  test('--tools serves only the named groups; the others answer as unknown tools', opts(), async (t) => {
    const { srv, tools } = await listed(t, ['--tools', 'server, clipboard']);
    try {
      assert.deepEqual(tools.map((x) => x.name).sort(), ['clipboard_get', 'clipboard_set', 'set_mode', 'status']);
      const r = await srv.client.callTool({ name: 'screenshot', arguments: {} }).then(
        () => null,
        (e) => e,
      );
      assert.ok(r, 'calling a tool of a group not served fails');
      assert.match(r.message, /Unknown tool: screenshot is a tool of the group "perception", which this server does not serve \(glovebox serve --tools\)/);
    } finally {
      await srv.close();
    }
  });

  test('GLOVEBOX_TOOLS does the same, and default adds to named groups', opts(), async (t) => {
    const { srv, tools } = await listed(t, [], { GLOVEBOX_TOOLS: 'default,windows', GLOVEBOX_OUTPUT_SCHEMAS: '' });
    try {
      const names = tools.map((x) => x.name);
      assert.ok(names.includes('window_list') && names.includes('status') && names.includes('click'), names.join(' '));
      assert.ok(!names.includes('clipboard_get'), names.join(' '));
    } finally {
      await srv.close();
    }
  });

  test('an unknown group is a usage error naming it and the groups there are', opts(), async () => {
    const r = await runCli(['serve', '--tools', 'perception,mouse']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--tools: unknown tool group "mouse" \(groups: sessions, terminal, desktop, perception, input/);
    const e = await runCli(['serve'], { env: { GLOVEBOX_TOOLS: 'input,,server' } });
    assert.equal(e.code, 2, e.stderr);
    assert.match(e.stderr, /GLOVEBOX_TOOLS: an empty tool group in "input,,server"/);
  });

  test('--output-schemas lists them, and results conform', opts(), async (t) => {
    const { srv, tools } = await listed(t, ['--output-schemas']);
    try {
      const list = tools.find((x) => x.name === 'session_list');
      assert.equal(list.outputSchema?.type, 'object');
      assert.equal(list.outputSchema.properties.error.properties.code.type, 'string');
      // The SDK client validates structuredContent against the listed schema.
      const r = await srv.client.callTool({ name: 'session_list', arguments: {} });
      assert.ok(!r.isError);
      assert.ok(Array.isArray(r.structuredContent.sessions));
    } finally {
      await srv.close();
    }
  });

  test('limits left out of the list are still enforced, naming the field', opts(), async (t) => {
    const { srv, tools } = await listed(t);
    try {
      const shot = tools.find((x) => x.name === 'screenshot');
      assert.equal(shot.inputSchema.properties.quality.maximum, undefined, 'the listed schema has no limits');
      const r = await srv.client.callTool({ name: 'screenshot', arguments: { quality: 500 } });
      assert.equal(r.isError, true);
      assert.match(r.content[0].text, /quality/);
    } finally {
      await srv.close();
    }
  });
});
