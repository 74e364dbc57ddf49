// Resource reads show what tools show, so they pass the same permission gate
// as those tools (the text view as read_text, the screen image as
// screenshot) and are recorded in the audit log like calls.
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { RawServer, assertMcpError, connectClient, modernParams, needs, opts, runCli } from '../lib/server.mjs';

function home(t) {
  const dir = mkdtempSync(join(tmpdir(), 'gb-res-policy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, env: { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), GLOVEBOX_ALLOW_ALL: '0' }, db: join(dir, 'data', 'glovebox', 'audit.db') };
}

async function sqlite(db, query) {
  const r = await runCli(['-readonly', '-json', db, query], { command: '/usr/bin/sqlite3' });
  assert.equal(r.code, 0, `sqlite3 failed: ${r.stderr}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : [];
}

async function startCat(srv) {
  const r = await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['bash', '-c', 'echo TOP-SECRET-SCREEN; exec cat'] } });
  assert.ok(!r.isError, JSON.stringify(r.content));
  const id = r.structuredContent.id;
  const w = await srv.client.callTool({ name: 'wait_for', arguments: { session: id, text: 'TOP-SECRET-SCREEN', timeout_ms: 10000 } });
  assert.ok(!w.isError, JSON.stringify(w.content));
  return id;
}

test('with read_text and screenshot denied, the text and screen resources are refused and audited', needs('terminal', opts()), async (t) => {
  const h = home(t);
  const policy = join(h.dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['terminal_start', 'wait_for', 'status'], deny: ['read_text', 'screenshot', 'snapshot'] }));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: h.env });
  const id = await startCat(srv);

  for (const [view, tool] of [['text', 'read_text'], ['screen', 'screenshot']]) {
    const uri = `glovebox://session/${id}/${view}`;
    const err = await assertMcpError(srv.client.readResource({ uri }), -32003);
    assert.match(err.message, new RegExp(`takes the permission of ${tool}.*[Dd]enied`));
    assert.ok(!err.message.includes('TOP-SECRET'));
  }
  await srv.close();

  const rows = await sqlite(h.db, "SELECT tool, session, arguments, decision, outcome, error, notes FROM calls WHERE tool = 'resources/read' ORDER BY id");
  assert.equal(rows.length, 2);
  assert.deepEqual(JSON.parse(rows[0].arguments), { uri: `glovebox://session/${id}/text` });
  assert.equal(rows[0].session, id);
  assert.equal(rows[0].decision, 'denied');
  assert.equal(rows[0].outcome, 'error');
  assert.equal(JSON.parse(rows[0].notes).permission, 'read_text');
  assert.equal(JSON.parse(rows[1].notes).permission, 'screenshot');
});

test('an allowed resource read returns the contents and is audited too', needs('terminal', opts()), async (t) => {
  const h = home(t);
  const policy = join(h.dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['terminal_start', 'wait_for', 'read_text', 'screenshot', 'status'] }));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: h.env });
  const id = await startCat(srv);
  const r = await srv.client.readResource({ uri: `glovebox://session/${id}/text` });
  assert.match(r.contents[0].text, /TOP-SECRET-SCREEN/);
  await srv.close();
  const rows = await sqlite(h.db, "SELECT session, decision, outcome FROM calls WHERE tool = 'resources/read'");
  assert.deepEqual(rows, [{ session: id, decision: 'allowed', outcome: 'ok' }]);
});

test('in assist mode a read that needs confirmation is refused, pointing at the tool that can ask', needs('terminal', opts()), async (t) => {
  const h = home(t);
  const policy = join(h.dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['terminal_start', 'wait_for', 'read_text', 'status'], confirm: ['read_text'] }));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: h.env });
  const id = await startCat(srv);
  const err = await assertMcpError(srv.client.readResource({ uri: `glovebox://session/${id}/text` }), -32003);
  assert.match(err.message, /needs a person's confirmation.*call read_text instead/);
  await srv.close();
  const rows = await sqlite(h.db, "SELECT decision FROM calls WHERE tool = 'resources/read'");
  assert.deepEqual(rows, [{ decision: 'needs_confirmation' }]);
});

// The testing build's watched resource shows what fixture_watched_text
// shows, so hearing that it changed takes that tool's permission.
const WATCHED = 'test://watched-resource';
const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

test('a client that may not read a resource is refused resources/subscribe to it', opts(), async (t) => {
  const h = home(t);
  const policy = join(h.dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['fixture_touch_resource', 'status'], deny: ['fixture_watched_text'] }));
  const srv = await connectClient(t, { args: ['--policy', policy], env: h.env });
  await assertMcpError(srv.client.readResource({ uri: WATCHED }), -32003);
  const err = await assertMcpError(srv.client.subscribeResource({ uri: WATCHED }), -32003);
  assert.match(err.message, /reading test:\/\/watched-resource is not allowed, so neither is hearing about its changes/);
  await srv.close();
});

test('subscriptions/listen carries a resource\'s updates only while the policy lets the client read it', opts(), async (t) => {
  const h = home(t);
  const policy = join(h.dir, 'policy.json');
  const writePolicy = (doc) => {
    writeFileSync(`${policy}.new`, JSON.stringify(doc));
    renameSync(`${policy}.new`, policy);
  };
  writePolicy({ allow: ['fixture_touch_resource', 'fixture_watched_text', 'status'] });
  const s = RawServer.start(t, { args: ['--policy', policy], env: h.env });
  const isNote = (method, id) => (m) => m.json?.method === method && m.json.params?._meta?.[SUB_ID] === id;
  const listen = async (id) => {
    await s.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: modernParams({ notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED] } }) });
    return (await s.take(isNote('notifications/subscriptions/acknowledged', id), { what: `the acknowledgement of ${id}` })).json.params.notifications;
  };
  const touch = (id) => s.request(id, 'tools/call', modernParams({ name: 'fixture_touch_resource', arguments: {} }));
  const updatesFor = (id) => s.messages.filter(isNote('notifications/resources/updated', id));

  // Allowed: acknowledged, and the update is sent before the answer to the
  // call that caused it (one stdout, in order), so after that answer every
  // update there was to hear has arrived.
  assert.deepEqual(await listen('L1'), { toolsListChanged: true, resourceSubscriptions: [WATCHED] });
  assert.ok((await touch('T1')).result);
  const answer1 = s.messages.findIndex((m) => m.json?.id === 'T1');
  const updates1 = updatesFor('L1');
  assert.equal(updates1.length, 1);
  assert.ok(s.messages.indexOf(updates1[0]) < answer1, 'the update comes before the answer');

  // The policy narrows (applied at once): the open listen stops carrying it.
  writePolicy({ allow: ['fixture_touch_resource', 'status'], deny: ['fixture_watched_text'] });
  await s.take(isNote('notifications/tools/list_changed', 'L1'), { what: 'the narrowed tool list' });
  assert.ok((await touch('T2')).result);
  assert.equal(updatesFor('L1').length, 1, 'no update about a resource the client may no longer read');

  // A listen opened now is told the resource is not among what it honours.
  assert.deepEqual(await listen('L2'), { toolsListChanged: true, resourceSubscriptions: [] });
  assert.ok((await touch('T3')).result);
  assert.deepEqual([updatesFor('L1').length, updatesFor('L2').length], [1, 0]);
  await s.close();
});
