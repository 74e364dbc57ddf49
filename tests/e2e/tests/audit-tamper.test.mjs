// The audit log under attack from another process of the same user: its
// files removed or truncated while the server writes. The server keeps
// serving, keeps recording, and says what happened.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectClient, ms, opts, runCli, sleep } from '../lib/server.mjs';

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
