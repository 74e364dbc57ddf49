// The policy's screen rules reach backends through the gate: each call is
// handed what the policy decided when it arrived (the windows input must keep
// away from, the areas painted over). Shown end to end: a reload between
// calls changes what the next call gets, the refusal reads as before, and the
// screen resource is painted over exactly as the screenshot tool is.
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectClient, ms, needs, runCli } from '../lib/server.mjs';
import { decodePng, pixel, until } from '../lib/terminal.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-guard-'));
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'config') };
const GREY = [0x60, 0x60, 0x60];
const ROOT = [0x33, 0x66, 0xcc];

/** Writes the policy as an editor does (a copy renamed over the file). */
function writePolicy(path, doc) {
  writeFileSync(`${path}.new`, JSON.stringify(doc));
  renameSync(`${path}.new`, path);
}

async function serve(t, doc) {
  const path = join(mkdtempSync(join(tmp, 'p-')), 'policy.json');
  writePolicy(path, doc);
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', path, '--data-dir', mkdtempSync(join(tmp, 'data-'))], env });
  srv.path = path;
  return srv;
}

async function call(srv, name, args = {}) {
  const r = await srv.client.callTool({ name, arguments: args });
  return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join(''), sc: r.structuredContent, content: r.content };
}

async function ok(srv, name, args) {
  const r = await call(srv, name, args);
  assert.ok(!r.isError, `${name}: ${r.text}`);
  return r;
}

/** Rewrites the policy and waits until status shows it in force; a person
 * confirms it when it widens. */
async function reload(srv, doc, inForce) {
  writePolicy(srv.path, doc);
  await until(async () => {
    const p = (await call(srv, 'status')).sc.policy;
    if (p.pending) {
      const r = await runCli(['policy', 'apply', '--pid', String(srv.child.pid)], { env });
      assert.equal(r.code, 0, r.stderr);
    }
    return inForce(p);
  }, ms(10000), 'the reloaded policy');
}

/** A desktop whose root is one colour, so painted areas stand out. */
async function blueDesktop(srv) {
  const session = (await ok(srv, 'desktop_start', { width: 320, height: 240 })).sc.id;
  await ok(srv, 'launch_app', { session, command: ['xsetroot', '-solid', '#3366cc'] });
  await until(async () => pixel(await screenshot(srv, session), 300, 200)[2] === 0xcc, ms(5000), 'the root colour');
  return session;
}

async function screenshot(srv, session) {
  const r = await ok(srv, 'screenshot', { session });
  const png = decodePng(r.content.find((c) => c.type === 'image').data);
  png.redacted = r.sc.redacted;
  return png;
}

async function screenResource(srv, session) {
  const r = await srv.client.readResource({ uri: `glovebox://session/${session}/screen` });
  assert.equal(r.contents[0].mimeType, 'image/png');
  return decodePng(r.contents[0].blob);
}

test('a redact area is painted over in the screen resource exactly as in the screenshot tool', needs('desktop'), async (t) => {
  const srv = await serve(t, {
    allow: ['desktop_start', 'launch_app', 'session_stop'],
    redact: [{ x: 10, y: 20, width: 30, height: 40 }],
  });
  const session = await blueDesktop(srv);
  const tool = await screenshot(srv, session);
  const resource = await screenResource(srv, session);
  assert.equal(tool.redacted, 1);
  for (const png of [tool, resource]) {
    assert.deepEqual(pixel(png, 10, 20), GREY);
    assert.deepEqual(pixel(png, 39, 59), GREY);
    assert.deepEqual(pixel(png, 40, 60), ROOT);
    assert.deepEqual(pixel(png, 9, 20), ROOT);
  }
  assert.deepEqual([resource.width, resource.height], [tool.width, tool.height]);
  await ok(srv, 'session_stop', { session });
  await srv.close();
});

test('a policy reload between calls changes the areas the next screenshot and screen read paint over', needs('desktop'), async (t) => {
  const allow = ['desktop_start', 'launch_app', 'session_stop'];
  const a = { x: 200, y: 100, width: 20, height: 20 };
  const b = { x: 250, y: 150, width: 20, height: 20 };
  const srv = await serve(t, { allow, redact: [a] });
  const session = await blueDesktop(srv);
  let png = await screenshot(srv, session);
  assert.deepEqual(pixel(png, 205, 105), GREY);
  assert.deepEqual(pixel(png, 255, 155), ROOT);

  // Losing area a widens the policy: it takes effect once a person applies it.
  await reload(srv, { allow, redact: [b] }, (p) => p.redact.length === 1 && p.redact[0].x === b.x);
  for (png of [await screenshot(srv, session), await screenResource(srv, session)]) {
    assert.deepEqual(pixel(png, 205, 105), ROOT, 'area a is no longer painted');
    assert.deepEqual(pixel(png, 255, 155), GREY, 'area b is');
  }
  await ok(srv, 'session_stop', { session });
  await srv.close();
});

test('windows blocked by a reloaded policy refuse the next input with the same message, and take it again once unblocked', needs('desktop'), async (t) => {
  const allow = ['desktop_start', 'launch_app', 'session_stop', 'type_text', 'press_key', 'click'];
  const srv = await serve(t, { allow });
  const session = (await ok(srv, 'desktop_start', {})).sc.id;
  await ok(srv, 'launch_app', { session, command: ['zenity', '--entry', '--title', 'Secret Vault', '--text', 'Master key'] });
  await ok(srv, 'wait_for', { session, text: 'Master key', timeout_ms: ms(15000) });
  const entry = (await ok(srv, 'snapshot', { session })).sc.elements.find((e) => e.role === 'text');
  await ok(srv, 'type_text', { session, ref: entry.ref, text: 'abc' });

  // Blocking a window narrows the policy: it applies at once.
  await reload(srv, { allow, rules: { input: { blocked_windows: ['*Vault*'] } } }, (p) => p.rules?.input?.blocked_windows);
  const blocked = /^Denied by policy: input to the window "Secret Vault" is blocked \(it matches "\*Vault\*" in rules\.input\.blocked_windows\)$/;
  for (const [name, args] of [
    ['type_text', { session, text: 'def' }],
    ['press_key', { session, window: 'Vault', key: 'BackSpace' }],
    ['click', { session, ref: entry.ref }],
    ['click', { session, x: entry.bounds.x + 5, y: entry.bounds.y + 5 }],
  ]) {
    const r = await call(srv, name, args);
    assert.ok(r.isError, `${name} is refused`);
    assert.match(r.text, blocked, name);
  }
  assert.equal((await ok(srv, 'read_text', { session, ref: entry.ref })).sc.text, 'abc', 'nothing reached the window');

  // Unblocking widens: once applied, input reaches the window again.
  await reload(srv, { allow }, (p) => !p.rules?.input);
  await ok(srv, 'type_text', { session, ref: entry.ref, text: 'def' });
  // Focusing the entry selects its text (GTK), so what is typed replaces it.
  await until(async () => (await ok(srv, 'read_text', { session, ref: entry.ref })).sc.text === 'def', ms(5000), 'the typed text');
  await ok(srv, 'session_stop', { session });
  await srv.close();
});
