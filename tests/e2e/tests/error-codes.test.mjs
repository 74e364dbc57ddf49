// Failed tool calls carry a code (docs/errors.md): structuredContent.error =
// {code, message} beside the same text as before, so programs branch on the
// code and people read the message. One real situation per code, through the
// official SDK client — which checks structuredContent against each tool's
// outputSchema even on isError results, so every output schema must admit
// the error shape.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { RawServer, builtKinds, connectClient, deadline, ms, needs, opts, runCli, sleep, textOf } from '../lib/server.mjs';

const CODES = [
  'tool_failed',
  'invalid_argument',
  'not_found',
  'not_supported',
  'denied',
  'device_unavailable',
  'session_expired',
  'timeout',
];

const tmp = mkdtempSync(join(tmpdir(), 'gb-errors-'));
process.once('exit', () => rmSync(tmp, { recursive: true, force: true }));
// For the policy's codes: no allow-all, and nothing from the person's own config.
const policyEnv = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config'), XDG_DATA_HOME: join(tmp, 'data') };

function policyFile(name, doc) {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

/** A client that has listed the tools, so the SDK validates structuredContent. */
async function validatingClient(t, options) {
  const srv = await connectClient(t, options);
  await srv.client.listTools();
  return srv;
}

/** Calls a tool expecting a failure with code; the message is the text. */
async function failsWith(srv, name, args, code) {
  const r = await srv.client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} should fail: ${textOf(r)}`);
  const text = textOf(r);
  assert.deepEqual(r.structuredContent, { error: { code, message: text } }, `${name}: ${JSON.stringify(r.structuredContent)}`);
  return text;
}

test('every output schema admits {error: {code, message}} from one fragment; success results still need their fields', opts(), async (t) => {
  const srv = await connectClient(t);
  const { tools } = await srv.client.listTools();
  const withOutput = tools.filter((x) => x.outputSchema);
  assert.ok(withOutput.length >= 10, 'the screen tools declare output schemas');
  const first = withOutput[0].outputSchema.properties.error;
  for (const tool of withOutput) {
    const s = tool.outputSchema;
    assert.equal(s.type, 'object', tool.name);
    assert.deepEqual(s.properties.error, first, `${tool.name}: the same error fragment`);
    assert.equal(s.required, undefined, `${tool.name}: its required fields moved into anyOf`);
    assert.equal(s.anyOf.length, 2, tool.name);
    assert.deepEqual(s.anyOf[1], { required: ['error'] }, tool.name);
  }
  assert.deepEqual(first.properties.code.enum, CODES);
  assert.deepEqual(first.required, ['code', 'message']);
  const status = withOutput.find((x) => x.name === 'status').outputSchema;
  assert.ok(status.anyOf[0].required.includes('version'), 'status still requires its own fields');
  await srv.close();
});

test('invalid_argument: a schema violation names the field; a handler check says what is expected', needs('terminal', opts()), async (t) => {
  const srv = await validatingClient(t);
  const bad = await failsWith(srv, 'terminal_start', { cols: 'wide' }, 'invalid_argument');
  assert.match(bad, /^Invalid arguments for terminal_start: .*cols/);
  const started = await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['cat'] } });
  assert.ok(!started.isError, textOf(started));
  const id = started.structuredContent.id;
  const both = await failsWith(srv, 'wait_for', { session: id, text: 'a', regex: 'b' }, 'invalid_argument');
  assert.equal(both, 'give either "text" or "regex", not both');
  const key = await failsWith(srv, 'press_key', { session: id, key: 'ctrl+nosuchkey' }, 'invalid_argument');
  assert.match(key, /nosuchkey/);
  await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
  await srv.close();
});

test('not_found: an unknown session id, for screen tools and session_stop alike', opts(), async (t) => {
  const srv = await validatingClient(t);
  // screenshot has an outputSchema: the SDK would throw if the error did not fit it.
  const text = await failsWith(srv, 'screenshot', { session: 'no-such-session' }, 'not_found');
  assert.match(text, /^unknown session "no-such-session"; live sessions: /);
  await failsWith(srv, 'session_stop', { session: 'no-such-session' }, 'not_found');
  await srv.close();
});

test('session_expired: acting on a session that has ended', needs('terminal', opts()), async (t) => {
  const srv = await validatingClient(t);
  const id = (await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['cat'] } })).structuredContent.id;
  const stopped = await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
  assert.ok(!stopped.isError, textOf(stopped));
  const text = await failsWith(srv, 'type_text', { session: id, text: 'hello' }, 'session_expired');
  assert.match(text, new RegExp(`^cannot type: session ${id} has ended`));
  await srv.close();
});

test('not_supported: an operation the kind of session cannot do (window_list on a terminal)', needs('terminal', opts()), async (t) => {
  const srv = await validatingClient(t);
  const id = (await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['cat'] } })).structuredContent.id;
  const text = await failsWith(srv, 'window_list', { session: id }, 'not_supported');
  assert.equal(text, 'cannot list windows: not supported by terminal sessions');
  await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
  await srv.close();
});

test('denied: a command the policy does not allow, a mode raised by the agent, a rate limit', opts(), async (t) => {
  const policy = policyFile('rules.json', {
    mode: 'assist',
    allow: ['terminal_start', 'set_mode', 'session_list'],
    rules: { terminal_start: { commands: ['cat'] } },
    rate_limits: { tools: { session_list: { per_minute: 1, burst: 1 } } },
  });
  const srv = await validatingClient(t, { bin: 'glovebox', args: ['--policy', policy, '--mode', 'autopilot'], env: policyEnv });
  // Without terminals in this build, the rest still runs (the rule is a warning).
  const terminals = builtKinds().has('terminal');
  if (terminals) {
    const text = await failsWith(srv, 'terminal_start', { command: ['bash'] }, 'denied');
    assert.match(text, /^Denied by policy: terminal_start may not run "bash"/);
  }
  const lowered = await srv.client.callTool({ name: 'set_mode', arguments: { mode: 'passive' } });
  assert.ok(!lowered.isError, textOf(lowered));
  const raised = await failsWith(srv, 'set_mode', { mode: 'autopilot' }, 'denied');
  assert.match(raised, /^set_mode can only lower privileges/);
  // A rate limit is the policy refusing too; the message says when to retry.
  const once = await srv.client.callTool({ name: 'session_list', arguments: {} });
  assert.ok(!once.isError, textOf(once));
  const limited = await failsWith(srv, 'session_list', {}, 'denied');
  assert.match(limited, /^Rate limit for session_list: .*retry after/);
  await srv.close();
  // The audit log keeps the code beside the text.
  const r = await runCli(['audit', '--json', '--tool', terminals ? 'terminal_start' : 'session_list'], { env: policyEnv });
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const row = rows.find((x) => x.outcome === 'error');
  assert.ok(row, r.stdout);
  const notes = typeof row.notes === 'string' ? JSON.parse(row.notes) : row.notes;
  assert.equal(notes.error_code, 'denied');
});

test('timeout: the person did not answer a confirmation in time', opts(), async (t) => {
  const policy = policyFile('quick.json', { mode: 'assist', allow: ['*'], confirm_timeout_s: 1 });
  const srv = await validatingClient(t, {
    bin: 'glovebox',
    args: ['--policy', policy],
    env: policyEnv,
    capabilities: { elicitation: {} },
  });
  srv.client.setRequestHandler(ElicitRequestSchema, (req, extra) => new Promise((resolve) => extra.signal.addEventListener('abort', () => resolve({ action: 'cancel' }))));
  // Any tool that is not read-only is asked about in assist mode; this one needs no session kind.
  const text = await failsWith(srv, 'session_stop', { session: 'no-such-session' }, 'timeout');
  assert.match(text, /^Declined: the person did not answer within 1 s, so session_stop did not run/);
  await srv.close();
});

test('device_unavailable: attaching to an X display nobody serves', needs('desktop', opts({ timeout: ms(60000) })), async (t) => {
  let n = 9876;
  while (existsSync(`/tmp/.X11-unix/X${n}`)) n++;
  const srv = await validatingClient(t);
  const text = await failsWith(srv, 'desktop_start', { display: `:${n}` }, 'device_unavailable');
  assert.match(text, new RegExp(`^cannot start the desktop: cannot reach X display :${n}`));
  await srv.close();
});

test('tool_failed: the operation ran and failed (a working directory that does not exist)', needs('terminal', opts()), async (t) => {
  const srv = await validatingClient(t);
  const text = await failsWith(srv, 'terminal_start', { command: ['cat'], cwd: join(tmp, 'nowhere') }, 'tool_failed');
  assert.match(text, /nowhere/);
  await srv.close();
});

test('before 2025-06-18 a failure is the same text and no structuredContent; 2025-06-18 adds the code', opts(), async (t) => {
  const old = RawServer.start(t);
  await old.initialize('2025-03-26');
  const r = (await old.request(2, 'tools/call', { name: 'session_stop', arguments: { session: 'nope' } })).result;
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /^unknown session "nope"/);
  assert.equal(r.structuredContent, undefined);
  await old.close();
  const mid = RawServer.start(t);
  await mid.initialize('2025-06-18');
  const r2 = (await mid.request(2, 'tools/call', { name: 'session_stop', arguments: { session: 'nope' } })).result;
  assert.deepEqual(r2.structuredContent, { error: { code: 'not_found', message: r.content[0].text } });
  await mid.close();
});

test("denied: a person's pause stops a call in flight and refuses the next, each with the code", needs('terminal', opts({ timeout: ms(60000) })), async (t) => {
  const policy = policyFile('autopilot.json', { mode: 'autopilot', allow: ['*'] });
  const env = { ...policyEnv, XDG_DATA_HOME: join(tmp, 'pause-data') };
  const srv = await validatingClient(t, { bin: 'glovebox', args: ['--policy', policy], env });
  // A program that never reads its terminal: a large text cannot all be typed.
  const started = await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['sh', '-c', 'stty raw -echo; exec sleep 600'] } });
  const id = started.structuredContent.id;
  const typing = srv.client.callTool({ name: 'type_text', arguments: { session: id, text: 'y'.repeat(4 * 1024 * 1024) } }, undefined, { timeout: ms(30000) });
  await sleep(500);
  process.kill(srv.child.pid, 'SIGUSR1');
  const r = await deadline(typing, ms(5000), 'the typing call to be stopped');
  assert.equal(r.isError, true);
  assert.match(textOf(r), /^Paused by the person .*This call was stopped: stopped after typing \d+ of 4194304 bytes$/s);
  assert.deepEqual(r.structuredContent, { error: { code: 'denied', message: textOf(r) } });
  const refused = await failsWith(srv, 'press_key', { session: id, key: 'Enter' }, 'denied');
  assert.match(refused, /^Paused by the person/);
  process.kill(srv.child.pid, 'SIGUSR2');
  await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
  await srv.close();
});

test('a desktop answers with codes too: unknown window and ref, a point off the screen, exit on a desktop with no program, an ended desktop', needs('desktop', opts({ timeout: ms(90000) })), async (t) => {
  const srv = await validatingClient(t);
  const started = await srv.client.callTool({ name: 'desktop_start', arguments: { width: 640, height: 480 } }, undefined, { timeout: ms(60000) });
  assert.ok(!started.isError, textOf(started));
  const session = started.structuredContent.id;
  const win = await failsWith(srv, 'window_manage', { session, window: 'no-such-window-xyz', action: 'focus' }, 'not_found');
  assert.equal(win, 'no window whose title contains "no-such-window-xyz" (window_list shows the windows)');
  const ref = await failsWith(srv, 'click', { session, ref: 'e999' }, 'not_found');
  assert.match(ref, /^ref e999 is unknown: no snapshot has been taken/);
  const off = await failsWith(srv, 'click', { session, x: 5000, y: 5 }, 'invalid_argument');
  assert.match(off, /^x,y = 5000,5 is off the screen: .* is 640x480 pixels/);
  const exit = await failsWith(srv, 'wait_for', { session, exit: true }, 'invalid_argument');
  assert.match(exit, /no program has been started in .* to wait for/);
  const pid = await failsWith(srv, 'wait_for', { session, exit: true, pid: 1 }, 'not_found');
  assert.match(pid, /pid 1 is not a program of/);
  await srv.client.callTool({ name: 'session_stop', arguments: { session } });
  const typed = await failsWith(srv, 'type_text', { session, text: 'x' }, 'session_expired');
  assert.match(typed, new RegExp(`^cannot type: session ${session} has ended`));
  // A screenshot is still tried on an ended session (a terminal keeps its
  // last screen); a desktop's X server is gone, and that is the code too.
  const shot = await failsWith(srv, 'screenshot', { session }, 'session_expired');
  assert.match(shot, /^cannot take a screenshot: /);
  await srv.close();
});
