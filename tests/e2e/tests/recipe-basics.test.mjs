// Recipes end to end: saved, listed, shown, replayed with params over a real
// terminal, failures handled per step (stop, skip, retry), dry runs, bad
// files and unknown names, params landing literally, secrets kept out.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';

import { BASH, recipeServer, writeRecipe } from '../lib/recipes.mjs';
import { E2E_DIR, REPO_DIR, needs } from '../lib/server.mjs';
import { tempDir, textOf, topts } from '../lib/terminal.mjs';

const termOpts = (extra) => needs('terminal', topts(extra));

/** A recipe that starts bash and writes MSG into FILE with printf. */
function writerRecipe(file) {
  return {
    description: 'write a message into a file',
    params: { msg: { description: 'the message' } },
    steps: [
      { tool: 'terminal_start', arguments: BASH },
      { tool: 'wait_for', arguments: { text: 'gb$ ', timeout_ms: 10000 } },
      { tool: 'type_text', arguments: { text: `cat > ${file} <<'GLOVEBOX_EOF'\n{{msg}}\nGLOVEBOX_EOF\necho done-$((40+2))\n` } },
      { tool: 'wait_for', arguments: { text: 'done-42', timeout_ms: 10000 } },
    ],
  };
}

test('a terminal recipe saved with recipe_save runs with a param and reports every step', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const dir = tempDir(t);
  const file = join(dir, 'out.txt');
  assert.deepEqual(srv.client.getServerCapabilities().prompts, { listChanged: true });
  const saved = await srv.ok('recipe_save', { name: 'write-file', ...writerRecipe(file) });
  assert.equal(saved.sc.path, '.glovebox/recipes/write-file.recipe.json');
  assert.ok(existsSync(join(project, 'write-file.recipe.json')));

  const list = await srv.ok('recipe_list');
  assert.deepEqual(list.sc.recipes.map((r) => [r.name, r.where, r.steps]), [['write-file', 'project', 4]]);
  const shown = await srv.ok('recipe_show', { name: 'write-file' });
  assert.equal(shown.sc.recipe.steps[2].tool, 'type_text');

  const r = await srv.ok('recipe_run', { name: 'write-file', params: { msg: 'hello from a recipe' } }, { onprogress: () => {} });
  assert.equal(r.sc.status, 'ok', textOf(r));
  assert.deepEqual(r.sc.steps.map((s) => s.status), ['ok', 'ok', 'ok', 'ok']);
  assert.match(r.sc.run, /^run-/);
  // The run's duration in µs agrees with its ms and covers its steps' time.
  assert.ok(Number.isInteger(r.sc.us), `us: ${r.sc.us}`);
  assert.ok(Math.abs(r.sc.us / 1000 - r.sc.ms) <= 1.5, `us ${r.sc.us} against ms ${r.sc.ms}`);
  const stepsMs = r.sc.steps.reduce((a, s) => a + s.ms, 0);
  assert.ok(r.sc.us >= stepsMs * 1000 - 1000 * r.sc.steps.length, `us ${r.sc.us} against the steps' ${stepsMs} ms`);
  assert.equal(readFileSync(file, 'utf8'), 'hello from a recipe\n');
  // What crossed the wire before the answer (the SDK may hand the last
  // notification to onprogress after the answer resolves the call).
  const progress = srv.handle.inbound.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
  assert.equal(progress.length, 4, `one progress notification per step: ${JSON.stringify(progress)}`);
  assert.match(progress[2].message, /step 3 of 4: type_text/);

  // The recipe is also a prompt with its param as an argument.
  const prompts = await srv.client.listPrompts();
  const p = prompts.prompts.find((x) => x.name === 'recipe/write-file');
  assert.ok(p, JSON.stringify(prompts));
  assert.deepEqual(p.arguments, [{ name: 'msg', description: 'the message', required: true }]);
  const got = await srv.client.getPrompt({ name: 'recipe/write-file', arguments: { msg: 'hi' } });
  assert.match(got.messages[0].content.text, /recipe_run.*"name":"write-file","params":\{"msg":"hi"\}/);

  await srv.ok('recipe_delete', { name: 'write-file' });
  assert.ok(!existsSync(join(project, 'write-file.recipe.json')));
  const changed = srv.handle.inbound.filter((m) => m.method === 'notifications/prompts/list_changed');
  assert.equal(changed.length, 2, 'prompts/list_changed after the save and after the delete');
  await srv.err('recipe_show', { name: 'write-file' }, /no recipe called "write-file"/);
});

