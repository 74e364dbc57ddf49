// The audit log under attack from another process of the same user: its
// files removed or truncated while the server writes. The server keeps
// serving, keeps recording, and says what happened.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { assertNoSanitizerReport, binary, connectClient, deadline, ms, opts, runCli, serverEnv, sleep } from '../lib/server.mjs';

function home(t) {
  const dir = mkdtempSync(join(tmpdir(), 'gb-audit-tamper-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const data = join(dir, 'data', 'glovebox');
  return { dir, data, env: { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') }, db: join(data, 'audit.db') };
}

async function sqlite(db, query) {
  const r = await runCli(['-readonly', '-json', db, query], { command: '/usr/bin/sqlite3' });
  assert.equal(r.code, 0, `sqlite3 failed: ${r.stderr}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : [];
}

/** truncate -s0, as a user would type it (creates the file when missing). */
async function truncate(path) {
  const r = await runCli(['-s0', path], { command: '/usr/bin/truncate' });
  assert.equal(r.code, 0, r.stderr);
}

async function status(srv) {
  const r = await srv.client.callTool({ name: 'status', arguments: {} });
  return r.structuredContent.audit;
}

/** Polls the database until query's first row satisfies pred. */
async function waitRows(db, query, pred, what) {
  const until = Date.now() + ms(10000);
  let last;
  while (Date.now() < until) {
    if (existsSync(db)) {
      const r = await runCli(['-readonly', '-json', db, query], { command: '/usr/bin/sqlite3' });
      if (r.code === 0) {
        last = r.stdout.trim() ? JSON.parse(r.stdout) : [];
        if (pred(last)) return last;
      }
    }
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}; last rows: ${JSON.stringify(last)}`);
}

test('audit.db* removed while serving: a new log is started, says so, and records the calls', opts(), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { env: h.env });
  await srv.client.callTool({ name: 'session_list', arguments: {} });
  await waitRows(h.db, "SELECT count(*) AS n FROM calls WHERE tool = 'session_list'", (r) => r[0]?.n === 1, 'the first row');

  for (const f of readdirSync(h.data)) if (f.startsWith('audit.db')) rmSync(join(h.data, f));
  for (let i = 0; i < 3; i++) await srv.client.callTool({ name: 'session_list', arguments: {} });

  const rows = await waitRows(
    h.db,
    'SELECT tool, decision, error FROM calls ORDER BY id',
    (r) => r.filter((x) => x.tool === 'session_list').length === 3,
    'the calls after the removal in a new file',
  );
  assert.equal(rows[0].tool, '(audit log)', 'the new log starts by saying the old one is gone');
  assert.equal(rows[0].decision, 'recreated');
  assert.match(rows[0].error, /was removed while glovebox was serving/);
  const audit = await status(srv);
  assert.equal(audit.ok, true);
  assert.equal(audit.recreated, 1);
  assert.match(audit.last_error, /removed/);
  await srv.close();
  assert.match(srv.stderr(), /AUDIT LOG REMOVED/);
});

test('truncating the -shm and -wal files while serving does not kill the server; rows are still recorded', opts(), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { env: h.env });
  await srv.client.callTool({ name: 'session_list', arguments: {} });
  await waitRows(h.db, "SELECT count(*) AS n FROM calls WHERE tool = 'session_list'", (r) => r[0]?.n === 1, 'the first row');

  // No privilege needed: any process of the same user can do this (and
  // truncate creates the files when they do not exist).
  await truncate(`${h.db}-shm`);
  await truncate(`${h.db}-wal`);
  for (let i = 0; i < 5; i++) {
    const r = await srv.client.callTool({ name: 'session_list', arguments: {} });
    assert.ok(!r.isError);
    await sleep(20);
  }
  await waitRows(h.db, "SELECT count(*) AS n FROM calls WHERE tool = 'session_list'", (r) => r[0]?.n === 6, 'every call recorded');
  // Again, now that the server has written since.
  await truncate(`${h.db}-shm`);
  await truncate(`${h.db}-wal`);
  for (let i = 0; i < 3; i++) await srv.client.callTool({ name: 'session_list', arguments: {} });
  await waitRows(h.db, "SELECT count(*) AS n FROM calls WHERE tool = 'session_list'", (r) => r[0]?.n === 9, 'every call recorded');
  assert.equal((await status(srv)).dropped, 0);
  // `glovebox audit` still reads the log while the server runs.
  const cli = await runCli(['audit', '--json', '--tool', 'session_list'], { env: h.env });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.stdout.trim().split('\n').length, 9);
  await srv.close();
});

