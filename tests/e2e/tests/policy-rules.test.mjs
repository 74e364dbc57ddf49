// The policy's argument rules, rate limits, reloading and the policy
// command, end to end: what an agent is told, what a person reads.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { RawServer, connectClient, modernParams, ms, needs, runCli, sleep } from '../lib/server.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-rules-'));
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') };

function policyFile(name, doc) {
  const path = join(tmp, name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

async function call(srv, name, args = {}) {
  const r = await srv.client.callTool({ name, arguments: args });
  return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join(''), sc: r.structuredContent };
}

/** What a person does to confirm a policy that widens (the reload alone waits). */
async function apply(srv) {
  const r = await runCli(['policy', 'apply', '--pid', String(srv.child.pid)], { env });
  assert.equal(r.code, 0, r.stderr);
}

/** Waits until status shows a widening waiting for the person, then applies it. */
async function applyWhenPending(srv) {
  await until(async () => (await call(srv, 'status')).sc.policy.pending, ms(5000), 'the pending widening');
  await apply(srv);
}

async function until(pred, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await pred();
    if (v) return v;
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await sleep(50);
  }
}

test('argument rules: allowed programs run, others are refused naming the rule; attaching needs a listed display', needs('terminal', 'desktop'), async (t) => {
  const path = policyFile('rules.json', {
    allow: ['terminal_start', 'session_stop', 'desktop_start'],
    rules: { terminal_start: { commands: ['cat', '/bin/sh'] } },
  });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  const ok = await call(srv, 'terminal_start', { command: ['/usr/bin/cat'] });
  assert.ok(!ok.isError, ok.text);
  const refused = await call(srv, 'terminal_start', { command: ['bash', '-c', 'echo hi'] });
  assert.ok(refused.isError);
  // The refusal names the file that would have run (where PATH finds bash).
  assert.match(refused.text, /^Denied by policy: terminal_start may not run "bash" \(\/[^)]*\/bash\): allowed commands are cat, \/bin\/sh \(policy rules\.terminal_start\.commands\)$/);
  const attach = await call(srv, 'desktop_start', { display: ':0' });
  assert.ok(attach.isError);
  assert.match(attach.text, /may not attach to the existing display ":0"; list it in rules\.desktop_start\.displays/);
  await call(srv, 'session_stop', { session: ok.sc.id });
  await srv.close();
});

test('rate limits: over the limit is refused with the time to wait, and recovers', async (t) => {
  const path = policyFile('rate.json', { rate_limits: { tools: { status: { per_second: 2, burst: 2 } } } });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  assert.ok(!(await call(srv, 'status')).isError);
  assert.ok(!(await call(srv, 'status')).isError);
  const limited = await call(srv, 'status');
  assert.ok(limited.isError);
  assert.match(limited.text, /^Rate limit for status: 2 per second \(burst 2\); retry after 0\.\d s \(policy rate_limits\.tools\.status\)$/);
  await sleep(600);
  assert.ok(!(await call(srv, 'status')).isError, 'a token came back');
  // Other tools are not limited by status's bucket.
  assert.ok(!(await call(srv, 'session_list')).isError);
  await srv.close();
});

test('the policy file is re-read when it changes; a broken one keeps the last good policy and status says why', async (t) => {
  const path = policyFile('live.json', { allow: ['session_stop'] });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  const names = async () => (await srv.client.listTools()).tools.map((x) => x.name);
  assert.ok((await names()).includes('session_stop'));
  assert.ok(!(await names()).includes('press_key'));

  // An editor's way: write a copy, rename it over the file.
  writeFileSync(`${path}.new`, JSON.stringify({ allow: ['press_key'] }));
  renameSync(`${path}.new`, path);
  await applyWhenPending(srv); // it widens (press_key): the person confirms
  await until(async () => (await names()).includes('press_key'), ms(5000), 'the new policy');
  assert.ok(!(await names()).includes('session_stop'));

  writeFileSync(path, '{"allow": ["type_text"], "alow": []}');
  const broken = await until(async () => {
    const s = (await call(srv, 'status')).sc;
    return s.policy.error ? s : null;
  }, ms(5000), 'status to report the broken file');
  assert.match(broken.policy.error, /unknown field "alow"/);
  assert.deepEqual(broken.policy.allow, ['press_key'], 'the last good policy stays');
  assert.ok((await names()).includes('press_key'));
  assert.match(srv.stderr(), /policy not reloaded, the last good one stays in force/);

  writeFileSync(path, JSON.stringify({ allow: ['type_text'] }));
  await applyWhenPending(srv);
  await until(async () => (await names()).includes('type_text'), ms(5000), 'the fixed policy');
  assert.equal((await call(srv, 'status')).sc.policy.error, null);
  await srv.close();
});

