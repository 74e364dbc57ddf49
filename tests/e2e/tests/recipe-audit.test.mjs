// Recipes and the safety around them: every step passes the policy as a
// call of its own, audit rows carry the run's id, secret params stay out of
// results and the audit log, runs are cancellable, and a recipe saved from
// the audit log of a real session replays.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectHttpClient, startHttp } from '../lib/http.mjs';
import { BASH, recipeServer, writeRecipe } from '../lib/recipes.mjs';
import { ms, needs, runCli, sleep } from '../lib/server.mjs';
import { tempDir, textOf, topts } from '../lib/terminal.mjs';

const termOpts = (extra) => needs('terminal', topts(extra));

/** The audit rows of a server (sqlite3 on its audit.db), once n are there. */
async function auditRows(srv, pred = () => true, what = 'audit rows') {
  const db = join(srv.dataDir, 'audit.db');
  const end = Date.now() + ms(10000);
  for (;;) {
    if (existsSync(db)) {
      const r = await runCli(['-readonly', '-json', db, 'SELECT tool, arguments, outcome, decision, error, notes FROM calls ORDER BY id'], {
        command: '/usr/bin/sqlite3',
      });
      const rows = r.stdout.trim() ? JSON.parse(r.stdout) : [];
      if (pred(rows)) return rows;
    }
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await sleep(50);
  }
}