test('a param with shell metacharacters lands literally', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const dir = tempDir(t);
  const file = join(dir, 'out.txt');
  writeRecipe(project, 'literal', writerRecipe(file));
  const nasty = `$(touch ${dir}/pwned) \`id\` ; rm -rf / && echo $HOME {{msg}} '"\\`;
  const r = await srv.ok('recipe_run', { name: 'literal', params: { msg: nasty } });
  assert.equal(r.sc.status, 'ok', textOf(r));
  assert.equal(readFileSync(file, 'utf8'), nasty + '\n');
  assert.ok(!existsSync(join(dir, 'pwned')), 'nothing the param held was run');
});

test('on_failure: stop ends the run, skip goes on, retry tries again', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const dir = tempDir(t);
  const fail = { tool: 'wait_for', arguments: { text: 'never-there', timeout_ms: 200 } };
  writeRecipe(project, 'flow', {
    steps: [
      { tool: 'terminal_start', arguments: BASH },
      { ...fail, on_failure: 'skip' },
      { ...fail, on_failure: 'retry', retries: 2 },
      { tool: 'type_text', arguments: { text: `touch ${dir}/after-stop\n` } },
    ],
  });
  const r = await srv.ok('recipe_run', { name: 'flow' });
  assert.equal(r.sc.status, 'failed');
  assert.deepEqual(
    r.sc.steps.map((s) => [s.status, s.attempts]),
    [['ok', 1], ['skipped', 1], ['failed', 3], ['not_run', undefined]],
  );
  assert.equal(r.sc.steps[2].error.code, 'timeout');
  assert.match(textOf(r), /step 3 \(wait_for\) failed/);
  assert.ok(!existsSync(join(dir, 'after-stop')), 'a stopped run runs nothing after the failure');

  // from_step/to_step run a part.
  const part = await srv.ok('recipe_run', { name: 'flow', from_step: 4, to_step: 4 });
  assert.deepEqual(part.sc.steps.map((s) => s.status), ['not_run', 'not_run', 'not_run', 'ok']);
  await srv.err('recipe_run', { name: 'flow', from_step: 3, to_step: 9 }, /to_step: expected 1 <= from_step <= to_step <= 4/);
});

test('a dry run shows the calls and makes none', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const dir = tempDir(t);
  const file = join(dir, 'out.txt');
  writeRecipe(project, 'dry', writerRecipe(file));
  const r = await srv.ok('recipe_run', { name: 'dry', params: { msg: 'x' }, dry_run: true });
  assert.equal(r.sc.status, 'dry_run');
  assert.deepEqual(r.sc.steps.map((s) => s.status), ['planned', 'planned', 'planned', 'planned']);
  assert.match(r.sc.steps[2].arguments.text, /\nx\nGLOVEBOX_EOF/);
  assert.deepEqual(await srv.list(), [], 'no session was started');
  assert.ok(!existsSync(file));
});

