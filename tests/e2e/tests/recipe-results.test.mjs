// What a recipe's steps report is what the same tools answer when called one
// by one: a step's report holds the tool's answer itself (not a copy) when no
// secret has to be cut from it, read_text hands out the previous read's row
// strings for rows that did not change, and a recipe file is parsed again
// only when its bytes changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { recipeServer, writeRecipe } from '../lib/recipes.mjs';
import { needs } from '../lib/server.mjs';
import { textOf, topts } from '../lib/terminal.mjs';

const termOpts = (extra) => needs('terminal', topts(extra));

// A program that prints a line and then shows nothing of what is typed to
// it: its screen stays as it is while a recipe types and reads.
const STILL = { command: ['sh', '-c', 'stty -echo; printf "still screen\\nsecond line\\n"; exec sleep 1000'] };

test('a step reports what the tool answers when called alone, and a read after a change shows the change', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const s = await srv.start(STILL);
  await srv.waitFor(s.id, { text: 'second line' });
  writeRecipe(project, 'look', {
    steps: [
      { tool: 'read_text', arguments: {} },
      { tool: 'type_text', arguments: { text: 'unseen' } },
      { tool: 'read_text', arguments: {} },
    ],
  });
  const r = await srv.ok('recipe_run', { name: 'look' });
  assert.equal(r.sc.status, 'ok', textOf(r));
  const alone = await srv.ok('read_text', {});
  const typed = await srv.ok('type_text', { text: 'unseen' });
  const [read1, type, read2] = r.sc.steps;
  assert.deepEqual(read1.structured, alone.sc);
  assert.deepEqual(read2.structured, alone.sc);
  assert.equal(read1.text, textOf(alone));
  assert.deepEqual(type.structured, typed.sc);
  assert.equal(type.text, textOf(typed));
  assert.match(alone.sc.text, /^still screen\nsecond line$/);

  // The screen changes: the next read shows the new rows and keeps the
  // rows that stayed.
  const b = await srv.bash();
  await srv.type(b.id, 'echo first-$((1+1))\n');
  await srv.waitFor(b.id, { text: 'first-2' });
  const before = await srv.readText(b.id);
  await srv.type(b.id, 'echo changed-$((6*7))\n');
  await srv.waitFor(b.id, { text: 'changed-42' });
  const after = await srv.readText(b.id);
  assert.deepEqual(after.lines.slice(0, 2), before.lines.slice(0, 2));
  assert.equal(after.lines[1], 'first-2');
  assert.equal(after.lines[0], before.lines[0]);
  assert.ok(after.lines.includes('changed-42'), JSON.stringify(after.lines));
  assert.ok(!before.lines.includes('changed-42'));
  assert.match(after.text, /changed-42/);
});

test('with a secret param, the reports are copies with the secret cut out; the tool alone still shows it', termOpts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const b = await srv.bash();
  const secret = 'Pw-9rT-only-on-screen';
  writeRecipe(project, 'show', {
    params: { pin: { secret: true } },
    steps: [
      { tool: 'type_text', arguments: { session: b.id, text: 'echo "[{{pin}}]"\n' } },
      { tool: 'wait_for', arguments: { session: b.id, text: ']', timeout_ms: 10000 } },
      { tool: 'read_text', arguments: { session: b.id } },
    ],
  });
  const r = await srv.ok('recipe_run', { name: 'show', params: { pin: secret } });
  assert.equal(r.sc.status, 'ok', textOf(r));
  assert.ok(!JSON.stringify(r).includes(secret), JSON.stringify(r.sc.steps[2]).slice(0, 1000));
  assert.match(r.sc.steps[2].structured.text, /\[\[redacted\]\]/);
  // The session itself was not changed by the cut: a read of its own shows it.
  const alone = await srv.readText(b.id);
  assert.match(alone.text, new RegExp(`\\[${secret}\\]`));
});

test('a recipe file rewritten with other bytes of the same length is read anew', topts(), async (t) => {
  const { srv, project } = await recipeServer(t);
  const doc = (word) => ({ steps: [{ tool: 'type_text', arguments: { text: word } }] });
  for (const word of ['aaaa', 'bbbb', 'aaaa', 'cccc']) {
    writeRecipe(project, 'same-size', doc(word));
    const r = await srv.ok('recipe_run', { name: 'same-size', dry_run: true });
    assert.deepEqual(r.sc.steps[0].arguments, { text: word });
  }
  // A file made malformed is refused at once, and accepted again once fixed.
  writeRecipe(project, 'same-size', '{"steps": [{"tool": "type_text", "arguments": {"text": "dddd"}}');
  await srv.err('recipe_run', { name: 'same-size', dry_run: true }, /not JSON/);
  writeRecipe(project, 'same-size', doc('eeee'));
  const r = await srv.ok('recipe_run', { name: 'same-size', dry_run: true });
  assert.deepEqual(r.sc.steps[0].arguments, { text: 'eeee' });
  const shown = await srv.ok('recipe_show', { name: 'same-size' });
  assert.equal(shown.sc.recipe.steps[0].arguments.text, 'eeee');
});