test('each step passes the policy like a call of its own; audit rows carry the run id', termOpts(), async (t) => {
  const home = tempDir(t);
  const policy = join(home, 'policy.json');
  // recipe_run is allowed, type_text is not: the recipe cannot type either.
  writeFileSync(policy, JSON.stringify({ allow: ['recipe_run', 'terminal_start', 'wait_for', 'session_stop'] }));
  const { srv, project } = await recipeServer(t, { args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0' } });
  writeRecipe(project, 'typer', {
    steps: [
      { tool: 'terminal_start', arguments: { command: ['cat'] } },
      { tool: 'type_text', arguments: { text: 'echo hi\n' }, on_failure: 'skip' },
      { tool: 'terminal_start', arguments: { command: ['cat'] } },
    ],
  });
  const r = await srv.ok('recipe_run', { name: 'typer' });
  assert.deepEqual(r.sc.steps.map((s) => s.status), ['ok', 'skipped', 'ok']);
  assert.equal(r.sc.steps[1].error.code, 'denied');
  assert.match(r.sc.steps[1].error.message, /type_text/);
  const rows = await auditRows(srv, (rows) => rows.some((x) => x.tool === 'recipe_run'), 'the recipe_run row');
  const steps = rows.filter((x) => JSON.parse(x.notes).recipe?.run === r.sc.run);
  assert.deepEqual(steps.map((x) => [x.tool, x.decision, x.outcome]), [
    ['terminal_start', 'allowed', 'ok'],
    ['type_text', 'denied', 'error'],
    ['terminal_start', 'allowed', 'ok'],
  ]);
  assert.deepEqual(JSON.parse(steps[1].notes).recipe, { run: r.sc.run, name: 'typer', step: 2, attempt: 1 });
});

test('secret params reach the program but never the result, the audit log or the history', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const dir = tempDir(t);
  const file = join(dir, 'secret.txt');
  const secret = 'hunter2-Zq9-not-in-logs';
  writeRecipe(project, 'login', {
    params: { pin: { description: 'the PIN', secret: true }, user: { default: 'alice' } },
    steps: [
      { tool: 'terminal_start', arguments: BASH },
      { tool: 'type_text', arguments: { text: `echo '{{user}}:{{pin}}' > ${file}; echo wrote-{{pin}}\n` } },
      { tool: 'wait_for', arguments: { text: `wrote-{{pin}}`, timeout_ms: 10000 } },
      { tool: 'wait_for', arguments: { text: `nothing-{{pin}}`, timeout_ms: 100 }, on_failure: 'skip' },
    ],
  });
  const r = await srv.ok('recipe_run', { name: 'login', params: { pin: secret } });
  assert.deepEqual(r.sc.steps.map((s) => s.status), ['ok', 'ok', 'ok', 'skipped']);
  assert.equal(readFileSync(file, 'utf8'), `alice:${secret}\n`);
  assert.ok(!JSON.stringify(r).includes(secret), `the result shows the secret: ${JSON.stringify(r).slice(0, 2000)}`);
  assert.match(JSON.stringify(r.sc.steps[2]), /wrote-\[redacted\]/);
  await auditRows(srv, (rows) => rows.some((x) => x.tool === 'recipe_run'), 'the recipe_run row');
  // Neither the audit database nor the run history holds the secret anywhere.
  const end = Date.now() + ms(5000);
  while (!existsSync(join(srv.dataDir, 'recipes.db')) && Date.now() < end) await sleep(50);
  for (const f of ['audit.db', 'recipes.db']) {
    const bytes = readFileSync(join(srv.dataDir, f));
    assert.ok(!bytes.includes(Buffer.from(secret)), `${f} holds the secret`);
    assert.ok(!bytes.includes(Buffer.from('hunter2')), `${f} holds part of the secret`);
  }
});

test('a recipe saved from the audit log of a real session replays it', termOpts(), async (t) => {
  const { srv } = await recipeServer(t);
  const dir = tempDir(t);
  const file = join(dir, 'made.txt');
  const s = await srv.ok('terminal_start', BASH);
  await srv.ok('wait_for', { session: s.sc.id, text: 'gb$ ', timeout_ms: 10000 });
  await srv.ok('type_text', { session: s.sc.id, text: `printf 'made {{not-a-param}} %s\\n' "$((6*7))" > ${file}\n` });
  await srv.ok('read_text', { session: s.sc.id });
  await srv.call('type_text', { session: 'no-such-session', text: 'x' });
  await srv.ok('wait_for', { session: s.sc.id, text: 'gb$', timeout_ms: 10000 });
  const saved = await srv.ok('recipe_save', { name: 'replay', from: { session: s.sc.id } });
  // Failed and read-only calls are left out; the session is the replay's own.
  assert.deepEqual(saved.sc.recipe.steps.map((x) => x.tool), ['terminal_start', 'type_text']);
  assert.equal(saved.sc.recipe.steps[1].arguments.session, undefined);
  await srv.ok('session_stop', { session: s.sc.id });
  assert.equal(readFileSync(file, 'utf8'), 'made {{not-a-param}} 42\n');
  rmSync(file);
  const r = await srv.ok('recipe_run', { name: 'replay' });
  assert.equal(r.sc.status, 'ok', textOf(r));
  const end = Date.now() + ms(10000);
  while (!existsSync(file) && Date.now() < end) await sleep(50);
  await sleep(200);
  assert.equal(readFileSync(file, 'utf8'), 'made {{not-a-param}} 42\n', 'the recorded text replays literally');
  await srv.err('recipe_save', { name: 'none', from: { session: 'terminal-999' } }, /none of your calls in the audit log match/);
});

test('a recipe_run can be cancelled: the step in flight stops and the server keeps serving', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  writeRecipe(project, 'slow', {
    steps: [
      { tool: 'terminal_start', arguments: BASH },
      { tool: 'wait_for', arguments: { text: 'never-printed', timeout_ms: 600000 } },
      { tool: 'session_stop', arguments: {} },
    ],
  });
  const ac = new AbortController();
  const progress = [];
  const run = srv.call('recipe_run', { name: 'slow' }, {
    signal: ac.signal,
    onprogress: (p) => {
      progress.push(p);
      if (p.progress === 1) ac.abort();
    },
  });
  await assert.rejects(run, /abort/i);
  const rows = await auditRows(srv, (rows) => rows.some((x) => x.tool === 'recipe_run'), 'the recipe_run row');
  const wait = rows.find((x) => x.tool === 'wait_for');
  assert.equal(wait.outcome, 'cancelled');
  assert.ok(!rows.some((x) => x.tool === 'session_stop'), 'nothing ran after the cancel');
  const st = await srv.ok('status');
  assert.ok(st.sc.server);
});