test('glovebox audit --follow survives a -wal dropped beside the log and its -shm truncated', opts(), async (t) => {
  const h = home(t);
  const srv = await connectClient(t, { env: h.env });
  await srv.client.callTool({ name: 'session_list', arguments: {} });
  await waitRows(h.db, "SELECT count(*) AS n FROM calls WHERE tool = 'session_list'", (r) => r[0]?.n === 1, 'the first row');

  // Someone else's files: SQLite opens any -wal beside a database, and a
  // reader with shared memory then maps the -shm.
  writeFileSync(`${h.db}-wal`, randomBytes(5000));
  await truncate(`${h.db}-shm`);
  const follower = spawn(binary('glovebox'), ['audit', '--follow', '--json', '--tool', 'session_list'], {
    env: serverEnv(h.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => follower.exitCode === null && follower.kill('SIGKILL'));
  const exited = new Promise((r) => follower.once('exit', (code, signal) => r({ code, signal })));
  let out = '';
  let stderr = '';
  follower.stdout.on('data', (d) => (out += d));
  follower.stderr.on('data', (d) => (stderr += d));
  const lines = () => out.split('\n').filter(Boolean).length;
  const waitLines = async (n, what) => {
    const until = Date.now() + ms(10000);
    while (lines() < n && follower.exitCode === null && Date.now() < until) await sleep(20);
    assert.equal(lines(), n, `${what}; the follower ${follower.exitCode === null ? 'runs' : `exited ${follower.exitCode} ${follower.signalCode}`}; stderr:\n${stderr}`);
  };
  await waitLines(1, 'the existing row');

  // Truncated while the follower polls (a mapped -shm page would now be
  // SIGBUS), then a new call that the follower must print.
  await truncate(`${h.db}-shm`);
  await sleep(600); // more than one poll (250 ms) of the follower
  await srv.client.callTool({ name: 'session_list', arguments: {} });
  await waitLines(2, 'the new row');
  assert.equal(follower.exitCode, null, `the follower died: ${stderr}`);
  follower.kill('SIGTERM');
  const status = await deadline(exited, ms(5000), 'the follower to exit');
  assertNoSanitizerReport(stderr, 'glovebox audit');
  assert.deepEqual(status, { code: 0, signal: null }, stderr);
  await srv.close();
});

test('glovebox audit refuses a log an older glovebox left in WAL mode, naming the fix; serve converts it', opts(), async (t) => {
  const h = home(t);
  const db = join(h.dir, 'old.db');
  const made = await runCli([db, 'PRAGMA journal_mode=WAL; CREATE TABLE old(x);'], { command: '/usr/bin/sqlite3' });
  assert.equal(made.code, 0, made.stderr);
  const refused = await runCli(['audit', '--db', db], { env: h.env });
  assert.equal(refused.code, 1);
  assertNoSanitizerReport(refused.stderr, 'glovebox audit');
  assert.match(refused.stderr, /the log is in WAL mode \(an older glovebox wrote it\); glovebox serve converts it when it next starts/);

  const srv = await connectClient(t, { args: ['--audit-db', db], env: h.env });
  await srv.client.callTool({ name: 'session_list', arguments: {} });
  await waitRows(db, "SELECT count(*) AS n FROM calls WHERE tool = 'session_list'", (r) => r[0]?.n === 1, 'the row');
  await srv.close();
  const read = await runCli(['audit', '--json', '--db', db], { env: h.env });
  assert.equal(read.code, 0, read.stderr);
  assert.equal(JSON.parse(read.stdout.trim().split('\n').at(-1)).tool, 'session_list');
});
