// A policy that names a tool glovebox does not have: kept, with a warning
// that names it (glovebox policy check, glovebox serve); rules for such a
// tool are refused, since they would restrict nothing. A tool of a kind this
// build was configured without (-Dterminal=disabled …) is a warning naming
// the tool and the kind, rules for it included: the same policy serves a
// fuller build.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { assertMcpError, builtKinds, connectClient, ms, runCli } from '../lib/server.mjs';
import { until } from '../lib/terminal.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-unknown-tools-'));
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') };

function policyFile(name, doc) {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

// The tools of each kind a build may leave out (src/backend/kinds.c).
const KIND_TOOLS = {
  terminal: ['terminal_start'],
  desktop: ['desktop_start', 'launch_app'],
  webdriver: ['webdriver_connect', 'open_url'],
  android: ['android_connect', 'device_list', 'press_button', 'app_list', 'app_stop', 'app_reset', 'app_install', 'app_uninstall', 'orientation', 'set_network'],
  vnc: ['vnc_connect'],
};
// The kinds whose tools the starter policy and the policy below give rules to.
const RULE_KINDS = ['terminal', 'desktop'];
const absentTools = (kinds = RULE_KINDS) =>
  kinds.flatMap((kind) => (builtKinds().has(kind) ? [] : KIND_TOOLS[kind].map((tool) => ({ kind, tool }))));
const presentTools = (kinds = RULE_KINDS) => kinds.flatMap((kind) => (builtKinds().has(kind) ? KIND_TOOLS[kind] : []));
const warnings = (stderr) => stderr.split('\n').filter((l) => /warning/.test(l));
const absentWhy = (kind) => `a tool of ${kind} sessions, which this build was configured without \\(meson -D${kind}=disabled\\); it has no effect`;

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
  if (builtKinds().has('terminal')) {
    assert.doesNotMatch(r.stderr, /"terminal_\*"/);
    assert.match(r.stdout, /terminal_start +allowed \(allow "terminal_\*"\)/);
  } else {
    assert.match(r.stderr, new RegExp(`warning: .*"allow" names "terminal_\\*", which matches only terminal_start, ${absentWhy('terminal')}`));
  }
});

test('a policy naming only real tools gives no warning, the starter included', async () => {
  const clean = await runCli(['policy', 'check', policyFile('clean.json', { allow: ['session_stop', ...presentTools()], deny: ['set_mode'] })], { env });
  assert.equal(clean.code, 0, clean.stderr);
  assert.doesNotMatch(clean.stderr, /warning/);
  // The starter names every kind's start tools; on a build without a kind,
  // those (and only those) are warned about.
  const starter = join(tmp, 'starter.json');
  assert.equal((await runCli(['policy', 'init', starter], { env })).code, 0);
  const check = await runCli(['policy', 'check', starter], { env });
  assert.equal(check.code, 0, check.stderr);
  const absent = absentTools().map((a) => a.tool);
  for (const line of warnings(check.stderr)) {
    assert.ok(absent.some((tool) => line.includes(`"${tool}"`) || line.includes(`"rules.${tool}"`)), `unexpected warning: ${line}`);
  }
  assert.equal(warnings(check.stderr).length, absent.length * 2, check.stderr);
});