test('glovebox recipes lists recipes and runs; glovebox recipe run runs one from the shell', termOpts(), async (t) => {
  const { srv, project, home } = await recipeServer(t);
  const dir = tempDir(t);
  writeRecipe(project, 'touch', {
    description: 'touch a file',
    params: { f: { description: 'file' } },
    steps: [
      { tool: 'terminal_start', arguments: { command: ['touch', '{{f}}'] } },
      { tool: 'wait_for', arguments: { exit: true, timeout_ms: 10000 } },
    ],
  });
  const r = await srv.ok('recipe_run', { name: 'touch', params: { f: join(dir, 'a') } });
  assert.equal(r.sc.status, 'ok', textOf(r));
  const env = { XDG_CONFIG_HOME: join(home, 'config'), GLOVEBOX_ALLOW_ALL: '1' };
  const cwd = join(home, 'work');
  const end = Date.now() + ms(5000);
  while (!existsSync(join(srv.dataDir, 'recipes.db')) && Date.now() < end) await sleep(50);
  const list = await runCli(['recipes', '--data-dir', srv.dataDir], { cwd, env });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^touch\s+project\s+2 steps\s+touch a file$/m);
  assert.match(list.stdout, new RegExp(`${r.sc.run}\\s+touch\\s+ok`));
  const cli = await runCli(['recipe', 'run', 'touch', `f=${join(dir, 'b')}`, '--data-dir', srv.dataDir], { cwd, env, timeoutMs: ms(30000) });
  assert.equal(cli.code, 0, `${cli.stdout}\n${cli.stderr}`);
  assert.match(cli.stdout, /recipe touch ok/);
  assert.ok(existsSync(join(dir, 'b')));
  const bad = await runCli(['recipe', 'run', 'touch', 'nokeyvalue'], { cwd, env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /expected KEY=VALUE, got "nokeyvalue"/);
  const failing = await runCli(['recipe', 'run', 'missing', '--data-dir', srv.dataDir], { cwd, env });
  assert.equal(failing.code, 1);
  assert.match(failing.stderr, /no recipe called "missing"/);
});

test('a recipe_run the policy refuses still keeps its secret params out of the audit log', topts(), async (t) => {
  const home = tempDir(t);
  const policy = join(home, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['status'] }));
  const { srv, project } = await recipeServer(t, { args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0' } });
  writeRecipe(project, 'login', { params: { code: { secret: true }, who: {} }, steps: [{ tool: 'status' }] });
  const secret = 'Qx7-refused-secret';
  await srv.err('recipe_run', { name: 'login', params: { code: secret, who: 'visible-name' } }, /Denied by policy/);
  const rows = await auditRows(srv, (rows) => rows.some((x) => x.tool === 'recipe_run'), 'the recipe_run row');
  const row = rows.find((x) => x.tool === 'recipe_run');
  assert.equal(row.decision, 'denied');
  assert.deepEqual(JSON.parse(row.arguments).params, { code: '[redacted]', who: 'visible-name' });
  assert.ok(!readFileSync(join(srv.dataDir, 'audit.db')).includes(Buffer.from(secret)));
});

test('over HTTP, recipe_save from the audit log takes only the caller\'s own calls', termOpts(), async (t) => {
  const home = tempDir(t);
  const env = { XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
  const srv = await startHttp(t, { env });
  const a = await connectHttpClient(srv.url, { name: 'client-a' });
  const b = await connectHttpClient(srv.url, { name: 'client-b' });
  const ok = async (c, name, args) => {
    const r = await c.client.callTool({ name, arguments: args });
    assert.ok(!r.isError, `${name}: ${textOf(r)}`);
    return r;
  };
  const s = (await ok(a, 'terminal_start', { command: ['cat'] })).structuredContent.id;
  await ok(a, 'type_text', { session: s, text: 'from client a\n' });
  for (const from of [{ last: 10 }, { session: s }]) {
    const r = await b.client.callTool({ name: 'recipe_save', arguments: { name: 'stolen', from } });
    assert.equal(r.isError, true, `client b got client a's calls: ${textOf(r)}`);
    assert.match(textOf(r), /none of your calls in the audit log match/);
  }
  const mine = await ok(a, 'recipe_save', { name: 'mine', from: { last: 10 } });
  assert.deepEqual(mine.structuredContent.recipe.steps.map((x) => x.tool), ['terminal_start', 'type_text']);
  assert.equal(mine.structuredContent.recipe.steps[1].arguments.text, 'from client a\n');
  await a.client.close();
  await b.client.close();
  await srv.stop();
});