test('a mode the agent lowered stays lowered across a reload, unless the file changes the mode', async (t) => {
  const path = policyFile('mode.json', { mode: 'autopilot', allow: ['press_key'] });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  await call(srv, 'set_mode', { mode: 'passive' });
  writeFileSync(path, JSON.stringify({ mode: 'autopilot', allow: ['press_key', 'type_text'] }));
  await applyWhenPending(srv);
  await until(async () => (await call(srv, 'status')).sc.policy.allow.includes('type_text'), ms(5000), 'the reload');
  assert.equal((await call(srv, 'status')).sc.policy.mode, 'passive');
  // assist is above the passive the agent chose: a widening, confirmed.
  writeFileSync(path, JSON.stringify({ mode: 'assist', allow: ['press_key', 'type_text'] }));
  await applyWhenPending(srv);
  await until(async () => (await call(srv, 'status')).sc.policy.mode === 'assist', ms(5000), 'the person\'s new mode');
  await srv.close();
});

test('clients hear tools/list_changed when a reload or set_mode changes the tools they may see, and only then', async (t) => {
  const path = policyFile('changes.json', { mode: 'autopilot', allow: ['terminal_start'] });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  assert.equal(srv.client.getServerCapabilities().tools.listChanged, true);
  let heard = 0;
  srv.client.setNotificationHandler(ToolListChangedNotificationSchema, () => heard++);
  // A 2026-07-28 client hears it on a subscriptions/listen stream.
  const modern = RawServer.start(t, { bin: 'glovebox', args: ['--policy', path], env });
  await modern.send({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: modernParams({ notifications: { toolsListChanged: true } }) });
  const isListen = (method) => (m) => m.json?.method === method && m.json.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'L';
  const ack = await modern.take(isListen('notifications/subscriptions/acknowledged'), { what: 'the acknowledgement' });
  assert.deepEqual(ack.json.params.notifications, { toolsListChanged: true });
  const denied = async () => (await call(srv, 'status')).sc.policy.deny;

  // The same tools under a new file (denying one that was not allowed anyway): nobody is told.
  writeFileSync(path, JSON.stringify({ mode: 'autopilot', allow: ['terminal_start'], deny: ['window_manage'] }));
  await until(async () => (await denied()).includes('window_manage'), ms(5000), 'the reload');
  await sleep(200);
  assert.equal(heard, 0, 'no change in the tools, no notification');

  // A tool appears: both clients hear it, and the list shows it.
  writeFileSync(path, JSON.stringify({ mode: 'autopilot', allow: ['terminal_start', 'press_key'] }));
  await applyWhenPending(srv);
  await apply(modern); // the second server watches the same file
  await until(() => heard === 1, ms(5000), 'notifications/tools/list_changed after the reload');
  assert.ok((await srv.client.listTools()).tools.some((x) => x.name === 'press_key'));
  await modern.take(isListen('notifications/tools/list_changed'), { what: 'the listen stream\'s notification' });

  // The agent lowers itself to passive: the changing tools go, and it hears so.
  await call(srv, 'set_mode', { mode: 'passive' });
  await until(() => heard === 2, ms(5000), 'notifications/tools/list_changed after set_mode');
  assert.ok(!(await srv.client.listTools()).tools.some((x) => x.name === 'press_key'));
  // Already passive: nothing changes, nothing is sent.
  await call(srv, 'set_mode', { mode: 'passive' });
  await sleep(200);
  assert.equal(heard, 2);
  await modern.close();
  await srv.close();
});

