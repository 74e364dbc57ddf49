// Human confirmation end to end: in assist mode (and for tools in the
// policy's "confirm" list) a person is asked through the client before a
// tool that changes anything runs — with elicitation/create on legacy
// connections, with an input_required result and a requestState for
// stateless 2026-07-28 requests.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectHttpClient, modernMeta, post, startHttp } from '../lib/http.mjs';
import { RawServer, connectClient, deadline, ms, needs, opts, sleep, textOf } from '../lib/server.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-confirm-'));
// No allow-all, and no policy file or data from the person running the tests.
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config'), XDG_DATA_HOME: join(tmp, 'data') };

function policyFile(name, doc) {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

const ASSIST = policyFile('assist.json', { mode: 'assist', allow: ['*'] });
const SHELL = ['bash', '--norc', '--noprofile'];

/** An SDK client over stdio that can be asked; answer(params, extra) decides. */
async function askingClient(t, { policy = ASSIST, answer, args = [] } = {}) {
  const srv = await connectClient(t, {
    bin: 'glovebox',
    args: ['--policy', policy, ...args],
    env,
    capabilities: { elicitation: {} },
  });
  const asked = [];
  srv.client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    asked.push(req.params);
    return answer(req.params, extra);
  });
  return { ...srv, asked };
}

const yes = () => ({ action: 'accept', content: { confirm: true } });

async function screenHas(client, session, text) {
  const r = await client.callTool({ name: 'wait_for', arguments: { session, text, timeout_ms: ms(3000) } });
  return r.structuredContent?.matched === true;
}