test('a policy for a fuller build: a tool whose kind this build lacks is a warning naming tool and kind, its rules too', async (t) => {
  const path = policyFile('fuller.json', {
    allow: Object.values(KIND_TOOLS).flat(),
    confirm: ['launch_app'],
    rules: {
      terminal_start: { commands: ['bash'], env: [] },
      desktop_start: { commands: ['xterm'], displays: [] },
      launch_app: { commands: ['xterm'] },
    },
    rate_limits: { tools: { terminal_start: { per_minute: 5 }, desktop_start: { per_minute: 5 } } },
  });
  const r = await runCli(['policy', 'check', path], { env });
  assert.equal(r.code, 0, `a policy for a fuller build is accepted: ${r.stderr}`);
  const allKinds = Object.keys(KIND_TOOLS);
  for (const { kind, tool } of absentTools(allKinds)) {
    assert.match(r.stderr, new RegExp(`warning: .*fuller\\.json: "allow" names "${tool}", ${absentWhy(kind)}`));
  }
  for (const { kind, tool } of absentTools()) {
    assert.match(r.stderr, new RegExp(`warning: .*fuller\\.json: "rules\\.${tool}" is for ${tool}, ${absentWhy(kind)}`));
  }
  for (const tool of presentTools(allKinds)) {
    assert.ok(!warnings(r.stderr).some((l) => l.includes(`"${tool}"`) || l.includes(`rules.${tool}`)), `no warning about ${tool}, which this build has:\n${r.stderr}`);
    assert.match(r.stdout, new RegExp(`${tool} +(allowed|needs confirmation)`));
  }
  if (!builtKinds().has('desktop')) assert.match(r.stderr, /"confirm" names "launch_app", a tool of desktop sessions/);
  if (!builtKinds().has('terminal')) assert.match(r.stderr, /"rate_limits\.tools" names "terminal_start", a tool of terminal sessions/);
  // serve takes it too, says the same on stderr, and still applies the
  // rules of the tools it has.
  const srv = await connectClient(t, { args: ['--policy', path], env });
  // (stderr is read asynchronously: wait for the warnings to arrive)
  for (const { tool } of absentTools()) {
    const want = new RegExp(`glovebox: warning: .*"rules\\.${tool}" is for ${tool}`);
    await until(() => want.test(srv.stderr()), ms(5000), `the warning about rules.${tool} on stderr`);
  }
  // Calling one says why it is not there.
  for (const { kind, tool } of absentTools(allKinds)) {
    await assertMcpError(
      srv.client.callTool({ name: tool, arguments: {} }),
      -32602,
      new RegExp(`Unknown tool: ${tool} is a tool of ${kind} sessions, which this build was configured without \\(meson -D${kind}=disabled\\)`),
    );
  }
  if (builtKinds().has('terminal')) {
    const refused = await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['sh'] } });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /rules\.terminal_start\.commands/);
  }
  await srv.close();
});

test('rules for a tool that does not exist, or that takes no rules, are refused by name', async () => {
  const typo = await runCli(['policy', 'check', policyFile('rule-typo.json', { rules: { terminl_start: { commands: ['bash'] } } })], { env });
  assert.equal(typo.code, 2);
  // The tools that take rules, in the order they are registered.
  const sections = [...presentTools(), ...(builtKinds().has('vnc') ? ['vnc_connect'] : []), ...(builtKinds().has('webdriver') ? ['webdriver_connect', 'open_url', 'upload_file'] : []),
    ...(builtKinds().has('android') ? ['android_connect', 'device_list'] : []), 'input'];
  const known = `${sections.slice(0, -1).join(', ')} and ${sections.at(-1)}`;
  assert.equal(typo.stderr.includes(`unknown field "rules.terminl_start" (no tool has this name; rules exist for ${known})`), true, typo.stderr);
  const none = await runCli(['policy', 'check', policyFile('rule-none.json', { rules: { screenshot: { hosts: ['x'] } } })], { env });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /unknown field "rules\.screenshot" \(this tool takes no argument rules/);
});

test('serve warns on stderr about unknown tools and keeps serving the policy', async (t) => {
  const path = policyFile('serve-typos.json', typos);
  const srv = await connectClient(t, { args: ['--policy', path], env });
  const { tools } = await srv.client.listTools();
  assert.ok(tools.some((x) => x.name === 'session_list'));
  assert.match(srv.stderr(), /glovebox: warning: .*serve-typos\.json: "allow" names "termnal_stop", but no tool has that name/);
  assert.match(srv.stderr(), /glovebox: warning: .*"rate_limits\.tools" names "press_keys"/);
  await srv.close();
});
