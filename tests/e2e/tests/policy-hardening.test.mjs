// The policy holes of issue 13: what the agent may run is what runs, the
// environment cannot smuggle code in, glovebox's own secrets stay out of
// sessions, argument rules, a project's policy only narrows, and a reload
// that widens waits for the person.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { launchShell, outputOf, startDesktop } from '../lib/desktop.mjs';
import { connectClient, ms, needs, runCli, sleep } from '../lib/server.mjs';
import { startServer } from '../lib/terminal.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-harden-'));
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'no-config') };

function policyFile(name, doc) {
  const path = join(tmp, name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

async function call(srv, name, args = {}) {
  const r = await srv.client.callTool({ name, arguments: args });
  return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join(''), sc: r.structuredContent };
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

/** Runs command in a terminal and returns its screen once "END" shows. */
async function screenOf(srv, command, extra = {}) {
  const started = await call(srv, 'terminal_start', { command, ...extra });
  assert.ok(!started.isError, started.text);
  const waited = await call(srv, 'wait_for', { session: started.sc.id, text: 'END', timeout_ms: ms(10000) });
  assert.ok(!waited.isError, waited.text);
  const text = (await call(srv, 'read_text', { session: started.sc.id })).text;
  await call(srv, 'session_stop', { session: started.sc.id });
  return text;
}

test('a relative program runs from the session folder only if the rule allows that file: the check and the exec resolve it alike', needs('terminal'), async (t) => {
  // The scenario: glovebox started in /usr, policy "bash", and a
  // look-alike bin/bash in the session's folder that would leave a marker.
  const x = mkdtempSync(join(tmp, 'x-'));
  mkdirSync(join(x, 'bin'));
  const marker = join(x, 'ran');
  writeFileSync(join(x, 'bin/bash'), `#!/bin/sh\ntouch ${marker}\n`);
  chmodSync(join(x, 'bin/bash'), 0o755);
  const path = policyFile('relative.json', { allow: ['terminal_start', 'session_stop'], rules: { terminal_start: { commands: ['bash'] } } });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env, cwd: '/usr' });
  const refused = await call(srv, 'terminal_start', { command: ['bin/bash'], cwd: x });
  assert.ok(refused.isError, refused.text);
  assert.equal(refused.text, `Denied by policy: terminal_start may not run "bin/bash" (${x}/bin/bash): allowed commands are bash (policy rules.terminal_start.commands)`);
  await sleep(300);
  assert.ok(!existsSync(marker), 'the look-alike never ran');
  // The same relative name from /usr is the system's bash, and is allowed.
  const ok = await call(srv, 'terminal_start', { command: ['bin/bash', '--norc'], cwd: '/usr' });
  assert.ok(!ok.isError, ok.text);
  await call(srv, 'session_stop', { session: ok.sc.id });
  await srv.close();
});

test('env is an allow-list: code-running variables are refused by name, inert and policy-listed ones pass', needs('terminal'), async (t) => {
  const x = mkdtempSync(join(tmp, 'env-'));
  const marker = join(x, 'injected');
  const script = join(x, 'ok.sh');
  writeFileSync(script, 'echo "mine=$MY_SETTING lang=$LANG"; echo END; sleep 30\n');
  const path = policyFile('env.json', {
    allow: ['terminal_start', 'session_stop', 'wait_for'],
    rules: { terminal_start: { commands: ['bash'], env: ['MY_*'] } },
  });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  const refused = await call(srv, 'terminal_start', { command: ['bash', script], env: { BASH_ENV: `$(touch ${marker})` } });
  assert.ok(refused.isError);
  assert.match(refused.text, /^Denied by policy: terminal_start may not set the environment variable "BASH_ENV": .* add "BASH_ENV" there to allow it$/);
  assert.match(refused.text, /rules\.terminal_start\.env/);
  for (const name of ['LD_PRELOAD', 'ENV', 'PYTHONSTARTUP', 'GIT_SSH_COMMAND', 'PATH']) {
    const r = await call(srv, 'terminal_start', { command: ['bash', script], env: { [name]: 'x' } });
    assert.ok(r.isError && r.text.includes(`"${name}"`), `${name}: ${r.text}`);
  }
  await sleep(200);
  assert.ok(!existsSync(marker), 'BASH_ENV never ran');
  const screen = await screenOf(srv, ['bash', script], { env: { LANG: 'C.UTF-8', MY_SETTING: 'on' } });
  assert.match(screen, /mine=on lang=C\.UTF-8/);
  await srv.close();
});