describe('confirmation over stdio (elicitation/create)', needs('terminal'), () => {
  test('accept: the person is asked exactly what will happen, then the tool runs', opts(), async (t) => {
    const srv = await askingClient(t, { answer: yes });
    const started = await srv.client.callTool({ name: 'terminal_start', arguments: { command: SHELL } });
    assert.ok(!started.isError, textOf(started));
    const id = started.structuredContent.id;
    assert.match(srv.asked[0].message, /^Allow the agent to start a terminal running "bash" "--norc" "--noprofile"\?/);
    const typed = await srv.client.callTool({ name: 'type_text', arguments: { session: id, text: 'echo confirmed-$((6*7))\n' } });
    assert.ok(!typed.isError, textOf(typed));
    assert.equal(srv.asked.length, 2);
    const q = srv.asked[1];
    assert.equal(q.message.split('\n')[0], `Allow the agent to type "echo confirmed-$((6*7))\\n" into session "${id}"?`);
    assert.match(q.message, /the mode is assist/);
    assert.equal(q.mode, 'form');
    assert.equal(q.requestedSchema.type, 'object');
    assert.equal(q.requestedSchema.properties.confirm.type, 'boolean');
    assert.deepEqual(q.requestedSchema.required, ['confirm']);
    assert.ok(await screenHas(srv.client, id, 'confirmed-42'), 'the text was typed and ran');
    // Read-only tools are never asked about.
    assert.equal(srv.asked.length, 2);
    await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
    await srv.close();
  });

  test('decline: the tool does not run and the agent is told the person said no', opts(), async (t) => {
    let decide = yes;
    const srv = await askingClient(t, { answer: (p, x) => decide(p, x) });
    const id = (await srv.client.callTool({ name: 'terminal_start', arguments: { command: SHELL } })).structuredContent.id;
    decide = () => ({ action: 'decline' });
    const r = await srv.client.callTool({ name: 'type_text', arguments: { session: id, text: 'echo declined-$((6*7))\n' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^Declined: the person said no, so type_text did not run/);
    // An accept with the box left unticked is a no as well; so is cancel.
    decide = () => ({ action: 'accept', content: { confirm: false } });
    const r2 = await srv.client.callTool({ name: 'type_text', arguments: { session: id, text: 'echo unticked-$((6*7))\n' } });
    assert.match(textOf(r2), /person said no/);
    decide = () => ({ action: 'cancel' });
    const r3 = await srv.client.callTool({ name: 'type_text', arguments: { session: id, text: 'echo dismissed-$((6*7))\n' } });
    assert.match(textOf(r3), /dismissed the question/);
    assert.ok(!(await screenHas(srv.client, id, 'declined-42')), 'nothing was typed');
    assert.ok(!(await screenHas(srv.client, id, 'unticked-42')));
    assert.ok(!(await screenHas(srv.client, id, 'dismissed-42')));
    decide = yes;
    await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
    await srv.close();
  });

  test('no answer within confirm_timeout_s declines, and the question is withdrawn', opts(), async (t) => {
    const policy = policyFile('quick.json', { mode: 'assist', allow: ['*'], confirm_timeout_s: 1 });
    let withdrawn = false;
    const srv = await askingClient(t, {
      policy,
      answer: (p, extra) =>
        new Promise((resolve) => {
          extra.signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ action: 'cancel' });
          });
        }),
    });
    const t0 = Date.now();
    const r = await srv.client.callTool({ name: 'terminal_start', arguments: { command: SHELL } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^Declined: the person did not answer within 1 s, so terminal_start did not run/);
    assert.ok(Date.now() - t0 >= 900, 'it waited for the person');
    await deadline(
      (async () => {
        while (!withdrawn) await sleep(20);
      })(),
      ms(2000),
      'the client to hear the question withdrawn',
    );
    const listed = await srv.client.callTool({ name: 'session_list', arguments: {} });
    assert.equal(listed.structuredContent.sessions.length, 0, 'no terminal was started');
    await srv.close();
  });

  test('a client without elicitation is refused with how to get confirmation', opts(), async (t) => {
    const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', ASSIST], env });
    // Tools that need confirmation stay visible.
    const names = (await srv.client.listTools()).tools.map((x) => x.name);
    assert.ok(names.includes('type_text'));
    const r = await srv.client.callTool({ name: 'terminal_start', arguments: { command: SHELL } });
    assert.equal(r.isError, true);
    const text = textOf(r);
    assert.match(text, /^Confirmation required: the mode is assist/);
    assert.match(text, /this client cannot ask for it \(it did not declare the "elicitation" capability/);
    assert.match(text, /Use an MCP client that supports elicitation/);
    assert.match(text, /"mode" to "autopilot"/);
    await srv.close();
  });

  test('"confirm" in autopilot asks only for the listed tools, which need not be in "allow"', opts(), async (t) => {
    const policy = policyFile('list.json', { mode: 'autopilot', allow: ['terminal_start'], confirm: ['session_*'] });
    const srv = await askingClient(t, { policy, answer: yes });
    const names = (await srv.client.listTools()).tools.map((x) => x.name);
    assert.ok(names.includes('session_stop'), 'confirm implies allowed-if-confirmed: visible');
    assert.ok(!names.includes('type_text'), 'neither allowed nor confirmed: hidden');
    const id = (await srv.client.callTool({ name: 'terminal_start', arguments: { command: SHELL } })).structuredContent.id;
    assert.equal(srv.asked.length, 0, 'terminal_start is allowed without asking');
    const stopped = await srv.client.callTool({ name: 'session_stop', arguments: { session: id } });
    assert.ok(!stopped.isError, textOf(stopped));
    assert.equal(srv.asked.length, 1);
    assert.match(srv.asked[0].message, new RegExp(`^Allow the agent to stop session "${id}"\\?`));
    assert.match(srv.asked[0].message, /session_stop matches "session_\*" in "confirm"/);
    await srv.close();
  });

  test('cancelling the call while the person is asked withdraws the question; the tool never runs', opts(), async (t) => {
    let withdrawn = false;
    let asked;
    const askedNow = new Promise((r) => (asked = r));
    const srv = await askingClient(t, {
      answer: (p, extra) =>
        new Promise((resolve) => {
          asked();
          extra.signal.addEventListener('abort', () => {
            withdrawn = true;
            // Too late: a yes after the call was cancelled must not run it.
            resolve({ action: 'accept', content: { confirm: true } });
          });
        }),
    });
    const ac = new AbortController();
    const call = srv.client.callTool({ name: 'terminal_start', arguments: { command: SHELL } }, undefined, { signal: ac.signal });
    await deadline(askedNow, ms(5000), 'the question');
    ac.abort('the agent changed its mind');
    await assert.rejects(call, /abort|changed its mind/i);
    await deadline(
      (async () => {
        while (!withdrawn) await sleep(20);
      })(),
      ms(2000),
      'the question to be withdrawn',
    );
    await sleep(200);
    const listed = await srv.client.callTool({ name: 'session_list', arguments: {} });
    assert.equal(listed.structuredContent.sessions.length, 0, 'no terminal was started');
    await srv.close();
  });
});

