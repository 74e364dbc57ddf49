// The legacy handshake as real clients see it: initialize and version
// negotiation, what the server says about itself, the core tools, and how
// the process ends (EOF, signals, a file on stdin).
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, closeSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { KNOWN, RawServer, connectClient, ms, opts, sleep, textOf } from '../lib/server.mjs';

const SEMVER = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;
const CORE_WITH_OUTPUT_SCHEMA = ['status', 'session_list', 'session_stop'];

describe('initialize with the official SDK client', () => {
  test('negotiates protocol 2025-11-25 and introduces the server', opts(), async (t) => {
    const srv = await connectClient(t);
    assert.equal(srv.negotiatedVersion(), '2025-11-25');
    const info = srv.client.getServerVersion();
    assert.equal(info.name, 'glovebox');
    assert.match(info.version, SEMVER);
    const instructions = srv.client.getInstructions();
    assert.equal(typeof instructions, 'string');
    assert.ok(instructions.length > 40, `instructions too short: ${instructions}`);
    assert.match(instructions, /status/);
    await srv.client.ping();
    await srv.close();
  });

  for (const bin of ['glovebox-testing', 'glovebox']) {
    test(`${bin}: capabilities are honest (tools, logging; resources only when registered, prompts for recipes)`, opts(), async (t) => {
      const srv = await connectClient(t, { bin });
      const caps = srv.client.getServerCapabilities();
      assert.ok(caps.tools, 'tools capability');
      assert.ok(caps.logging, 'logging capability');
      await srv.close();

      // Whether resource providers exist is visible in resources/templates/list,
      // which the server answers whatever it claims.
      const s = RawServer.start(t, { bin });
      await s.initialize();
      const templates = (await s.request(2, 'resources/templates/list')).result.resourceTemplates;
      assert.equal(Boolean(caps.resources), templates.length > 0, `resources capability ${JSON.stringify(caps.resources)} with ${templates.length} templates`);
      if (bin === 'glovebox-testing') assert.ok(caps.resources, 'glovebox-testing has the fixture resource provider');
      // prompts/list exists exactly when prompts are advertised: always, as
      // saved recipes are prompts (recipe/NAME) and may appear at any time.
      const prompts = await s.request(3, 'prompts/list');
      assert.ok(caps.prompts, 'saved recipes are prompts');
      assert.ok(Array.isArray(prompts.result?.prompts), `prompts/list ${JSON.stringify(prompts)}`);
      if (bin === 'glovebox-testing') assert.ok(prompts.result.prompts.length > 0, 'glovebox-testing has the conformance prompts');
      await s.close();
    });
  }
});