test('programs in a session never see glovebox\'s own secrets (GLOVEBOX_TOKEN)', needs('terminal'), async (t) => {
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--allow-all'], env: { GLOVEBOX_TOKEN: 'tok-secret-1234567890abcdef', GLOVEBOX_ALLOW_ALL: '0' } });
  const screen = await screenOf(srv, ['sh', '-c', 'env | grep -c "GLOVEBOX_\\|tok-secret"; echo "HOME=$HOME"; echo END; sleep 30']);
  assert.match(screen, /^0$/m, screen);
  assert.match(screen, /HOME=\//, 'the rest of the environment is there');
  await srv.close();
});

test('programs on a private desktop never see GLOVEBOX_TOKEN either (desktop_start command, launch_app)', needs('desktop'), async (t) => {
  const dir = mkdtempSync(join(tmp, 'desktop-env-'));
  const srv = await startServer(t, { env: { GLOVEBOX_TOKEN: 'tok-secret-1234567890abcdef' } });
  const first = join(dir, 'start.env');
  const session = await startDesktop(srv, { command: ['sh', '-c', `env > '${first}.tmp'; mv '${first}.tmp' '${first}'; exec sleep 300`] });
  const launched = await launchShell(srv, session, dir, 'launch', 'env');
  for (const [what, file] of [['desktop_start', first], ['launch_app', launched]]) {
    const seen = await outputOf(file);
    assert.match(seen, /^DISPLAY=:/m, `${what}: the program ran on the desktop:\n${seen}`);
    assert.doesNotMatch(seen, /GLOVEBOX_|tok-secret/, `${what} inherited glovebox's secrets:\n${seen}`);
  }
  await srv.ok('session_stop', { session });
  await srv.close();
});

test('argument rules: a rule object fixes the arguments; others are refused naming the rule', needs('terminal'), async (t) => {
  const path = policyFile('argv.json', {
    allow: ['terminal_start', 'session_stop', 'wait_for'],
    rules: { terminal_start: { commands: [{ program: 'echo', args: ['hello', '*'] }, { program: 'sh', args: ['-c', 'echo END', '...'] }] } },
  });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path], env });
  const ok = await call(srv, 'terminal_start', { command: ['echo', 'hello', 'world'] });
  assert.ok(!ok.isError, ok.text);
  const more = await call(srv, 'terminal_start', { command: ['sh', '-c', 'echo END', 'a', 'b'] });
  assert.ok(!more.isError, more.text);
  const refused = await call(srv, 'terminal_start', { command: ['echo', '-e', 'x'] });
  assert.ok(refused.isError);
  assert.equal(refused.text, 'Denied by policy: terminal_start may not run "echo -e x": the arguments do not match rule "echo hello *" in rules.terminal_start.commands (each argument pattern matches one argument; "..." allows any further ones)');
  const shell = await call(srv, 'terminal_start', { command: ['sh', '-c', 'rm -rf ~'] });
  assert.ok(shell.isError);
  assert.match(shell.text, /do not match rule "sh -c echo END \.\.\."/);
  const tooFew = await call(srv, 'terminal_start', { command: ['echo', 'hello'] });
  assert.ok(tooFew.isError, 'one pattern, one argument');
  for (const s of [ok, more]) await call(srv, 'session_stop', { session: s.sc.id });
  await srv.close();

  const bad = policyFile('argv-bad.json', { allow: ['terminal_start'], rules: { terminal_start: { commands: [{ program: 'git', args: ['...', 'status'] }] } } });
  const check = await runCli(['policy', 'check', bad], { env });
  assert.equal(check.code, 2);
  assert.match(check.stderr, /"rules\.terminal_start\.commands"\[0\]\.args: "\.\.\." \(any further arguments\) may only be the last item/);
  const rel = policyFile('argv-rel.json', { allow: ['terminal_start'], rules: { terminal_start: { commands: ['bin/bash'] } } });
  const relCheck = await runCli(['policy', 'check', rel], { env });
  assert.equal(relCheck.code, 2);
  assert.match(relCheck.stderr, /"bin\/bash" has a '\/' but is not an absolute path/);
});