describe('confirmation over HTTP (elicitation/create on the call stream)', needs('terminal'), () => {
  test('accept runs the tool, decline does not', opts(), async (t) => {
    const srv = await startHttp(t, { bin: 'glovebox', args: ['--policy', ASSIST], env });
    let decide = yes;
    const c = await connectHttpClient(srv.url, { capabilities: { elicitation: {} } });
    const asked = [];
    c.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return decide(req.params);
    });
    const id = (await c.client.callTool({ name: 'terminal_start', arguments: { command: SHELL } })).structuredContent.id;
    await c.client.callTool({ name: 'type_text', arguments: { session: id, text: 'echo http-yes-$((6*7))\n' } });
    assert.ok(await screenHas(c.client, id, 'http-yes-42'));
    decide = () => ({ action: 'decline' });
    const r = await c.client.callTool({ name: 'type_text', arguments: { session: id, text: 'echo http-no-$((6*7))\n' } });
    assert.match(textOf(r), /person said no/);
    assert.ok(!(await screenHas(c.client, id, 'http-no-42')));
    assert.equal(asked.length, 3);
    decide = yes;
    await c.client.callTool({ name: 'session_stop', arguments: { session: id } });
    await c.client.close();
    await srv.stop();
  });
});

// 2026-07-28: multi round-trip requests.
const ELICIT_CAPS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

function modernCall(name, args, extra = {}, meta = ELICIT_CAPS) {
  return { name, arguments: args, ...extra, _meta: modernMeta(meta) };
}

