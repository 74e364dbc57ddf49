// The permission policy end to end: what the model sees in tools/list and
// what it is told when it calls a tool anyway.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectClient, needs, runCli } from '../lib/server.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-policy-'));
// No allow-all, and no policy file from the person running the tests.
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') };

function policyFile(name, doc) {
  const path = join(tmp, name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

async function names(srv) {
  return (await srv.client.listTools()).tools.map((t) => t.name);
}

async function callText(srv, name, args = {}) {
  const r = await srv.client.callTool({ name, arguments: args });
  return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join('') };
}

test('no policy: read-only tools only, and the refusal says how to allow', async (t) => {
  const srv = await connectClient(t, { bin: 'glovebox', env });
  const list = await names(srv);
  assert.ok(list.includes('screenshot') && list.includes('status'));
  for (const hidden of ['terminal_start', 'type_text', 'press_key', 'session_stop'])
    assert.ok(!list.includes(hidden), `${hidden} is hidden`);
  const r = await callText(srv, 'session_stop', { session: 'x' });
  assert.ok(r.isError);
  assert.match(r.text, /Denied by policy: you have no policy of your own, so glovebox is read-only/);
  // The hint names the person's own file, never a project file (which only narrows).
  const userFile = join(tmp, 'config', 'glovebox', 'policy.json');
  assert.ok(r.text.includes(`put {"allow": ["session_stop"]} in your policy, ${userFile}`), r.text);
  assert.match(r.text, /--policy PATH/);
  assert.match(r.text, /\.\/\.glovebox\/policy\.json can only narrow/);
  assert.match(srv.stderr(), /read-only/);
  assert.ok(srv.stderr().includes(`Write your own policy to ${userFile}`), srv.stderr());
  await srv.close();
});

test('allow with wildcards, deny wins', needs('terminal'), async (t) => {
  const path = policyFile('wild.json', { allow: ['terminal_*', '*_text', 'press_key'], deny: ['press_*'] });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  const list = await names(srv);
  assert.ok(list.includes('terminal_start'));
  assert.ok(list.includes('type_text'));
  assert.ok(!list.includes('press_key'), 'deny wins over allow');
  assert.ok(!list.includes('session_stop'), 'not allowed: hidden');
  const denied = await callText(srv, 'press_key', { session: 'x', key: 'Enter' });
  assert.ok(denied.isError);
  assert.match(denied.text, /matches a "deny" rule/);
  const notAllowed = await callText(srv, 'session_stop', { session: 'x' });
  assert.match(notAllowed.text, /is not in "allow"/);
  const started = await callText(srv, 'terminal_start', { command: ['/bin/cat'] });
  assert.ok(!started.isError, started.text);
  await srv.close();
});

test('passive mode from --mode overrides the file', async (t) => {
  const path = policyFile('all.json', { mode: 'autopilot', allow: ['*'] });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path, '--mode', 'passive'], env });
  assert.ok(!(await names(srv)).includes('session_stop'));
  const r = await callText(srv, 'session_stop', { session: 'x' });
  assert.match(r.text, /mode is passive/);
  await srv.close();
});

test('--allow-all allows everything and warns', async (t) => {
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--allow-all'], env });
  assert.ok((await names(srv)).includes('type_text'));
  assert.match(srv.stderr(), /WARNING: --allow-all/);
  await srv.close();
});

test('a broken policy file stops serve with the reason', async () => {
  const bad = policyFile('bad.json', '{"allow": "*"}');
  const r = await runCli(['serve', '--policy', bad], { env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /"allow" must be an array/);
  const unknown = policyFile('typo.json', '{"alow": []}');
  const r2 = await runCli(['serve', '--policy', unknown], { env });
  assert.match(r2.stderr, /unknown field "alow"/);
});

test('set_mode lowers but never raises; status shows the mode', async (t) => {
  const path = policyFile('assist.json', { mode: 'assist', allow: ['*'] });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  const up = await callText(srv, 'set_mode', { mode: 'autopilot' });
  assert.ok(up.isError);
  assert.match(up.text, /can only lower privileges/);
  const down = await callText(srv, 'set_mode', { mode: 'passive' });
  assert.ok(!down.isError, down.text);
  const st = await srv.client.callTool({ name: 'status', arguments: {} });
  assert.equal(st.structuredContent.policy.mode, 'passive');
  assert.ok(!(await names(srv)).includes('terminal_start'), 'passive hides changing tools');
  await srv.close();
});