test('malformed recipe files are listed with their error and refused by name', topts(), async (t) => {
  const { srv, project, user } = await recipeServer(t);
  writeRecipe(project, 'not-json', '{"steps": [');
  writeRecipe(project, 'bad-field', { steps: [{ tool: 'status', on_failure: 'maybe' }] });
  writeRecipe(project, 'undeclared', { steps: [{ tool: 'type_text', arguments: { text: '{{who}}' } }] });
  writeRecipe(project, 'nested', { steps: [{ tool: 'recipe_run', arguments: { name: 'x' } }] });
  writeRecipe(user, 'good', { description: 'fine', steps: [{ tool: 'status' }] });
  writeRecipe(user, 'bad-field', { steps: [{ tool: 'status' }] });
  const list = (await srv.ok('recipe_list')).sc.recipes;
  const by = Object.fromEntries(list.map((r) => [r.name, r]));
  assert.deepEqual(Object.keys(by), ['bad-field', 'good', 'nested', 'not-json', 'undeclared']);
  assert.match(by['not-json'].error, /not JSON \(line 1/);
  assert.match(by['bad-field'].error, /steps\[1\]\.on_failure: expected "stop", "skip" or "retry"/);
  assert.equal(by['bad-field'].where, 'project', 'the project directory comes first');
  assert.match(by.undeclared.error, /steps\[1\]\.arguments: \{\{who\}\} is not a declared param/);
  assert.match(by.nested.error, /steps\[1\]\.tool: a step cannot call recipe_run/);
  assert.equal(by.good.error, undefined);
  assert.equal(by.good.where, 'user');
  const e = await srv.err('recipe_run', { name: 'bad-field' }, /on_failure/);
  assert.match(e, /bad-field\.recipe\.json/);
  const r = await srv.ok('recipe_run', { name: 'good' });
  assert.equal(r.sc.status, 'ok');
});

test('unknown recipes, bad names and bad params are clear errors', topts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  await srv.err('recipe_run', { name: 'nope' }, /no recipe called "nope" \(recipe_list shows the recipes\)/);
  await srv.err('recipe_show', { name: '../etc/passwd' }, /Invalid arguments for recipe_show/);
  const r = await srv.call('recipe_run', { name: 'nope' });
  assert.equal(r.structuredContent.error.code, 'not_found');
  writeRecipe(project, 'p', { params: { a: { description: 'A' }, b: { default: 'B' } }, steps: [{ tool: 'status' }] });
  await srv.err('recipe_run', { name: 'p' }, /params\.a: required \(no default\): A/);
  await srv.err('recipe_run', { name: 'p', params: { a: '1', c: '2' } }, /params\.c: the recipe has no such param/);
  await srv.err('recipe_save', { name: 'x', steps: [{ tool: 'status', arguments: { text: '{{y}}' } }] }, /steps\[1\]\.arguments: \{\{y\}\} is not a declared param/);
  await srv.err('recipe_save', { name: 'x' }, /steps or from: give exactly one/);
  await srv.err('recipe_save', { name: 'x', params: { s: { secret: true, default: 'pw' } }, steps: [{ tool: 'status' }] }, /params\.s\.default: a secret param has no default/);
  await srv.ok('recipe_save', { name: 'x', steps: [{ tool: 'status' }] });
  await srv.err('recipe_save', { name: 'x', steps: [{ tool: 'status' }] }, /exists .*replace: true/);
  await srv.ok('recipe_save', { name: 'x', steps: [{ tool: 'status' }], replace: true });
  const unknown = await srv.ok('recipe_run', { name: 'x' });
  assert.equal(unknown.sc.status, 'ok');
  await srv.ok('recipe_save', { name: 'ghost', steps: [{ tool: 'no_such_tool' }], replace: true });
  const g = await srv.ok('recipe_run', { name: 'ghost' });
  assert.equal(g.sc.status, 'failed');
  assert.equal(g.sc.steps[0].error.code, 'not_found');
  assert.match(g.sc.steps[0].error.message, /unknown tool no_such_tool/);
});

test('docs/recipe.schema.json accepts what glovebox accepts and refuses what it refuses', topts(), async (t) => {
  const require = createRequire(join(E2E_DIR, 'node_modules/@modelcontextprotocol/sdk/package.json'));
  const Ajv2020 = require('ajv/dist/2020').default;
  const schema = JSON.parse(readFileSync(join(REPO_DIR, 'docs/recipe.schema.json'), 'utf8'));
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  const { srv, project } = await recipeServer(t);
  const cases = {
    good: { description: 'd', params: { a: { description: 'A', default: 'x' }, s: { secret: true } }, steps: [{ tool: 'status', arguments: { x: '{{a}}' }, on_failure: 'retry', retries: 3, note: 'n' }] },
    'no-steps': { steps: [] },
    'extra-field': { steps: [{ tool: 'status' }], colour: 'blue' },
    'bad-retries': { steps: [{ tool: 'status', retries: 11 }] },
    'secret-default': { params: { s: { secret: true, default: 'pw' } }, steps: [{ tool: 'status' }] },
    'bad-param-name': { params: { '1x': {} }, steps: [{ tool: 'status' }] },
    'recipe-step': { steps: [{ tool: 'recipe_delete', arguments: { name: 'x' } }] },
    locator: { steps: [{ tool: 'click', locator: { role: 'push button', name: 'OK', window: 'W', point: { x: 1, y: 2 }, screen: { x: 3, y: 4 } }, strict: true }] },
    'locator-no-name': { steps: [{ tool: 'click', locator: { role: 'push button' } }] },
    'locator-bad-point': { steps: [{ tool: 'click', locator: { name: 'OK', point: { x: 1 } } }] },
  };
  for (const [name, doc] of Object.entries(cases)) writeRecipe(project, name, doc);
  const listed = Object.fromEntries((await srv.ok('recipe_list')).sc.recipes.map((r) => [r.name, r]));
  for (const [name, doc] of Object.entries(cases)) {
    const ajvOk = validate(doc);
    assert.equal(!listed[name].error, ajvOk, `${name}: glovebox says ${listed[name].error ?? 'valid'}, the schema says ${ajvOk ? 'valid' : JSON.stringify(validate.errors)}`);
  }
});
