// Subscriptions on a session's resources through the official SDK client:
// glovebox://session/{id}/text and /screen tell subscribers when the screen
// changed (once per burst, never while it is still), and /events carries
// what happened to the session (its program's exit, its end).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { assertMcpError, connectClient, deadline, sleep } from '../lib/server.mjs';
import { PROMPT, ms, startServer, terminalOpts as topts } from '../lib/terminal.mjs';

const INTERVAL = 50;

/** Collects the URIs of notifications/resources/updated. */
function collect(srv) {
  const updates = [];
  srv.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
  return updates;
}

async function until(cond, what, timeoutMs = ms(5000)) {
  await deadline(
    (async () => {
      while (!cond()) await sleep(5);
    })(),
    timeoutMs,
    what,
  );
}

/** Waits until no update has arrived for quietMs. */
async function settle(updates, quietMs = ms(400)) {
  for (;;) {
    const n = updates.length;
    await sleep(quietMs);
    if (updates.length === n) return;
  }
}

test('the server says resources can be subscribed to', topts(), async (t) => {
  const srv = await startServer(t);
  assert.equal(srv.client.getServerCapabilities().resources?.subscribe, true);
});

test('a subscription on a terminal text fires after output and not while the screen is still', topts(), async (t) => {
  const srv = await startServer(t, { args: ['--subscribe-interval', String(INTERVAL)] });
  const s = await srv.bash({ cols: 60, rows: 10 });
  const uri = `glovebox://session/${s.id}/text`;
  const updates = collect(srv);
  assert.deepEqual(await srv.client.subscribeResource({ uri }), {});
  await settle(updates);
  updates.length = 0;

  // A still prompt: nothing to hear about.
  await sleep(ms(600));
  assert.deepEqual(updates, [], 'no update while the screen is still');

  await srv.type(s.id, 'echo sub-$((6*7))\n');
  await until(() => updates.includes(uri), `${uri} updated`);
  await srv.waitFor(s.id, { text: 'sub-42' });
  await settle(updates);
  // What the notification announced is there to read.
  const read = await srv.client.readResource({ uri });
  assert.match(read.contents[0].text, /^sub-42$/m);
  assert.ok(updates.every((u) => u === uri), `only the subscribed uri: ${updates}`);

  // Quiet again: no more notifications; and none after unsubscribing.
  updates.length = 0;
  await sleep(ms(400));
  assert.deepEqual(updates, []);
  await srv.client.unsubscribeResource({ uri });
  await srv.type(s.id, 'echo after\n');
  await srv.waitFor(s.id, { text: 'after' });
  await sleep(ms(300));
  assert.deepEqual(updates, [], 'no update after unsubscribing');
});

test('a burst of output is told at most once per interval', topts(), async (t) => {
  const srv = await startServer(t, { args: ['--subscribe-interval', '400'] });
  const s = await srv.bash({ cols: 60, rows: 10 });
  const uri = `glovebox://session/${s.id}/screen`;
  const updates = collect(srv);
  await srv.client.subscribeResource({ uri });
  await settle(updates, ms(600));
  updates.length = 0;
  // About 1 s of output, a line every 20 ms: at 400 ms apart at most, that
  // is a handful of notifications, not fifty.
  await srv.type(s.id, 'for i in $(seq 50); do echo line$i; sleep 0.02; done\n');
  await srv.waitFor(s.id, { text: 'line50' });
  await settle(updates, ms(600));
  assert.ok(updates.length >= 1, 'the output was told');
  assert.ok(updates.length <= 8, `${updates.length} notifications for one burst`);
});

test('the events resource tells of the program exit and the session end', topts(), async (t) => {
  const srv = await startServer(t, { args: ['--subscribe-interval', String(INTERVAL)] });
  const s = await srv.bash();
  const uri = `glovebox://session/${s.id}/events`;
  const listed = await srv.client.listResources();
  assert.ok(
    listed.resources.some((r) => r.uri === uri && r.mimeType === 'application/json'),
    JSON.stringify(listed.resources),
  );
  const before = JSON.parse((await srv.client.readResource({ uri })).contents[0].text);
  assert.deepEqual(before, { session: s.id, state: 'running', events: [] });

  const updates = collect(srv);
  await srv.client.subscribeResource({ uri });
  await srv.type(s.id, 'exit 3\n');
  await until(() => updates.includes(uri), `${uri} updated`);
  const doc = JSON.parse((await srv.client.readResource({ uri })).contents[0].text);
  assert.equal(doc.state, 'ended');
  const types = doc.events.map((e) => e.type);
  assert.deepEqual(types, ['program_exited', 'session_ended'], JSON.stringify(doc));
  assert.equal(doc.events[0].exit_status, 3);
  assert.equal(doc.events[1].reason, 'exited with status 3');
  assert.ok(doc.events[0].seq < doc.events[1].seq);
  assert.ok(Math.abs(doc.events[1].at_ms - Date.now()) < 60000, 'at_ms is wall-clock time');
});

test('a session view that does not exist cannot be subscribed to', topts(), async (t) => {
  const srv = await startServer(t);
  await srv.bash();
  await assert.rejects(srv.client.subscribeResource({ uri: 'glovebox://session/terminal-99/text' }), /terminal-99\/text names nothing this client can reach/);
  // The server keeps serving.
  assert.equal((await srv.readText(undefined)).text.includes(PROMPT.trim()), true);
});

test('the events and text resources pass the gate of the tools that show the same', topts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gb-sub-policy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['terminal_start', 'wait_for', 'read_text', 'status'], deny: ['window_list', 'terminal_run'] }));
  const env = { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), GLOVEBOX_ALLOW_ALL: '0' };
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env });
  const r = await srv.client.callTool({ name: 'terminal_start', arguments: { command: ['cat'] } });
  assert.ok(!r.isError, JSON.stringify(r.content));
  const id = r.structuredContent.id;
  const events = `glovebox://session/${id}/events`;
  const err = await assertMcpError(srv.client.readResource({ uri: events }), -32003);
  assert.match(err.message, /takes the permission of window_list/);
  await assertMcpError(srv.client.subscribeResource({ uri: events }), -32003);
  // read_text is allowed: its view may be read and watched.
  assert.deepEqual(await srv.client.subscribeResource({ uri: `glovebox://session/${id}/text` }), {});
  // terminal_run types: denied here, and type_text is not allowed either.
  const run = await srv.client.callTool({ name: 'terminal_run', arguments: { session: id, command: 'true' } });
  assert.equal(run.isError, true);
  await srv.close();
});
