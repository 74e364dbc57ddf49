// The audit log end to end: every tools/call lands in SQLite with who called,
// what, the policy's decision and the outcome; secrets never reach the disk;
// `glovebox audit` reads it back (filters, JSON lines, --follow); a locked
// database never stops the server and shows in status.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectHttpClient, startHttp } from '../lib/http.mjs';
import { binary, connectClient, deadline, ms, needs, opts, runCli, serverEnv, sleep } from '../lib/server.mjs';

/** A fresh home for one test: data (audit.db) and config (policy) dirs. */
function home(t) {
  const dir = mkdtempSync(join(tmpdir(), 'gb-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') };
  return { dir, env, db: join(dir, 'data', 'glovebox', 'audit.db') };
}

/** `glovebox audit --json ...` as parsed rows. */
async function auditRows(env, args = []) {
  const r = await runCli(['audit', '--json', ...args], { env });
  assert.equal(r.code, 0, `glovebox audit failed: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The sqlite3 shell's answer to one query, as JSON rows. */
async function sqlite(db, query) {
  const r = await runCli(['-readonly', '-json', db, query], { command: '/usr/bin/sqlite3' });
  assert.equal(r.code, 0, `sqlite3 failed: ${r.stderr}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : [];
}

async function call(srv, name, args) {
  const r = await srv.client.callTool({ name, arguments: args });
  return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join(''), structured: r.structuredContent };
}

async function auditStatus(srv) {
  return (await call(srv, 'status', {})).structured.audit;
}

