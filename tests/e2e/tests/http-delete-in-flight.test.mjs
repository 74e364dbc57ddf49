// An MCP session ended (HTTP DELETE) while calls are in flight: every call
// is stopped once, the server serves on and exits cleanly (under ASan: no
// report). The teardown loop that used to walk freed calls is also covered
// deterministically by tests/unit/test_conn_teardown.c.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { connectHttpClient, startHttp } from '../lib/http.mjs';
import { builtKinds, deadline, ms } from '../lib/server.mjs';

test('DELETE of an MCP session with slow calls in flight: the server serves on and exits cleanly', async (t) => {
  const srv = await startHttp(t);
  const { client, transport } = await connectHttpClient(srv.url);
  // A wait on a terminal (a call with a cancel hook) when the build has
  // terminals; worker-pool calls in every build.
  const terminals = builtKinds().has('terminal');
  const term = terminals ? await client.callTool({ name: 'terminal_start', arguments: { command: ['cat'] } }) : null;
  const session = term?.structuredContent.id;
  const inFlight = [];
  for (let i = 0; i < 3; i++) {
    if (terminals) inFlight.push(client.callTool({ name: 'wait_for', arguments: { session, text: `never-${i}`, timeout_ms: 60000 } }).catch((e) => e));
    inFlight.push(client.callTool({ name: 'fixture_sleep', arguments: { ms: 60000, steps: 60 } }).catch((e) => e));
  }
  // Every call has reached the server once a later request has been answered.
  await client.callTool({ name: 'session_list', arguments: {} });
  const sid = transport.sessionId;
  const del = await fetch(srv.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
  assert.equal(del.status, 200);
  // The calls end (unanswered: their session is gone) rather than hang.
  await client.close();
  await deadline(Promise.all(inFlight), ms(10000), 'the calls of the ended session to settle');
  // Another client is served.
  const other = await connectHttpClient(srv.url);
  const list = await other.client.listTools();
  assert.ok(list.tools.length > 5);
  await other.client.close();
  await srv.stop();
});
