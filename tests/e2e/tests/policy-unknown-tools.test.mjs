// A policy that names a tool glovebox does not have: kept, with a warning
// that names it (glovebox policy check, glovebox serve); rules for such a
// tool are refused, since they would restrict nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { builtKinds, connectClient, runCli } from '../lib/server.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-unknown-tools-'));
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') };

function policyFile(name, doc) {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

const typos = {
  allow: ['terminal_*', 'termnal_stop'],
  deny: ['rdp_*'],
  confirm: ['type_txt'],
  rate_limits: { tools: { press_keys: { per_minute: 5 } } },
};

test('policy check warns about each name no tool has, and still accepts the policy', async () => {
  const path = policyFile('typos.json', typos);
  const r = await runCli(['policy', 'check', path], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /typos\.json \(valid\)/);
  assert.match(r.stderr, /warning: .*typos\.json: "allow" names "termnal_stop", but no tool has that name; it has no effect/);
  assert.match(r.stderr, /warning: .*"deny" names "rdp_\*", but no tool matches that pattern/);
  assert.match(r.stderr, /warning: .*"confirm" names "type_txt"/);
  assert.match(r.stderr, /warning: .*"rate_limits\.tools" names "press_keys"/);
  assert.doesNotMatch(r.stderr, /"terminal_\*"/);
  assert.match(r.stdout, /terminal_start +allowed \(allow "terminal_\*"\)/);
});

test('a policy naming only real tools gives no warning, the starter included', async () => {
  const clean = await runCli(['policy', 'check', policyFile('clean.json', { allow: ['terminal_start'], deny: ['set_mode'] })], { env });
  assert.equal(clean.code, 0, clean.stderr);
  assert.doesNotMatch(clean.stderr, /warning/);
  const starter = join(tmp, 'starter.json');
  assert.equal((await runCli(['policy', 'init', starter], { env })).code, 0);
  const check = await runCli(['policy', 'check', starter], { env });
  assert.equal(check.code, 0, check.stderr);
  assert.doesNotMatch(check.stderr, /warning/);
});

test('rules for a tool that does not exist, or that takes no rules, are refused by name', async () => {
  const typo = await runCli(['policy', 'check', policyFile('rule-typo.json', { rules: { terminl_start: { commands: ['bash'] } } })], { env });
  assert.equal(typo.code, 2);
  const vnc = builtKinds().has('vnc') ? ', vnc_connect' : '';
  const web = builtKinds().has('webdriver') ? ', webdriver_connect, open_url' : '';
  assert.ok(typo.stderr.includes(`unknown field "rules.terminl_start" (no tool has this name; rules exist for terminal_start, desktop_start, launch_app${vnc}${web} and input)`), typo.stderr);
  const none = await runCli(['policy', 'check', policyFile('rule-none.json', { rules: { screenshot: { hosts: ['x'] } } })], { env });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /unknown field "rules\.screenshot" \(this tool takes no argument rules/);
});

test('serve warns on stderr about unknown tools and keeps serving the policy', async (t) => {
  const path = policyFile('serve-typos.json', typos);
  const srv = await connectClient(t, { args: ['--policy', path], env });
  const { tools } = await srv.client.listTools();
  assert.ok(tools.some((x) => x.name === 'terminal_start'));
  assert.match(srv.stderr(), /glovebox: warning: .*serve-typos\.json: "allow" names "termnal_stop", but no tool has that name/);
  assert.match(srv.stderr(), /glovebox: warning: .*"rate_limits\.tools" names "press_keys"/);
  await srv.close();
});