test('glovebox policy init writes a starter policy; check explains it and names the field of a broken one', needs('terminal', 'desktop'), async () => {
  const dir = mkdtempSync(join(tmp, 'init-'));
  // The person's own policy by default: $XDG_CONFIG_HOME/glovebox/policy.json,
  // folders created as needed.
  const config = join(dir, 'config', 'deeper');
  const ienv = { ...env, XDG_CONFIG_HOME: config };
  const userFile = join(config, 'glovebox', 'policy.json');
  const init = await runCli(['policy', 'init'], { cwd: dir, env: ienv });
  assert.equal(init.code, 0, init.stderr);
  assert.ok(init.stdout.includes(`wrote ${userFile}:`), init.stdout);
  assert.ok(!existsSync(join(dir, '.glovebox')), 'init does not write a project file by default');
  const starter = JSON.parse(readFileSync(userFile, 'utf8'));
  assert.deepEqual(starter.rules.terminal_start.commands, ['bash', 'sh']);
  const again = await runCli(['policy', 'init'], { cwd: dir, env: ienv });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /exists; it is kept \(--force replaces it\)/);
  // Without XDG_CONFIG_HOME: ~/.config/glovebox/policy.json.
  const home = join(dir, 'home');
  const homeInit = await runCli(['policy', 'init'], { cwd: dir, env: { ...env, XDG_CONFIG_HOME: '', HOME: home } });
  assert.equal(homeInit.code, 0, homeInit.stderr);
  assert.ok(existsSync(join(home, '.config', 'glovebox', 'policy.json')));
  // --project writes ./.glovebox/policy.json and says it only narrows.
  const proj = await runCli(['policy', 'init', '--project'], { cwd: dir, env });
  assert.equal(proj.code, 0, proj.stderr);
  assert.match(proj.stdout, /wrote \.glovebox\/policy\.json/);
  assert.match(proj.stdout, /can only narrow the policy of whoever runs glovebox serve here/);
  assert.ok(existsSync(join(dir, '.glovebox', 'policy.json')));

  const check = await runCli(['policy', 'check'], { cwd: tmp, env: ienv });
  assert.equal(check.code, 0, check.stderr);
  assert.ok(check.stdout.includes(`policy: ${userFile} (valid)\n`), check.stdout);
  assert.match(check.stdout, /^mode: autopilot/m);
  assert.match(check.stdout, /^ {2}terminal_start +allowed \(allow "terminal_start"\)$/m);
  assert.match(check.stdout, /^ {2}screenshot +allowed \(read-only\)$/m);
  assert.match(check.stdout, /^ {2}terminal_start +\{"commands":\["bash","sh"\],"env":\[\]\}$/m);
  // The starter says what a bare name allows.
  assert.match(starter.rules.$comment, /A bare name \(bash\) allows that program from a folder of glovebox's PATH .* WITH ANY ARGUMENTS/);
  assert.match(check.stdout, /type_text +\{"per_second":10/);

  const bad = policyFile('bad.json', { allow: ['x'], rules: { launch_app: { apps: 'zenity' } } });
  const broken = await runCli(['policy', 'check', bad], { env });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /bad\.json: "rules\.launch_app\.apps" must be an array/);

  const none = await runCli(['policy', 'check'], { cwd: mkdtempSync(join(tmp, 'none-')), env });
  assert.equal(none.code, 0);
  assert.match(none.stdout, /no policy file of your own/);
  assert.match(none.stdout, /^ {2}type_text +denied \(no policy of your own: read-only\)$/m);
});

