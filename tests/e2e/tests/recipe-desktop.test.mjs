// Recipes on a desktop: a step saved from a ref is saved as a locator and
// found again when the recipe runs, after the dialog moved (healed), by
// accessibility or, when the name no longer matches, by its saved point in
// the window; strict runs fail instead of healing.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { launchShell, outputOf, startDesktop } from '../lib/desktop.mjs';
import { recipeServer } from '../lib/recipes.mjs';
import { ms, sleep } from '../lib/server.mjs';
import { desktopOpts as topts, tempDir, textOf } from '../lib/terminal.mjs';

/** A zenity question on a fresh desktop; the Yes button's ref seen by find
 * and the windows seen by window_list, then a recipe saved from that ref. */
async function savedFromRef(t) {
  const { srv, project } = await recipeServer(t);
  const dir = tempDir(t, 'gb-recipe-desk-');
  const session = await startDesktop(srv);
  const out = await launchShell(srv, session, dir, 'dialog', `zenity --question --title Sure --text 'Proceed?'`);
  await srv.ok('wait_for', { session, text: 'Proceed?', timeout_ms: ms(15000) });
  const yes = (await srv.ok('find', { session, role: 'push button', text: 'Yes', exact: true, app: 'zenity' })).sc.matches[0];
  assert.ok(yes?.ref, 'find shows the Yes button');
  const win = (await srv.ok('window_list', { session })).sc.windows.find((w) => w.title === 'Sure');
  assert.ok(win, 'window_list shows the dialog');
  const saved = await srv.ok('recipe_save', { name: 'confirm', steps: [{ tool: 'click', arguments: { ref: yes.ref } }] });
  assert.match(textOf(saved), /1 ref saved as locators/);
  const step = saved.sc.recipe.steps[0];
  assert.equal(step.arguments.ref, undefined, 'the dead ref is not kept');
  const cx = yes.bounds.x + Math.floor(yes.bounds.width / 2);
  const cy = yes.bounds.y + Math.floor(yes.bounds.height / 2);
  assert.deepEqual(step.locator, {
    role: 'push button',
    name: 'Yes',
    app: 'zenity',
    screen: { x: cx, y: cy },
    window: 'Sure',
    point: { x: cx - win.bounds.x, y: cy - win.bounds.y },
  });
  // The dialog moves; wait until the accessibility tree says so too.
  await srv.ok('window_manage', { session, window: 'Sure', action: 'move', x: win.bounds.x + 150, y: win.bounds.y + 100 });
  const end = Date.now() + ms(10000);
  for (;;) {
    const now = (await srv.ok('find', { session, role: 'push button', text: 'Yes', exact: true, app: 'zenity' })).sc.matches[0];
    if (now && now.bounds.x !== yes.bounds.x) break;
    assert.ok(Date.now() < end, 'the dialog did not move');
    await sleep(100);
  }
  return { srv, project, out };
}

test('a recipe saved from a ref finds the button again after the dialog moved (healed)', topts(), async (t) => {
  const { srv, out } = await savedFromRef(t);
  const strict = await srv.ok('recipe_run', { name: 'confirm', strict: true });
  assert.equal(strict.sc.status, 'failed');
  assert.equal(strict.sc.steps[0].error.code, 'not_found');
  assert.match(strict.sc.steps[0].error.message, /locator push button "Yes" not found .*\(strict\)/);
  const r = await srv.ok('recipe_run', { name: 'confirm' });
  assert.equal(r.sc.status, 'ok', textOf(r));
  assert.equal(r.sc.steps[0].by, 'ref');
  assert.equal(r.sc.steps[0].healed, true);
  assert.equal(await outputOf(out), 'status=0\n', 'Yes was pressed');
});

test('when the name no longer matches, the saved point in the moved window is used', topts(), async (t) => {
  const { srv, project, out } = await savedFromRef(t);
  const file = join(project, 'confirm.recipe.json');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  doc.steps[0].locator.name = 'Yes please';
  writeFileSync(file, JSON.stringify(doc));
  const r = await srv.ok('recipe_run', { name: 'confirm' });
  assert.equal(r.sc.status, 'ok', textOf(r));
  assert.equal(r.sc.steps[0].by, 'point');
  assert.equal(r.sc.steps[0].healed, true);
  assert.equal(await outputOf(out), 'status=0\n', 'Yes was pressed at its point in the moved window');
});