test('a project policy (./.glovebox/policy.json) narrows the user\'s policy and never widens it', needs('terminal'), async (t) => {
  const config = mkdtempSync(join(tmp, 'config-'));
  mkdirSync(join(config, 'glovebox'));
  writeFileSync(join(config, 'glovebox/policy.json'), JSON.stringify({ allow: ['terminal_start', 'session_stop', 'press_key'] }));
  const project = mkdtempSync(join(tmp, 'project-'));
  mkdirSync(join(project, '.glovebox'));
  writeFileSync(join(project, '.glovebox/policy.json'), JSON.stringify({ mode: 'autopilot', allow: ['*'], deny: ['press_key'] }));
  const penv = { ...env, XDG_CONFIG_HOME: config };
  const srv = await connectClient(t, { bin: 'glovebox', env: penv, cwd: project });
  const widened = await call(srv, 'type_text', { text: 'x' });
  assert.ok(widened.isError, 'the project cannot allow what the user did not');
  assert.match(widened.text, /type_text is not in "allow" in .*config-.*\/glovebox\/policy\.json/);
  const narrowed = await call(srv, 'press_key', { key: 'Enter' });
  assert.ok(narrowed.isError, 'the project can deny what the user allowed');
  assert.match(narrowed.text, /press_key matches a "deny" rule in \.glovebox\/policy\.json/);
  const both = await call(srv, 'terminal_start', { command: ['sh', '-c', 'sleep 30'] });
  assert.ok(!both.isError, both.text);
  const status = (await call(srv, 'status')).sc.policy;
  assert.match(status.narrowed_by.source, /\.glovebox\/policy\.json$/);
  await call(srv, 'session_stop', { session: both.sc.id });
  await srv.close();

  const check = await runCli(['policy', 'check'], { cwd: project, env: penv });
  assert.equal(check.code, 0, check.stderr);
  assert.match(check.stdout, /^narrowed by the project's policy: \.glovebox\/policy\.json/m);
  assert.match(check.stdout, /^ {2}press_key +denied \(deny "press_key"\) by the project policy/m);
  assert.match(check.stdout, /^ {2}type_text +denied \(not in allow\)$/m);
});

test('a cloned repository\'s ./.glovebox/policy.json {allow: ["*"]} allows nothing more when the person has no policy of their own', needs('terminal', 'desktop'), async (t) => {
  const config = mkdtempSync(join(tmp, 'empty-config-')); // no glovebox/policy.json in it
  const repo = mkdtempSync(join(tmp, 'repo-'));
  mkdirSync(join(repo, '.glovebox'));
  writeFileSync(join(repo, '.glovebox/policy.json'), JSON.stringify({ mode: 'autopilot', allow: ['*'] }));
  const renv = { ...env, XDG_CONFIG_HOME: config };
  const userFile = join(config, 'glovebox', 'policy.json');
  const srv = await connectClient(t, { bin: 'glovebox', env: renv, cwd: repo });
  const names = (await srv.client.listTools()).tools.map((x) => x.name);
  assert.ok(!names.includes('terminal_start'), 'terminal_start is not offered');
  const started = await call(srv, 'terminal_start', { command: ['sh', '-c', 'sleep 30'] });
  assert.ok(started.isError, 'the project file cannot allow what the read-only default does not');
  assert.match(started.text, /you have no policy of your own, so glovebox is read-only/);
  assert.ok(started.text.includes(userFile), started.text);
  for (const tool of ['type_text', 'launch_app', 'desktop_start'])
    assert.ok((await call(srv, tool, {})).isError, `${tool} is denied`);
  // Read-only tools still work.
  const listed = await call(srv, 'session_list');
  assert.ok(!listed.isError, listed.text);
  const status = (await call(srv, 'status')).sc.policy;
  assert.equal(status.source, null);
  assert.match(status.narrowed_by.source, /\.glovebox\/policy\.json$/);
  assert.match(srv.stderr(), /no policy of your own, so this server is read-only; the project's policy \.glovebox\/policy\.json can only narrow that/);
  assert.ok(srv.stderr().includes(`write your own policy to ${userFile}`), srv.stderr());
  await srv.close();

  const check = await runCli(['policy', 'check'], { cwd: repo, env: renv });
  assert.equal(check.code, 0, check.stderr);
  assert.match(check.stdout, /^no policy file of your own/m);
  assert.match(check.stdout, /^narrowed by the project's policy: \.glovebox\/policy\.json/m);
  assert.match(check.stdout, /^ {2}terminal_start +denied \(no policy of your own: read-only\)$/m);
  assert.match(check.stdout, /^ {2}screenshot +allowed \(read-only\)$/m);

  // --policy PATH is the person's explicit choice: the project file narrows it.
  const own = policyFile('own.json', { allow: ['terminal_start', 'session_stop'] });
  const chosen = await connectClient(t, { bin: 'glovebox', args: ['--policy', own], env: renv, cwd: repo });
  const ok = await call(chosen, 'terminal_start', { command: ['sh', '-c', 'sleep 30'] });
  assert.ok(!ok.isError, ok.text);
  await call(chosen, 'session_stop', { session: ok.sc.id });
  await chosen.close();
});

test('a reload that widens waits for glovebox policy apply; narrowing applies at once; a broken file keeps the last good policy', async (t) => {
  const dataDir = mkdtempSync(join(tmp, 'data-'));
  const path = policyFile('reload.json', { allow: ['terminal_start', 'session_stop'] });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path, '--data-dir', dataDir], env });
  const policy = async () => (await call(srv, 'status')).sc.policy;

  writeFileSync(path, JSON.stringify({ allow: ['terminal_start', 'session_stop', 'press_key'] }));
  const pending = await until(async () => ((await policy()).pending ? await policy() : null), ms(5000), 'the pending widening');
  assert.match(pending.pending, /"allow" gains "press_key"/);
  const still = await call(srv, 'press_key', { key: 'Enter' });
  assert.ok(still.isError, 'a widening does not apply by itself');
  assert.match(still.text, /press_key is not in "allow"/);
  assert.match(srv.stderr(), /widen the permissions .*glovebox policy apply/);

  const applied = await runCli(['policy', 'apply', '--pid', String(srv.child.pid), '--data-dir', dataDir], { env });
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stdout, /^told glovebox serve pid \d+$/m);
  await until(async () => (await policy()).allow.includes('press_key'), ms(5000), 'the applied policy');
  assert.equal((await policy()).pending, null);

  // Narrowing needs nobody.
  writeFileSync(path, JSON.stringify({ allow: ['terminal_start', 'session_stop'] }));
  await until(async () => !(await policy()).allow.includes('press_key'), ms(5000), 'the narrower policy');
  assert.match((await call(srv, 'press_key', { key: 'Enter' })).text, /not in "allow"/);

  writeFileSync(path, '{"allow": ["*"');
  const broken = await until(async () => ((await policy()).error ? await policy() : null), ms(5000), 'the broken file reported');
  assert.match(broken.error, /reload\.json: line 1/);
  assert.deepEqual(broken.allow, ['terminal_start', 'session_stop'], 'the last good policy stays');
  assert.ok((await call(srv, 'press_key', { key: 'Enter' })).isError);
  await srv.close();

  // The audit log keeps each outcome, and the calls around them.
  const audit = await runCli(['audit', '--data-dir', dataDir, '--tool', '(policy reload)', '--json'], { env });
  assert.equal(audit.code, 0, audit.stderr);
  const rows = audit.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((r) => r.decision), ['pending', 'applied', 'narrowed', 'kept']);
  assert.match(rows[0].error, /"allow" gains "press_key"/);
  assert.match(rows[3].error, /reload\.json: line 1/);
  const calls = await runCli(['audit', '--data-dir', dataDir, '--tool', 'press_key', '--json'], { env });
  assert.equal(calls.stdout.trim().split('\n').length, 3, 'the calls are logged too');
});
