// The REST API for orchestrators (/v1, docs/rest.md) with plain fetch:
// sessions started, kept alive and ended; tool calls with correlation ids
// (headers, results, audit rows, log lines); progress over SSE and a client
// that hangs up cancelling its call; every refusal as an HTTP status with
// {error: {code, message}}; the session table across a restart; the OpenAPI
// document; one server for /mcp and /v1.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { Validator } from '@seriousme/openapi-schema-validator';

import { connectHttpClient, startHttp } from '../lib/http.mjs';
import { api, assertRefused, callTool, parseEvents, readEvents, startSession } from '../lib/rest.mjs';
import { ms, needs, runCli, sleep, textOf } from '../lib/server.mjs';
import { desktopOpts, terminalOpts, topts } from '../lib/terminal.mjs';

function dataDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'gb-rest-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A server with its own data directory (audit.db, sessions.db). */
async function restServer(t, { args = [], env = {}, dir = dataDir(t) } = {}) {
  const srv = await startHttp(t, { args: ['--data-dir', dir, ...args], env: { GLOVEBOX_LOG: 'info', ...env } });
  srv.dir = dir;
  return srv;
}

/** Audit rows (glovebox audit --json) once pred(rows) holds. */
async function auditRowsWhen(dir, pred, what) {
  let rows = [];
  for (const until = Date.now() + ms(15000); Date.now() < until; await sleep(100)) {
    const r = await runCli(['audit', '--json', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    rows = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    if (pred(rows)) return rows;
  }
  assert.fail(`timed out waiting for ${what}; audit rows: ${JSON.stringify(rows).slice(0, 2000)}`);
}

const CAT = { command: ['cat'] };

describe('sessions over /v1', () => {
  test('a terminal session: start, list, get, call its tools, delete; later calls are 410', terminalOpts(), async (t) => {
    const srv = await restServer(t);
    const s = await startSession(srv.base, { kind: 'terminal', arguments: CAT, name: 'orch-cat', idle_s: 600 });
    assert.match(s.id, /^terminal-\d+$/);
    assert.equal(s.kind, 'terminal');
    assert.equal(s.name, 'orch-cat');
    assert.equal(s.state, 'live');
    assert.equal(s.idle_s, 600);
    assert.equal(s.front_door, 'rest');
    assert.ok(Date.parse(s.created) > 0 && Date.parse(s.last_activity) > 0, JSON.stringify(s));

    const list = await api(srv.base, 'GET', '/v1/sessions');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.json.sessions.map((x) => x.id),
      [s.id],
    );
    const one = await api(srv.base, 'GET', `/v1/sessions/${s.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.json.id, s.id);

    const typed = await callTool(srv.base, s.id, 'type_text', { text: 'hello rest\n' });
    assert.equal(typed.status, 200, typed.text);
    assert.equal(typed.json.status, 'succeeded');
    const waited = await callTool(srv.base, s.id, 'wait_for', { text: 'hello rest', timeout_ms: ms(10000) });
    assert.equal(waited.json.result.matched, true, waited.text);
    const read = await callTool(srv.base, s.id, 'read_text');
    assert.equal(read.status, 200);
    assert.equal(read.json.result.session, s.id);
    assert.match(read.json.result.text, /hello rest/);

    const kept = await api(srv.base, 'POST', `/v1/sessions/${s.id}/keepalive`);
    assert.equal(kept.status, 200);
    assert.equal(kept.json.id, s.id);

    const del = await api(srv.base, 'DELETE', `/v1/sessions/${s.id}`);
    assert.equal(del.status, 204);
    let after;
    for (const until = Date.now() + ms(10000); Date.now() < until; await sleep(50)) {
      after = await callTool(srv.base, s.id, 'read_text');
      if (after.status !== 200) break;
    }
    assertRefused(after, 410, 'session_expired', new RegExp(`${s.id} has ended`));
    assertRefused(await api(srv.base, 'POST', `/v1/sessions/${s.id}/keepalive`), 410, 'session_expired');

    // Calls are refused from the DELETE on; the list shows it "stopping"
    // until the program has gone.
    let live;
    for (const until = Date.now() + ms(10000); Date.now() < until; await sleep(50)) {
      live = await api(srv.base, 'GET', '/v1/sessions');
      if (!live.json.sessions.length) break;
      assert.deepEqual(live.json.sessions.map((x) => x.state), ['stopping']);
    }
    assert.deepEqual(live.json.sessions, []);
    const all = await api(srv.base, 'GET', '/v1/sessions?state=all');
    const ended = all.json.sessions.find((x) => x.id === s.id);
    assert.equal(ended?.state, 'ended', all.text);
    assert.match(ended.end_reason, /DELETE/);
    const gone = await api(srv.base, 'GET', `/v1/sessions/${s.id}`);
    assert.equal(gone.status, 200);
    assert.equal(gone.json.state, 'ended');
    await srv.stop();
  });

  test('a desktop session: start, screenshot as an image with its mime type, delete', desktopOpts(), async (t) => {
    const srv = await restServer(t);
    const s = await startSession(srv.base, { kind: 'desktop', arguments: { width: 320, height: 240 } });
    assert.match(s.id, /^desktop-\d+$/);
    assert.match(s.display, /^:\d+$/);
    const shot = await callTool(srv.base, s.id, 'screenshot', { format: 'png' });
    assert.equal(shot.status, 200, shot.text.slice(0, 500));
    assert.equal(shot.json.status, 'succeeded');
    const img = shot.json.content.find((c) => c.type === 'image');
    assert.equal(img.mimeType, 'image/png');
    assert.equal(Buffer.from(img.data, 'base64').subarray(1, 4).toString(), 'PNG');
    const windows = await callTool(srv.base, s.id, 'window_list');
    assert.equal(windows.status, 200, windows.text);
    assert.equal((await api(srv.base, 'DELETE', `/v1/sessions/${s.id}`)).status, 204);
    await srv.stop();
  });

  test('idle_s ends a forgotten session (its events say expired); keepalive holds it', terminalOpts(), async (t) => {
    const srv = await restServer(t);
    const kept = await startSession(srv.base, { kind: 'terminal', arguments: CAT, idle_s: 2 });
    const idle = await startSession(srv.base, { kind: 'terminal', arguments: CAT, idle_s: 1 });
    const res = await fetch(`${srv.base}/v1/sessions/${idle.id}/events`, { headers: { accept: 'text/event-stream' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /text\/event-stream/);
    const keeping = (async () => {
      for (let i = 0; i < 8; i++) {
        const r = await api(srv.base, 'POST', `/v1/sessions/${kept.id}/keepalive`);
        assert.equal(r.status, 200, `keepalive ${i}: ${r.text}`);
        await sleep(500);
      }
    })();
    const { events, done } = await readEvents(res, () => false, ms(20000));
    assert.equal(done, true, 'the stream ends with the session');
    assert.deepEqual(
      events.map((e) => e.event),
      ['state', 'expired'],
    );
    assert.equal(events[1].data.session, idle.id);
    assert.match(events[1].data.payload.end_reason, /^idle_timeout/);
    assertRefused(await callTool(srv.base, idle.id, 'read_text'), 410, 'session_expired', /idle_timeout/);
    await keeping;
    const still = await callTool(srv.base, kept.id, 'read_text');
    assert.equal(still.status, 200, 'the session kept alive is still there');
    // A call running longer than idle_s is activity: the session stays.
    const busy = await startSession(srv.base, { kind: 'terminal', arguments: CAT, idle_s: 1 });
    const long = await callTool(srv.base, busy.id, 'wait_for', { text: 'never printed', timeout_ms: 3000 });
    assert.equal(long.status, 200, long.text);
    assert.equal(long.json.status, 'succeeded', long.text);
    assert.equal(long.json.result.reason, 'timeout');
    assert.equal((await callTool(srv.base, busy.id, 'read_text')).status, 200, 'still live after a 3 s call');
    await srv.stop();
  });
});

test('--session-idle is the default idle_s, also of a session started by a start tool over /v1', terminalOpts(), async (t) => {
  const srv = await restServer(t, { args: ['--session-idle', '1'] });
  const first = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
  assert.equal(first.idle_s, 1);
  const side = await callTool(srv.base, first.id, 'terminal_start', { ...CAT, name: 'side' });
  assert.equal(side.status, 200, side.text);
  const sideId = side.json.result.id;
  for (const id of [first.id, sideId]) {
    let r;
    for (const until = Date.now() + ms(15000); Date.now() < until; await sleep(200)) {
      r = await api(srv.base, 'GET', `/v1/sessions/${id}`);
      if (r.json?.state === 'ended') break;
    }
    assert.equal(r.json.state, 'ended', `${id} ends when idle: ${r.text}`);
    assert.match(r.json.end_reason, /^idle_timeout: no call for 1 s/);
  }
  await srv.stop();
});

describe('tool calls over /v1', () => {
  test('correlation ids: given in a header or the body, or made; echoed in header, result, audit row and log', terminalOpts(), async (t) => {
    const srv = await restServer(t);
    const s = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
    const byHeader = await callTool(srv.base, s.id, 'read_text', {}, {}, { 'x-correlation-id': 'job-7.step:1' });
    assert.equal(byHeader.headers.get('x-correlation-id'), 'job-7.step:1');
    assert.equal(byHeader.json.correlation_id, 'job-7.step:1');
    const byBody = await callTool(srv.base, s.id, 'read_text', {}, { correlation_id: 'body-cid-2' });
    assert.equal(byBody.headers.get('x-correlation-id'), 'body-cid-2');
    assert.equal(byBody.json.correlation_id, 'body-cid-2');
    const made = await callTool(srv.base, s.id, 'read_text');
    assert.ok(made.json.correlation_id.length > 8);
    assert.equal(made.headers.get('x-correlation-id'), made.json.correlation_id);
    const made2 = await callTool(srv.base, s.id, 'read_text');
    assert.notEqual(made2.json.correlation_id, made.json.correlation_id);
    // Failed calls carry theirs too.
    const failed = await callTool(srv.base, s.id, 'press_key', { key: 'no-such-key' }, { correlation_id: 'fails-3' });
    assert.equal(failed.json.correlation_id, 'fails-3', failed.text);

    const rows = await auditRowsWhen(srv.dir, (rs) => rs.some((r) => r.notes?.correlation_id === 'body-cid-2'), 'the audit row of body-cid-2');
    const row = rows.find((r) => r.notes?.correlation_id === 'job-7.step:1');
    assert.equal(row.tool, 'read_text');
    assert.equal(row.session, s.id);
    assert.equal(row.client.transport, 'rest', 'the front door');
    assert.equal(row.outcome, 'ok');
    const text = await runCli(['audit', '--data-dir', srv.dir, '--tool', 'read_text']);
    assert.match(text.stdout, /read_text  allowed  ok .* via rest from 127\.0\.0\.1  correlation_id=job-7\.step:1  /);
    assert.match(srv.stderr(), /\[job-7\.step:1\] read_text terminal-\d+ from 127\.0\.0\.1/);
    assert.match(srv.stderr(), /\[body-cid-2\] read_text terminal-\d+: 200/);
    await srv.stop();
  });

  test('SSE: started, then progress, then exactly one completed or failed, and the stream closes', terminalOpts(), async (t) => {
    const srv = await restServer(t);
    const s = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
    const sseCall = async (tool, args, cid) => {
      const res = await fetch(`${srv.base}/v1/sessions/${s.id}/tools/${tool}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-correlation-id': cid },
        body: JSON.stringify({ arguments: args }),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-correlation-id'), cid);
      const events = parseEvents(await res.text()); // the server closes it
      assert.equal(events[0].event, 'started');
      const ends = events.filter((e) => e.event === 'completed' || e.event === 'failed');
      assert.equal(ends.length, 1, JSON.stringify(events));
      assert.equal(events.at(-1), ends[0]);
      for (const e of events.slice(1, -1)) assert.equal(e.event, 'progress');
      for (const e of events) {
        assert.equal(e.data.stage, e.event);
        assert.equal(e.data.correlation_id, cid);
        assert.equal(typeof e.data.payload, 'object');
      }
      return events;
    };
    const waitDone = sseCall('wait_for', { text: 'sse-ready', timeout_ms: ms(10000) }, 'sse-1');
    await sleep(100);
    await callTool(srv.base, s.id, 'type_text', { text: 'sse-ready\n' });
    const ok = await waitDone;
    assert.equal(ok.at(-1).event, 'completed');
    assert.equal(ok.at(-1).data.payload.result.matched, true);
    // A tool that reports progress (a fixture of glovebox-testing): 0, 50, 100 of 100.
    const prog = await sseCall('test_tool_with_progress', {}, 'sse-progress');
    assert.deepEqual(
      prog.map((e) => e.event),
      ['started', 'progress', 'progress', 'progress', 'completed'],
    );
    assert.deepEqual(
      prog.slice(1, 4).map((e) => [e.data.payload.progress, e.data.payload.total]),
      [
        [0, 100],
        [50, 100],
        [100, 100],
      ],
    );
    const bad = await sseCall('press_key', { key: 'no-such-key' }, 'sse-2');
    assert.equal(bad.at(-1).event, 'failed');
    assert.equal(bad.at(-1).data.payload.error.code, 'invalid_argument');
    await srv.stop();
  });

  test('a client that disconnects mid-call cancels it', terminalOpts(), async (t) => {
    const srv = await restServer(t);
    const s = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
    const ac = new AbortController();
    const res = await fetch(`${srv.base}/v1/sessions/${s.id}/tools/wait_for`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-correlation-id': 'leaving-1' },
      body: JSON.stringify({ arguments: { text: 'never printed', timeout_ms: 60000 } }),
      signal: ac.signal,
    });
    const { events } = await readEvents(res, (evs) => evs.some((e) => e.event === 'started'));
    assert.equal(events[0].event, 'started');
    ac.abort();
    const rows = await auditRowsWhen(srv.dir, (rs) => rs.some((r) => r.notes?.correlation_id === 'leaving-1'), 'the cancelled call in the audit log');
    const row = rows.find((r) => r.notes?.correlation_id === 'leaving-1');
    assert.equal(row.outcome, 'cancelled', JSON.stringify(row));
    assert.ok(row.duration_ms < 30000, 'it ended long before its timeout');
    assert.match(srv.stderr(), /\[leaving-1\] client 127\.0\.0\.1\S* left: wait_for cancelled/);
    assert.equal((await callTool(srv.base, s.id, 'read_text')).status, 200, 'the server serves on');
    await srv.stop();
  });

  test('32 concurrent clients × 100 calls: every call answered once, with its own correlation id', terminalOpts({ timeout: ms(180000) }), async (t) => {
    const srv = await restServer(t, { args: ['--rate-limit', '0'] });
    const s = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
    const seen = new Set();
    await Promise.all(
      Array.from({ length: 32 }, async (_, c) => {
        for (let i = 0; i < 100; i++) {
          const cid = `c${c}-${i}`;
          const r = await callTool(srv.base, s.id, 'read_text', {}, { correlation_id: cid });
          assert.equal(r.status, 200, r.text);
          assert.equal(r.json.status, 'succeeded');
          assert.equal(r.json.correlation_id, cid);
          assert.equal(r.headers.get('x-correlation-id'), cid);
          assert.ok(!seen.has(cid));
          seen.add(cid);
        }
      }),
    );
    assert.equal(seen.size, 3200);
    const rows = await auditRowsWhen(
      srv.dir,
      (rs) => rs.filter((r) => /^c\d+-\d+$/.test(r.notes?.correlation_id ?? '')).length >= 3200,
      'all 3200 calls in the audit log',
    );
    const cids = new Set(rows.map((r) => r.notes?.correlation_id).filter((c) => /^c\d+-\d+$/.test(c ?? '')));
    assert.equal(cids.size, 3200, 'each call is in the audit log once');
    await srv.stop();
  });
});