test('input never reaches a window the policy blocks, by keys, pointer or element', needs('desktop'), async (t) => {
  const path = policyFile('blocked.json', {
    allow: ['desktop_start', 'launch_app', 'session_stop', 'type_text', 'press_key', 'click'],
    rules: { input: { blocked_windows: ['*Vault*'] } },
  });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path, '--data-dir', mkdtempSync(join(tmp, 'data-'))], env });
  const ok = async (name, args) => {
    const r = await call(srv, name, args);
    assert.ok(!r.isError, `${name}: ${r.text}`);
    return r;
  };
  const session = (await ok('desktop_start', {})).sc.id;
  await ok('launch_app', { session, command: ['zenity', '--entry', '--title', 'Secret Vault', '--text', 'Master key'] });
  await ok('wait_for', { session, text: 'Master key', timeout_ms: ms(15000) });
  const blocked = /Denied by policy: input to the window "Secret Vault" is blocked \(it matches "\*Vault\*" in rules\.input\.blocked_windows\)/;
  let r = await call(srv, 'type_text', { session, text: 'hunter2' });
  assert.ok(r.isError);
  assert.match(r.text, blocked);
  r = await call(srv, 'press_key', { session, window: 'Vault', key: 'Enter' });
  assert.match(r.text, blocked);
  r = await call(srv, 'click', { session, text: 'OK', role: 'push button' });
  assert.match(r.text, blocked, 'the element is not pressed through accessibility either');
  const snap = (await ok('snapshot', { session })).sc;
  const entry = snap.elements.find((e) => e.role === 'text');
  r = await call(srv, 'click', { session, x: entry.bounds.x + 5, y: entry.bounds.y + 5 });
  assert.match(r.text, blocked);
  const still = await ok('read_text', { session, ref: entry.ref });
  assert.notEqual(still.sc.text, 'hunter2');
  // Elsewhere on the screen input is fine.
  await ok('click', { session, x: 1, y: 1 });
  await ok('session_stop', { session });
  await srv.close();
});

test('screen regions the policy lists are painted over in every desktop screenshot', needs('desktop'), async (t) => {
  const { decodePng, pixel } = await import('../lib/terminal.mjs');
  const path = policyFile('redact.json', {
    allow: ['desktop_start', 'launch_app', 'session_stop'],
    redact: [{ x: 10, y: 20, width: 30, height: 40 }],
  });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path, '--data-dir', mkdtempSync(join(tmp, 'data-'))], env });
  const r = await call(srv, 'desktop_start', { width: 320, height: 240 });
  const session = r.sc.id;
  await call(srv, 'launch_app', { session, command: ['xsetroot', '-solid', '#3366cc'] });
  let png;
  let shot;
  await until(async () => {
    shot = await srv.client.callTool({ name: 'screenshot', arguments: { session } });
    png = decodePng(shot.content.find((c) => c.type === 'image').data);
    return pixel(png, 200, 200)[2] === 0xcc;
  }, ms(5000), 'the root colour');
  assert.equal(shot.structuredContent.redacted, 1);
  assert.deepEqual(pixel(png, 10, 20), [0x60, 0x60, 0x60]);
  assert.deepEqual(pixel(png, 39, 59), [0x60, 0x60, 0x60]);
  assert.deepEqual(pixel(png, 40, 60), [0x33, 0x66, 0xcc]);
  assert.deepEqual(pixel(png, 9, 20), [0x33, 0x66, 0xcc]);
  // A region is painted where it overlaps the listed area, in its own coordinates.
  const partShot = await srv.client.callTool({ name: 'screenshot', arguments: { session, region: { x: 30, y: 50, width: 40, height: 40 } } });
  const part = decodePng(partShot.content.find((c) => c.type === 'image').data);
  assert.equal(partShot.structuredContent.redacted, 1);
  assert.deepEqual([part.width, part.height], [40, 40]);
  assert.deepEqual(pixel(part, 0, 0), [0x60, 0x60, 0x60]);
  assert.deepEqual(pixel(part, 9, 9), [0x60, 0x60, 0x60]);
  assert.deepEqual(pixel(part, 10, 9), [0x33, 0x66, 0xcc]);
  assert.deepEqual(pixel(part, 9, 10), [0x33, 0x66, 0xcc]);
  const away = await srv.client.callTool({ name: 'screenshot', arguments: { session, region: { x: 100, y: 100, width: 20, height: 20 } } });
  assert.equal(away.structuredContent.redacted, undefined, 'nothing to paint over in that region');
  const bad = policyFile('redact-bad.json', { redact: [{ x: 1, y: 1, width: 0, height: 5 }] });
  const check = await runCli(['policy', 'check', bad], { env });
  assert.equal(check.code, 2);
  assert.match(check.stderr, /"redact"\[0\] must be \{"x", "y", "width", "height"\}/);
  await call(srv, 'session_stop', { session });
  await srv.close();
});