describe('tools through the SDK client', () => {
  test('tools/list is deterministic and annotated; core tools declare an outputSchema', opts(), async (t) => {
    const srv = await connectClient(t);
    const first = await srv.client.listTools();
    const second = await srv.client.listTools();
    assert.deepEqual(second, first, 'two tools/list calls return the same list');
    const names = first.tools.map((tool) => tool.name);
    assert.equal(new Set(names).size, names.length, 'tool names are unique');
    for (const name of CORE_WITH_OUTPUT_SCHEMA) assert.ok(names.includes(name), `${name} is listed`);
    for (const tool of first.tools) {
      assert.equal(typeof tool.description, 'string', `${tool.name} has a description`);
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} input schema is an object schema`);
      assert.ok(tool.annotations, `${tool.name} has annotations`);
      assert.equal(typeof tool.annotations.readOnlyHint, 'boolean', `${tool.name} readOnlyHint`);
      assert.equal(typeof tool.annotations.openWorldHint, 'boolean', `${tool.name} openWorldHint`);
      if (!tool.annotations.readOnlyHint) {
        assert.equal(typeof tool.annotations.destructiveHint, 'boolean', `${tool.name} destructiveHint`);
        assert.equal(typeof tool.annotations.idempotentHint, 'boolean', `${tool.name} idempotentHint`);
      }
    }
    for (const name of CORE_WITH_OUTPUT_SCHEMA) {
      const tool = first.tools.find((x) => x.name === name);
      assert.equal(tool.outputSchema?.type, 'object', `${name} has an outputSchema`);
      assert.equal(typeof tool.title, 'string', `${name} has a title`);
    }
    const stop = first.tools.find((x) => x.name === 'session_stop');
    assert.equal(stop.annotations.readOnlyHint, false);
    assert.equal(stop.annotations.destructiveHint, true);
    assert.equal(first.tools.find((x) => x.name === 'status').annotations.readOnlyHint, true);
    await srv.close();
  });

  test('status returns structuredContent that matches its outputSchema, plus a text mirror', opts(), async (t) => {
    const srv = await connectClient(t);
    await srv.client.listTools(); // the SDK validates structuredContent against cached output schemas
    const r = await srv.client.callTool({ name: 'status', arguments: {} });
    assert.notEqual(r.isError, true, textOf(r));
    const s = r.structuredContent;
    assert.equal(s.server, 'glovebox');
    assert.match(s.version, SEMVER);
    assert.equal(s.protocol_version, '2025-11-25');
    assert.equal(s.live_sessions, 0);
    assert.deepEqual(s.sessions, []);
    const kinds = s.backends.map((b) => b.kind);
    for (const kind of ['terminal', 'desktop', 'vnc', 'webdriver', 'android']) assert.ok(kinds.includes(kind), `backend ${kind}`);
    const text = textOf(r);
    assert.match(text, /glovebox/);
    assert.ok(text.includes(s.version), 'text mirror names the version');
    assert.match(text, /2025-11-25/);
    assert.deepEqual(srv.errors, []);
    await srv.close();
  });

  test('session_list with no sessions returns an empty list', opts(), async (t) => {
    const srv = await connectClient(t);
    await srv.client.listTools();
    const r = await srv.client.callTool({ name: 'session_list', arguments: {} });
    assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual(r.structuredContent, { sessions: [] });
    assert.match(textOf(r), /\b0 sessions\b/);
    await srv.close();
  });

  test('session_stop on an unknown id is a tool error naming the id and the live sessions', opts(), async (t) => {
    const srv = await connectClient(t);
    await srv.client.listTools();
    const r = await srv.client.callTool({ name: 'session_stop', arguments: { session: 'no-such-session-42' } });
    assert.equal(r.isError, true);
    const text = textOf(r);
    assert.match(text, /no-such-session-42/);
    assert.match(text, /live sessions: none/);
    await srv.close();
  });
});

describe('version negotiation (raw pipe)', () => {
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    test(`initialize with ${version} is answered with ${version}`, opts(), async (t) => {
      const s = RawServer.start(t);
      const r = await s.initialize(version);
      assert.equal(r.protocolVersion, version);
      assert.equal(r.serverInfo.name, 'glovebox');
      await s.close();
    });
  }

  test('an unknown version is answered with the latest one, 2025-11-25', opts(), async (t) => {
    const s = RawServer.start(t);
    const r = await s.initialize('1999-01-01');
    assert.equal(r.protocolVersion, '2025-11-25');
    await s.close();
  });

  test('initialize without protocolVersion is invalid params; a second initialize is refused', opts(), async (t) => {
    const s = RawServer.start(t);
    const bad = await s.request(1, 'initialize', { capabilities: {} });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error.message, /protocolVersion/);
    await s.initialize('2025-11-25');
    const again = await s.request(2, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} });
    assert.equal(again.error?.code, -32600);
    assert.match(again.error.message, /already initialized/);
    await s.assertServing();
    await s.close();
  });

  test('2024-11-05: tools/list has no title, outputSchema or annotations; results have no structuredContent', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize('2024-11-05');
    const list = (await s.request(2, 'tools/list')).result;
    assert.ok(list.tools.length > 0);
    for (const tool of list.tools) {
      assert.deepEqual(Object.keys(tool).sort(), ['description', 'inputSchema', 'name'], `${tool.name}: ${Object.keys(tool)}`);
    }
    const echo = (await s.request(3, 'tools/call', { name: 'fixture_echo', arguments: { text: 'old' } })).result;
    assert.deepEqual(echo.content, [{ type: 'text', text: 'old' }]);
    assert.equal(echo.structuredContent, undefined);
    await s.close();
  });

  test('2025-03-26: tools/list has annotations but no outputSchema; results have no structuredContent', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize('2025-03-26');
    const list = (await s.request(2, 'tools/list')).result;
    for (const tool of list.tools) {
      assert.ok(tool.annotations, `${tool.name} has annotations`);
      assert.equal(typeof tool.annotations.readOnlyHint, 'boolean');
      assert.equal(tool.outputSchema, undefined, `${tool.name} has no outputSchema`);
    }
    const echo = (await s.request(3, 'tools/call', { name: 'fixture_echo', arguments: { text: 'mid' } })).result;
    assert.equal(echo.structuredContent, undefined);
    await s.close();
  });

  test('2025-06-18: tools/list has title and outputSchema; results carry structuredContent', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize('2025-06-18');
    const list = (await s.request(2, 'tools/list')).result;
    const echoTool = list.tools.find((x) => x.name === 'fixture_echo');
    assert.equal(typeof echoTool.title, 'string');
    assert.ok(echoTool.outputSchema);
    const echo = (await s.request(3, 'tools/call', { name: 'fixture_echo', arguments: { text: 'new' } })).result;
    assert.deepEqual(echo.structuredContent, { text: 'new' });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'new' }]);
    await s.close();
  });
});

describe('process lifecycle', () => {
  const EOF_DEADLINE = ms(2000);

  test('EOF on stdin: the server exits 0 within 2 s', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    const started = Date.now();
    await s.close({ timeoutMs: EOF_DEADLINE });
    assert.ok(Date.now() - started <= EOF_DEADLINE);
  });

  test('EOF with a tool call in flight: exits 0 within 2 s and never answers the call', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    await s.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 5000 } } });
    await sleep(100);
    await s.close({ timeoutMs: EOF_DEADLINE });
    assert.equal(s.messages.filter((m) => m.json?.id === 'slow').length, 0);
  });

  test('EOF with long worker-pool jobs queued: exits 0 within 2 s', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.initialize();
    // Each job takes about 2 s on a plain build (far longer under ASan); the
    // pool has 4 threads, so most of them are still queued at EOF.
    let batch = '';
    for (let i = 0; i < 6; i++) {
      batch += JSON.stringify({ jsonrpc: '2.0', id: `job-${i}`, method: 'tools/call', params: { name: 'fixture_work', arguments: { n: 2000000000 } } }) + '\n';
    }
    await s.write(batch);
    await sleep(100);
    const started = Date.now();
    // Not scaled for sanitized builds: the server bounds this wait itself.
    await s.close({ timeoutMs: 3000 });
    assert.ok(Date.now() - started <= 3000);
    assert.equal(s.messages.filter((m) => /"job-\d"/.test(m.raw)).length, 0, 'no job was answered after EOF');
  });

  test('EOF before anything was sent: exits 0', opts(), async (t) => {
    const s = RawServer.start(t);
    await s.close({ timeoutMs: EOF_DEADLINE });
    assert.equal(s.messages.length, 0);
  });

  for (const signal of ['SIGTERM', 'SIGINT']) {
    test(`${signal}: the server exits 0`, opts(), async (t) => {
      const s = RawServer.start(t);
      await s.initialize();
      s.child.kill(signal);
      await s.assertExitedCleanly(ms(3000));
    });

    test(`${signal} with a tool call in flight: the server exits 0`, opts(), async (t) => {
      const s = RawServer.start(t);
      await s.initialize();
      await s.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'fixture_sleep', arguments: { ms: 5000 } } });
      await sleep(100);
      s.child.kill(signal);
      await s.assertExitedCleanly(ms(3000));
    });
  }

  test('stdin from a regular file: both requests are answered, then the server exits 0', opts(), async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'glovebox-e2e-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'requests.jsonl');
    writeFileSync(
      file,
      [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'file', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n') + '\n',
    );
    const fd = openSync(file, 'r');
    let s;
    try {
      s = RawServer.start(t, { stdin: fd });
    } finally {
      closeSync(fd); // the child has its own copy
    }
    await s.assertExitedCleanly(ms(5000));
    const init = await s.reply(1, { timeoutMs: 100 });
    assert.equal(init.json.result.protocolVersion, '2025-11-25');
    const list = await s.reply(2, { timeoutMs: 100 });
    assert.ok(list.json.result.tools.some((x) => x.name === 'status'));
    assert.equal(s.messages.length, 2);
  });
});