describe('refusals over /v1', () => {
  test('each refusal is an HTTP status with {error: {code, message}}', terminalOpts(), async (t) => {
    const srv = await restServer(t);
    const s = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
    const b = srv.base;
    assertRefused(await api(b, 'POST', '/v1/sessions', '{"kind": '), 400, 'invalid_argument', /not valid JSON/);
    assertRefused(await api(b, 'POST', '/v1/sessions', '[1]'), 400, 'invalid_argument', /JSON object/);
    assertRefused(await api(b, 'POST', '/v1/sessions', { kind: 'terminal', colour: 1 }), 400, 'invalid_argument', /^colour: unknown field/);
    assertRefused(await api(b, 'POST', '/v1/sessions', { kind: 'toaster' }), 400, 'invalid_argument', /^kind: expected one of .*terminal/);
    assertRefused(await api(b, 'POST', '/v1/sessions', {}), 400, 'invalid_argument', /^kind:/);
    assertRefused(await api(b, 'POST', '/v1/sessions', { kind: 'terminal', idle_s: 0 }), 400, 'invalid_argument', /^idle_s:/);
    assertRefused(await api(b, 'POST', '/v1/sessions', { kind: 'terminal', arguments: { cols: 'wide' } }), 400, 'invalid_argument', /cols/);
    assertRefused(await callTool(b, s.id, 'read_text', { bogus: 1 }), 400, 'invalid_argument', /"bogus"/);
    assertRefused(await callTool(b, s.id, 'read_text', {}, { correlation_id: 'has space' }), 400, 'invalid_argument', /^correlation_id:/);
    assertRefused(await callTool(b, s.id, 'read_text', { session: 'terminal-999' }), 400, 'invalid_argument', /^arguments\.session:/);
    assertRefused(await api(b, 'POST', `/v1/sessions/${s.id}/tools/read_text`, { arguments: [] }), 400, 'invalid_argument', /^arguments: expected an object/);
    assertRefused(await callTool(b, 'terminal-999', 'read_text'), 404, 'not_found', /no session terminal-999/);
    assertRefused(await api(b, 'GET', '/v1/sessions/terminal-999'), 404, 'not_found');
    assertRefused(await callTool(b, s.id, 'no_such_tool'), 404, 'not_found', /no tool no_such_tool/);
    assertRefused(await api(b, 'GET', '/v1/nothing-here'), 404, 'not_found');
    const wrong = await api(b, 'PUT', '/v1/sessions');
    assertRefused(wrong, 405, 'invalid_argument');
    assert.equal(wrong.headers.get('allow'), 'GET, POST');
    assertRefused(await api(b, 'GET', '/v1/sessions?state=dead'), 400, 'invalid_argument', /^state:/);
    assertRefused(await api(b, 'POST', '/v1/sessions', { kind: 'terminal' }, { origin: 'https://evil.example' }), 403, 'denied', /Origin/);
    // A path that is not UTF-8 is named in the message all the same (fuzz_http found the server aborting).
    const raw = await new Promise((resolve, reject) => {
      const sock = connect(srv.port, '127.0.0.1', () => sock.end(Buffer.concat([Buffer.from('GET /v1/'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')])));
      let text = '';
      sock.on('data', (d) => (text += d.toString('latin1')));
      sock.on('end', () => resolve(text));
      sock.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 404 /);
    const body = JSON.parse(Buffer.from(raw.slice(raw.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8'));
    assert.equal(body.error.code, 'not_found');
    assert.match(body.error.message, /^no such path: \/v1\/\uFFFD/);
    assert.equal((await api(b, 'GET', `/v1/sessions/${s.id}`)).status, 200, 'the server serves on');
    await srv.stop();
  });

  test('the policy refuses with 403 denied; a call needing confirmation is refused saying so', terminalOpts(), async (t) => {
    const dir = dataDir(t);
    const policy = join(dir, 'policy.json');
    writeFileSync(policy, JSON.stringify({ allow: ['terminal_start', 'read_text', 'type_text'], confirm: ['type_text'] }));
    const srv = await restServer(t, { dir, args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0' } });
    const s = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
    assertRefused(await callTool(srv.base, s.id, 'press_key', { key: 'Enter' }), 403, 'denied', /press_key/);
    const msg = assertRefused(await callTool(srv.base, s.id, 'type_text', { text: 'x' }), 403, 'denied', /^Confirmation required/);
    assert.match(msg, /no page of the live viewer that can approve is open/);
    const read = await callTool(srv.base, s.id, 'read_text');
    assert.equal(read.status, 200);
    assert.doesNotMatch(read.json.result.text, /x/, 'nothing was typed');
    await srv.stop();
  });

  test('the bearer token and the rate limit guard /v1 as they guard /mcp', topts(), async (t) => {
    const dir = dataDir(t);
    const token = 'rest-token-0123456789abcdef';
    writeFileSync(join(dir, 'token'), `${token}\n`);
    const srv = await restServer(t, { dir, args: ['--token-file', join(dir, 'token'), '--rate-limit', '5'] });
    assertRefused(await api(srv.base, 'GET', '/v1/sessions'), 401, 'denied');
    assertRefused(await api(srv.base, 'GET', '/v1/sessions', undefined, { authorization: 'Bearer wrong-token-0123456789' }), 401, 'denied');
    const auth = { authorization: `Bearer ${token}` };
    const statuses = [];
    for (let i = 0; i < 30; i++) statuses.push((await api(srv.base, 'GET', '/v1/sessions', undefined, auth)).status);
    assert.equal(statuses[0], 200);
    assert.ok(statuses.includes(429), `30 requests at once over a limit of 5/s: ${statuses}`);
    for (let i = 0; ; i++) {
      const r = await api(srv.base, 'GET', '/v1/sessions', undefined, auth);
      if (r.status === 429) {
        assertRefused(r, 429, 'denied');
        break;
      }
      assert.ok(i < 50, 'the rate limit answers 429');
    }
    await srv.stop();
  });
});

/** One HTTPS request trusting ca; resolves { status, headers, text } or,
 * with onData, hands each chunk to it and returns the request (to destroy). */
function httpsCall(port, ca, method, path, body, headers = {}, onData) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, ca, headers: { 'content-type': 'application/json', ...headers } }, (r) => {
      let text = '';
      r.on('data', (d) => {
        text += d;
        if (onData) onData(text, req);
      });
      r.on('end', () => resolve({ status: r.statusCode, headers: r.headers, text }));
      r.on('error', () => resolve({ status: r.statusCode, headers: r.headers, text }));
    });
    req.on('error', (e) => (onData ? resolve({ aborted: true }) : reject(e)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('/v1 over HTTPS', () => {
  test('sessions, correlation ids, SSE and a hang-up that cancels, through TLS', terminalOpts(), async (t) => {
    const dir = dataDir(t);
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const ca = readFileSync(cert);
    const srv = await restServer(t, { dir, args: ['--tls-cert', cert, '--tls-key', key] });
    const created = await httpsCall(srv.port, ca, 'POST', '/v1/sessions', { kind: 'terminal', arguments: CAT });
    assert.equal(created.status, 201, created.text);
    const id = JSON.parse(created.text).id;
    assert.equal(created.headers.location, `/v1/sessions/${id}`);
    const read = await httpsCall(srv.port, ca, 'POST', `/v1/sessions/${id}/tools/read_text`, {}, { 'x-correlation-id': 'tls-1' });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.headers['x-correlation-id'], 'tls-1');
    assert.equal(JSON.parse(read.text).correlation_id, 'tls-1');
    const sse = await httpsCall(srv.port, ca, 'POST', `/v1/sessions/${id}/tools/test_tool_with_progress`, {}, { accept: 'text/event-stream' });
    assert.deepEqual(
      parseEvents(sse.text).map((e) => e.event),
      ['started', 'progress', 'progress', 'progress', 'completed'],
    );
    await httpsCall(srv.port, ca, 'POST', `/v1/sessions/${id}/tools/wait_for`, { arguments: { text: 'never printed', timeout_ms: 60000 } }, { accept: 'text/event-stream', 'x-correlation-id': 'tls-leaves' }, (text, req) => {
      if (text.includes('event: started')) req.destroy();
    });
    const rows = await auditRowsWhen(dir, (rs) => rs.some((r) => r.notes?.correlation_id === 'tls-leaves'), 'the cancelled call');
    assert.equal(rows.find((r) => r.notes?.correlation_id === 'tls-leaves').outcome, 'cancelled');
    assert.equal((await httpsCall(srv.port, ca, 'DELETE', `/v1/sessions/${id}`)).status, 204);
    await srv.stop();
  });
});

describe('the session table', () => {
  test('a restarted server lists the previous run’s sessions as ended (server_exit)', terminalOpts(), async (t) => {
    const dir = dataDir(t);
    const first = await restServer(t, { dir });
    const kept = await startSession(first.base, { kind: 'terminal', arguments: CAT, name: 'before-stop' });
    await first.stop();
    const second = await restServer(t, { dir });
    const crashed = await startSession(second.base, { kind: 'terminal', arguments: CAT, name: 'before-kill' });
    // Wait until its row is on disk, then kill the server without a chance to clean up.
    const db = join(dir, 'sessions.db');
    for (const until = Date.now() + ms(10000); ; await sleep(50)) {
      let out = '';
      try {
        out = execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, "SELECT state FROM sessions WHERE name = 'before-kill'"], { encoding: 'utf8' });
      } catch {
        // the server is writing: look again
      }
      if (out.trim() === 'live') break;
      assert.ok(Date.now() < until, 'the live session reaches the table');
    }
    second.child.kill('SIGKILL');
    await new Promise((r) => second.child.once('exit', r));
    const third = await restServer(t, { dir });
    assert.deepEqual((await api(third.base, 'GET', '/v1/sessions')).json.sessions, [], 'nothing live');
    const all = (await api(third.base, 'GET', '/v1/sessions?state=all')).json.sessions;
    for (const [name, s] of [
      ['before-stop', kept],
      ['before-kill', crashed],
    ]) {
      const row = all.find((x) => x.name === name);
      assert.ok(row, `${name} is listed: ${JSON.stringify(all)}`);
      assert.equal(row.id, s.id);
      assert.equal(row.state, 'ended');
      assert.equal(row.end_reason, 'server_exit');
      assert.ok(Date.parse(row.ended) >= Date.parse(row.created));
    }
    await third.stop();
  });
});

describe('last_activity', () => {
  test('a call moves it: GET shows it at once, and a killed server’s next run lists it with ?state=all', terminalOpts(), async (t) => {
    const dir = dataDir(t);
    const first = await restServer(t, { dir });
    const s = await startSession(first.base, { kind: 'terminal', arguments: CAT, name: 'active' });
    const before = Date.parse((await api(first.base, 'GET', `/v1/sessions/${s.id}`)).json.last_activity);
    await sleep(50); // the clock moves past the start, to the millisecond
    const call = await callTool(first.base, s.id, 'read_text');
    assert.equal(call.status, 200, call.text);
    const got = (await api(first.base, 'GET', `/v1/sessions/${s.id}`)).json;
    const after = Date.parse(got.last_activity);
    assert.ok(after > before, `a call moves last_activity: ${before} then ${got.last_activity}`);
    // Calls do not write the table each; the time is on disk within seconds.
    const db = join(dir, 'sessions.db');
    for (const until = Date.now() + ms(20000); ; await sleep(100)) {
      let out = '';
      try {
        out = execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, `SELECT last_activity_ms FROM sessions WHERE name = 'active'`], { encoding: 'utf8' });
      } catch {
        // the server is writing: look again
      }
      if (Number(out.trim()) === after) break;
      assert.ok(Date.now() < until, `last_activity reaches the table (it has ${out.trim()}, GET said ${after})`);
    }
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const second = await restServer(t, { dir });
    const row = (await api(second.base, 'GET', '/v1/sessions?state=all')).json.sessions.find((x) => x.name === 'active');
    assert.ok(row, 'the killed run’s session is listed');
    assert.equal(row.state, 'ended');
    assert.equal(row.end_reason, 'server_exit');
    assert.equal(row.last_activity, got.last_activity);
    await second.stop();
  });
});

describe('one server for /mcp and /v1', () => {
  test('a shared session started over /v1 is driven over /mcp; a private one is not reachable there', terminalOpts(), async (t) => {
    const srv = await restServer(t);
    const shared = await startSession(srv.base, { kind: 'terminal', arguments: CAT, shared: true, name: 'for-agent' });
    const mine = await startSession(srv.base, { kind: 'terminal', arguments: CAT });
    assert.equal(shared.shared, true);
    const { client } = await connectHttpClient(srv.url);
    const listed = await client.callTool({ name: 'session_list', arguments: {} });
    const ids = listed.structuredContent.sessions.map((x) => x.id);
    assert.ok(ids.includes(shared.id), `the agent sees the shared session: ${ids}`);
    assert.ok(!ids.includes(mine.id), 'the private one stays private');
    const typed = await client.callTool({ name: 'type_text', arguments: { session: shared.id, text: 'from the agent\n' } });
    assert.ok(!typed.isError, textOf(typed));
    const refused = await client.callTool({ name: 'read_text', arguments: { session: mine.id } });
    assert.equal(refused.isError, true);
    const waited = await callTool(srv.base, shared.id, 'wait_for', { text: 'from the agent', timeout_ms: ms(10000) });
    assert.equal(waited.json.result.matched, true, waited.text);
    // A session the agent starts shared is reachable from /v1; a private one is not.
    const agentShared = await client.callTool({ name: 'terminal_start', arguments: { ...CAT, shared: true } });
    const agentOwn = await client.callTool({ name: 'terminal_start', arguments: CAT });
    assert.equal((await callTool(srv.base, agentShared.structuredContent.id, 'read_text')).status, 200);
    assertRefused(await callTool(srv.base, agentOwn.structuredContent.id, 'read_text'), 404, 'not_found');
    const rows = await auditRowsWhen(
      srv.dir,
      (rs) => rs.some((r) => r.tool === 'type_text' && r.client.transport === 'http') && rs.some((r) => r.tool === 'wait_for' && r.client.transport === 'rest'),
      'rows of both front doors',
    );
    assert.ok(rows.length >= 4);
    await client.close();
    await srv.stop();
  });

  test('/v1/openapi.json is valid OpenAPI 3.1 with one operation per tool of tools/list', needs('terminal', topts()), async (t) => {
    const srv = await restServer(t);
    const r = await api(srv.base, 'GET', '/v1/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.json.openapi, '3.1.0');
    const v = new Validator();
    const res = await v.validate(r.json);
    assert.equal(res.valid, true, JSON.stringify(res.errors, null, 1)?.slice(0, 3000));
    const { client } = await connectHttpClient(srv.url);
    const tools = (await client.listTools()).tools;
    for (const tool of tools) {
      const op = r.json.paths[`/v1/sessions/{id}/tools/${tool.name}`]?.post;
      assert.ok(op, `an operation for ${tool.name}`);
      const args = op.requestBody.content['application/json'].schema.properties.arguments;
      const want = Object.keys(tool.inputSchema.properties ?? {}).filter((k) => k !== 'session');
      assert.deepEqual(Object.keys(args.properties ?? {}), want, `${tool.name}: the arguments of its input schema, less session`);
      assert.deepEqual(args.required ?? [], (tool.inputSchema.required ?? []).filter((k) => k !== 'session'));
      assert.equal(op.description, tool.description);
    }
    assert.ok(r.json.paths['/v1/sessions'].post);
    assert.deepEqual(r.json.components.schemas.CreateSession.properties.kind.enum.includes('terminal'), true);
    await client.close();
    await srv.stop();
  });
});