/** Polls status until pred(audit) holds; returns that audit object. */
async function waitAudit(srv, pred, what) {
  const until = Date.now() + ms(10000);
  let last;
  while (Date.now() < until) {
    last = await auditStatus(srv);
    if (pred(last)) return last;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}; status.audit: ${JSON.stringify(last)}`);
}

test('every call is recorded: client, session, decision, outcome, duration; secrets are not', needs('terminal', opts()), async (t) => {
  const h = home(t);
  const policy = join(h.dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['terminal_*', 'type_text', 'read_text', 'status'], deny: ['press_key'] }));
  const env = { ...h.env, GLOVEBOX_ALLOW_ALL: '0' };
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env });

  const started = await call(srv, 'terminal_start', { command: ['cat'] });
  assert.ok(!started.isError, started.text);
  const session = started.structured.id;
  const typed = await call(srv, 'type_text', { session, text: 'hunter2-SECRET\n', secret: true });
  assert.ok(!typed.isError, `the terminal ignores secret: ${typed.text}`);
  const denied = await call(srv, 'press_key', { session, key: 'Enter' });
  assert.ok(denied.isError);
  const invalid = await call(srv, 'type_text', { session, text: 5 });
  assert.match(invalid.text, /Invalid arguments/);
  // An escape sequence in what the agent sent must not reach the reader's terminal.
  const failed = await call(srv, 'read_text', { session: 'no-such-\u001b[2J-\u009b31m-session' });
  assert.ok(failed.isError);

  const audit = await auditStatus(srv);
  assert.equal(audit.enabled, true);
  assert.equal(audit.path, h.db);
  assert.equal(audit.retention_days, 90);
  await srv.close(); // a clean shutdown writes everything queued

  const rows = await auditRows(h.env);
  assert.deepEqual(
    rows.map((r) => [r.tool, r.decision, r.outcome]),
    [
      ['terminal_start', 'allowed', 'ok'],
      ['type_text', 'allowed', 'ok'],
      ['press_key', 'denied', 'error'],
      ['type_text', 'invalid', 'error'],
      ['read_text', 'allowed', 'error'],
      ['status', 'allowed', 'ok'],
    ],
  );
  const [start, secret, press, bad, read] = rows;
  assert.deepEqual(start.client, { name: 'glovebox-e2e', version: '1.0.0', transport: 'stdio', remote: null, mcp_session: null });
  assert.equal(start.session, session, 'a new session is named from the result');
  assert.deepEqual(start.arguments, { command: ['cat'] });
  assert.equal(start.error, null);
  assert.ok(Number.isInteger(start.duration_ms) && start.duration_ms >= 0);
  assert.match(start.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Math.abs(Date.parse(start.time) - Date.now()) < 60000);
  assert.deepEqual(secret.arguments, { session, text: '[redacted]', secret: true });
  assert.equal(secret.session, session);
  assert.match(press.error, /Denied by policy.*deny/);
  assert.match(bad.error, /Invalid arguments for type_text/);
  assert.match(read.error, /no-such-\u001b\[2J-\u009b31m-session/, 'JSON keeps the text exact');

  // The same rows through the sqlite3 shell, and the secret nowhere in the
  // files (database, write-ahead log).
  const viaShell = await sqlite(h.db, "SELECT tool, decision, outcome, arguments FROM calls WHERE tool = 'type_text' ORDER BY id");
  assert.equal(viaShell.length, 2);
  assert.equal(JSON.parse(viaShell[0].arguments).text, '[redacted]');
  for (const f of [h.db, `${h.db}-wal`]) {
    if (existsSync(f)) assert.ok(!readFileSync(f).includes('hunter2'), `${f} holds the secret`);
  }

  // Lines for people, filtered by tool.
  const lines = await runCli(['audit', '--tool', 'type_*'], { env: h.env });
  assert.equal(lines.code, 0, lines.stderr);
  const out = lines.stdout.trim().split('\n');
  assert.equal(out.length, 2);
  assert.match(out[0], /type_text {2}allowed {2}ok {2}\d+ ms {2}session=terminal-\d+ {2}client=glovebox-e2e\/1\.0\.0 via stdio {2}\{.*"\[redacted\]"/);
  assert.match(out[1], /type_text {2}invalid {2}error .* error: Invalid arguments/);
  assert.ok(!lines.stdout.includes('hunter2'));

  const readLine = (await runCli(['audit', '--tool', 'read_text'], { env: h.env })).stdout;
  assert.ok(!/[\u001b\u009b]/.test(readLine), `control characters escaped: ${JSON.stringify(readLine)}`);
  assert.match(readLine, /no-such-\\x1b\[2J-\\u009b31m-session/);

  // --since: relative and absolute.
  assert.equal((await auditRows(h.env, ['--since', '1h'])).length, 6);
  assert.equal((await auditRows(h.env, ['--since', '2999-01-01T00:00'])).length, 0);
  assert.equal((await auditRows(h.env, ['--since', '2000-01-01T00:00:00Z', '--tool', 'status'])).length, 1);
});

test('glovebox audit: a missing log, bad options, and serve refusing a bad retention', opts(), async (t) => {
  const h = home(t);
  const missing = await runCli(['audit'], { env: h.env });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, new RegExp(`no audit log yet at ${h.db.replace(/[.]/g, '\\.')}`));
  const since = await runCli(['audit', '--since', 'yesterday'], { env: h.env });
  assert.equal(since.code, 2);
  assert.match(since.stderr, /--since expects/);
  assert.equal((await runCli(['audit', '--bogus'], { env: h.env })).code, 2);
  const retention = await runCli(['serve', '--audit-retention-days', '-1'], { env: h.env });
  assert.equal(retention.code, 2);
  assert.match(retention.stderr, /--audit-retention-days expects/);
});

test('--no-audit keeps no log and status says so', opts(), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { args: ['--no-audit'], env: h.env });
  const r = await call(srv, 'status', {});
  assert.deepEqual(r.structured.audit, { enabled: false });
  assert.match(r.text, /no audit log/);
  await srv.close();
  assert.ok(!existsSync(h.db));
});

test('--audit-db puts the log elsewhere; --follow prints a new call within a second', opts(), async (t) => {
  const h = home(t);
  const db = join(h.dir, 'elsewhere', 'calls.db');
  const srv = await connectClient(t, { args: ['--audit-db', db], env: h.env });
  await call(srv, 'status', {});
  await waitAudit(srv, (a) => a.written >= 1, 'the first row');

  const follower = spawn(binary('glovebox'), ['audit', '--follow', '--json', '--db', db], {
    env: serverEnv(h.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => follower.exitCode === null && follower.kill('SIGKILL'));
  let out = '';
  let stderr = '';
  const waiters = [];
  follower.stdout.on('data', (d) => {
    out += d;
    for (const w of waiters) w();
  });
  follower.stderr.on('data', (d) => (stderr += d));
  const lineCount = () => out.split('\n').filter(Boolean).length;
  const waitLines = (n, timeoutMs, what) =>
    deadline(
      new Promise((r) => {
        const check = () => lineCount() >= n && r();
        waiters.push(check);
        check();
      }),
      timeoutMs,
      what,
    );
  await waitLines(1, ms(5000), 'the existing row');
  const firstCount = lineCount();

  const before = Date.now();
  await call(srv, 'session_list', {});
  await waitLines(firstCount + 1, ms(1000), 'a new row from --follow');
  const rows = out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.equal(rows.at(-1).tool, 'session_list');
  assert.ok(Date.now() - before < ms(1000));

  const exited = new Promise((r) => follower.once('exit', (code, signal) => r({ code, signal })));
  follower.kill('SIGINT');
  assert.deepEqual(await deadline(exited, ms(3000), 'glovebox audit --follow to stop'), { code: 0, signal: null }, stderr);
  await srv.close();
  assert.ok(!existsSync(h.db), 'nothing at the default place');
});

test('a locked database: calls are still answered, status tells, rows arrive after', opts(), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { env: h.env });
  await call(srv, 'status', {});
  await waitAudit(srv, (a) => a.written >= 1 && a.ok, 'the first row');

  // Another process takes the write lock and keeps it.
  const locker = spawn('/usr/bin/sqlite3', [h.db], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => locker.exitCode === null && locker.kill('SIGKILL'));
  let lockOut = '';
  locker.stdout.on('data', (d) => (lockOut += d));
  // The server may hold the lock for a moment while it writes: wait for it.
  locker.stdin.write(".timeout 5000\nBEGIN EXCLUSIVE;\nSELECT 'locked';\n");
  await deadline(
    (async () => {
      while (!lockOut.includes('locked')) await sleep(20);
    })(),
    ms(5000),
    'sqlite3 to take the lock',
  );

  for (let i = 0; i < 3; i++) {
    const t0 = Date.now();
    const r = await call(srv, 'session_list', {});
    assert.ok(!r.isError);
    assert.ok(Date.now() - t0 < ms(1000), 'answered without waiting for the database');
  }
  const stuck = await waitAudit(srv, (a) => !a.ok && a.queued >= 3, 'status to show the problem');
  assert.match(stuck.error, /locked/);
  assert.equal(stuck.dropped, 0);
  assert.match((await call(srv, 'status', {})).text, /AUDIT LOG FAILING: .*locked/);

  locker.stdin.end('COMMIT;\n');
  const fine = await waitAudit(srv, (a) => a.ok && a.queued === 0, 'the queue to drain');
  assert.match(fine.last_error, /locked/, 'the last problem is still told');
  await srv.close();
  assert.match(srv.stderr(), /audit log cannot be written/);
  const counts = await sqlite(h.db, "SELECT count(*) AS n FROM calls WHERE tool = 'session_list'");
  assert.equal(counts[0].n, 3);
});

test('over HTTP the row names the client address and the MCP session', opts(), async (t) => {
  const h = home(t);
  const srv = await startHttp(t, { env: h.env });
  const { client, transport } = await connectHttpClient(srv.url, { name: 'audit-http' });
  const r = await client.callTool({ name: 'session_list', arguments: {} });
  assert.ok(!r.isError);
  const sessionId = transport.sessionId;
  await transport.terminateSession();
  await client.close();
  await srv.stop();
  const [row] = await auditRows(h.env, ['--tool', 'session_list']);
  assert.equal(row.client.transport, 'http');
  assert.equal(row.client.name, 'audit-http');
  assert.match(row.client.remote, /127\.0\.0\.1/);
  assert.equal(row.client.mcp_session, sessionId);
});

test('a call the client cancelled is recorded as cancelled', opts(), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { env: h.env });
  const abort = new AbortController();
  const pending = srv.client.callTool({ name: 'fixture_sleep', arguments: { ms: 5000, steps: 1 } }, undefined, {
    signal: abort.signal,
  });
  await sleep(200);
  abort.abort('changed my mind');
  await assert.rejects(pending);
  await srv.close(); // writes what is queued
  const [row] = await auditRows(h.env, ['--tool', 'fixture_*']);
  assert.equal(row.outcome, 'cancelled');
  assert.equal(row.decision, 'allowed');
  assert.ok(row.duration_ms < 5000, `stopped early (${row.duration_ms} ms)`);
});

test('secrets in calls refused as invalid are redacted, whatever their type', opts(), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { env: h.env });
  // Refused by the schema before any session is looked up: none is needed.
  const session = 'terminal-1';
  // secret: true, but text is not a string: refused by the schema.
  const a = await call(srv, 'type_text', { session, text: ['Hunter2-array'], secret: true });
  assert.match(a.text, /Invalid arguments/);
  // No secret flag at all, but invalid: what it carried may be a secret too.
  const b = await call(srv, 'type_text', { session, text: { nested: 'Hunter2-object' } });
  assert.match(b.text, /Invalid arguments/);
  // A password-like key is a secret in any call, in any case, anywhere in
  // the name; other keys are kept.
  const keys = ['db_password', 'API_Key', 'MyToken', 'Private_KEY', 'passPhrase', 'x_Credentials', 'PASSWD', 'apikey', 'top_Secret'];
  const c = await call(srv, 'session_list', { ...Object.fromEntries(keys.map((k, i) => [k, `Hunter2-key${i}`])), label: 'plain' });
  assert.ok(c.isError);
  await srv.close();

  const rows = await sqlite(h.db, "SELECT tool, arguments, decision, error FROM calls WHERE decision = 'invalid' ORDER BY id");
  assert.equal(rows.length, 3);
  assert.deepEqual(JSON.parse(rows[0].arguments), { session, text: '[redacted]', secret: true });
  assert.deepEqual(JSON.parse(rows[1].arguments), { session, text: '[redacted]' });
  assert.deepEqual(JSON.parse(rows[2].arguments), { ...Object.fromEntries(keys.map((k) => [k, '[redacted]'])), label: 'plain' });
  const leaks = await sqlite(
    h.db,
    "SELECT count(*) AS n FROM calls WHERE arguments LIKE '%Hunter2%' OR error LIKE '%Hunter2%' OR notes LIKE '%Hunter2%'",
  );
  assert.equal(leaks[0].n, 0);
  assert.ok(!readFileSync(h.db).includes('Hunter2'), 'not anywhere in the file');
});

// Arguments with nothing to hide are written as they came, without a copy;
// whatever may hide something (a URL, a long string, a password-like key)
// still goes through the cleaning: both paths, side by side.
test('arguments are kept as sent unless a URL carries credentials or a string is too long', needs('terminal', opts()), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { env: h.env });
  const plain = await call(srv, 'terminal_start', { command: ['cat'], cols: 90, rows: 30 });
  assert.ok(!plain.isError, plain.text);
  const session = plain.structured.id;
  const url = await call(srv, 'type_text', { session, text: 'see http://bob:Hunter3-pw@example.invalid/x and https://example.invalid/y\n' });
  assert.ok(!url.isError, url.text);
  const long = 'L'.repeat(5000);
  const longCall = await call(srv, 'type_text', { session, text: long });
  assert.ok(!longCall.isError, longCall.text);
  await srv.close();

  const rows = await sqlite(h.db, "SELECT tool, arguments FROM calls WHERE tool IN ('terminal_start', 'type_text') ORDER BY id");
  assert.equal(rows.length, 3);
  assert.equal(rows[0].arguments, '{"command":["cat"],"cols":90,"rows":30}', 'written as sent, in its order');
  assert.deepEqual(JSON.parse(rows[1].arguments), { session, text: 'see http://example.invalid/x and https://example.invalid/y\n' });
  const text = JSON.parse(rows[2].arguments).text;
  assert.ok(text.startsWith('L'.repeat(4096)) && text.endsWith('… (5000 bytes)'), `shortened: ${text.slice(4090)}`);
  assert.ok(!readFileSync(h.db).includes('Hunter3'), 'the URL credentials are not in the file');
});