describe('confirmation for 2026-07-28 requests (input_required + requestState)', needs('terminal'), () => {
  test('round trip on stdio: input_required, then the retry with the answer runs the tool once', opts(), async (t) => {
    const s = RawServer.start(t, { bin: 'glovebox', args: ['--policy', ASSIST], env });
    const args = { command: SHELL, name: 'mrtr' };
    const first = (await s.request(1, 'tools/call', modernCall('terminal_start', args))).result;
    assert.equal(first.resultType, 'input_required', JSON.stringify(first));
    const req = first.inputRequests.confirm;
    assert.equal(req.method, 'elicitation/create');
    assert.equal(req.params.mode, 'form');
    assert.match(req.params.message, /^Allow the agent to start a terminal running "bash" "--norc" "--noprofile"\?/);
    assert.equal(req.params.requestedSchema.properties.confirm.type, 'boolean');
    assert.equal(typeof first.requestState, 'string');
    assert.ok(first._meta['io.modelcontextprotocol/serverInfo']);
    // Nothing ran yet.
    const none = (await s.request(2, 'tools/call', { name: 'session_list', arguments: {}, _meta: modernMeta() })).result;
    assert.equal(none.structuredContent.sessions.length, 0);

    const answer = { confirm: { action: 'accept', content: { confirm: true } } };
    const retry = { requestState: first.requestState, inputResponses: answer };
    const done = (await s.request(3, 'tools/call', modernCall('terminal_start', args, retry))).result;
    assert.equal(done.resultType, 'complete', JSON.stringify(done));
    assert.ok(!done.isError, JSON.stringify(done));
    assert.equal(done.structuredContent.name, 'mrtr');

    // The same answer again is a replay: refused, no second terminal.
    const again = (await s.request(4, 'tools/call', modernCall('terminal_start', args, retry))).result;
    assert.equal(again.isError, true);
    assert.match(again.content[0].text, /requestState was rejected because it was already used once/);
    const listed = (await s.request(5, 'tools/call', { name: 'session_list', arguments: {}, _meta: modernMeta() })).result;
    assert.equal(listed.structuredContent.sessions.length, 1);
    await s.close();
  });

  test('a requestState for other arguments, or altered, is refused; the tool does not run', opts(), async (t) => {
    const s = RawServer.start(t, { bin: 'glovebox', args: ['--policy', ASSIST], env });
    const first = (await s.request(1, 'tools/call', modernCall('terminal_start', { command: ['true'] }))).result;
    const state = first.requestState;
    const answer = { confirm: { action: 'accept', content: { confirm: true } } };
    // The agent got a yes for `true` and tries to spend it on something else.
    const other = (await s.request(2, 'tools/call', modernCall('terminal_start', { command: SHELL }, { requestState: state, inputResponses: answer }))).result;
    assert.equal(other.isError, true);
    assert.match(other.content[0].text, /^Not confirmed: the requestState was rejected because it was altered, was issued for another tool or other arguments/);
    const flipped = state.slice(0, 20) + (state[20] === 'A' ? 'B' : 'A') + state.slice(21);
    const altered = (await s.request(3, 'tools/call', modernCall('terminal_start', { command: ['true'] }, { requestState: flipped, inputResponses: answer }))).result;
    assert.match(altered.content[0].text, /requestState was rejected because it was altered/);
    const junk = (await s.request(4, 'tools/call', modernCall('terminal_start', { command: ['true'] }, { requestState: 'x'.repeat(5000), inputResponses: answer }))).result;
    assert.match(junk.content[0].text, /requestState was rejected because it is not a requestState this server issued/);
    const listed = (await s.request(5, 'tools/call', { name: 'session_list', arguments: {}, _meta: modernMeta() })).result;
    assert.equal(listed.structuredContent.sessions.length, 0, 'nothing ran');
    await s.close();
  });

  test('decline, a retry without an answer, a late answer, and a client without elicitation', opts(), async (t) => {
    const policy = policyFile('quick-modern.json', { mode: 'assist', allow: ['*'], confirm_timeout_s: 1 });
    const s = RawServer.start(t, { bin: 'glovebox', args: ['--policy', policy], env });
    const args = { command: ['true'] };
    const first = (await s.request(1, 'tools/call', modernCall('terminal_start', args))).result;
    // No answer to our question in the retry: asked again.
    const again = (await s.request(2, 'tools/call', modernCall('terminal_start', args, { requestState: first.requestState }))).result;
    assert.equal(again.resultType, 'input_required');
    const no = (await s.request(3, 'tools/call', modernCall('terminal_start', args, { requestState: again.requestState, inputResponses: { confirm: { action: 'decline' } } }))).result;
    assert.equal(no.isError, true);
    assert.match(no.content[0].text, /^Declined: the person said no/);
    const slow = (await s.request(4, 'tools/call', modernCall('terminal_start', args))).result;
    await sleep(1200);
    const late = (await s.request(5, 'tools/call', modernCall('terminal_start', args, { requestState: slow.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }))).result;
    assert.match(late.content[0].text, /^Declined: the person did not answer within 1 s/);
    const cannot = (await s.request(6, 'tools/call', modernCall('terminal_start', args, {}, {}))).result;
    assert.equal(cannot.isError, true);
    assert.match(cannot.content[0].text, /^Confirmation required: the mode is assist.*Use an MCP client that supports elicitation/s);
    // A client that can only open URLs cannot show a form.
    const urlOnly = (await s.request(8, 'tools/call', modernCall('terminal_start', args, {}, { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } }))).result;
    assert.match(urlOnly.content[0].text, /^Confirmation required/);
    const listed = (await s.request(7, 'tools/call', { name: 'session_list', arguments: {}, _meta: modernMeta() })).result;
    assert.equal(listed.structuredContent.sessions.length, 0, 'nothing ran');
    await s.close();
  });

  test('round trip over HTTP', opts(), async (t) => {
    const srv = await startHttp(t, { bin: 'glovebox', args: ['--policy', ASSIST], env });
    const call = (id, params) =>
      post(srv.url, { jsonrpc: '2.0', id, method: 'tools/call', params }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': params.name });
    const args = { command: SHELL, name: 'over-http' };
    const first = await call(1, modernCall('terminal_start', args));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.result.resultType, 'input_required', first.text);
    const done = await call(2, modernCall('terminal_start', args, { requestState: first.json.result.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }));
    assert.equal(done.json.result.resultType, 'complete', done.text);
    assert.equal(done.json.result.structuredContent.name, 'over-http');
    await srv.stop();
  });
});
