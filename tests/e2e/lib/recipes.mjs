// Helpers for the recipe tests: a server whose recipes live in a fresh
// project directory (its cwd) and a fresh user config directory.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startServer } from './terminal.mjs';

/** A server with empty recipe directories; returns { srv, project, user }:
 * project is ./.glovebox/recipes of its cwd, user is
 * $XDG_CONFIG_HOME/glovebox/recipes. */
export async function recipeServer(t, { args = [], env = {}, projectDir = true } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'gb-recipes-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const cwd = join(home, 'work');
  const project = join(cwd, '.glovebox', 'recipes');
  const user = join(home, 'config', 'glovebox', 'recipes');
  mkdirSync(projectDir ? project : cwd, { recursive: true });
  const srv = await startServer(t, { args, cwd, env: { XDG_CONFIG_HOME: join(home, 'config'), ...env } });
  return { srv, home, project, user };
}

/** Writes a recipe file (an object is serialised) into dir. */
export function writeRecipe(dir, name, doc) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.recipe.json`), typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
}

/** The bash session the terminal recipes start. */
export const BASH = { command: ['bash', '--norc', '--noprofile'], env: { PS1: 'gb$ ', HISTFILE: '/dev/null' } };
