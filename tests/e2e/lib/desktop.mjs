// Helpers for the desktop perception tests: a private desktop, an
// application started in it whose output lands in a file the test reads
// (what a user would see in a shell), and waits on that file.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ms, sleep } from './server.mjs';

/** Starts a desktop session; resolves its id. */
export async function startDesktop(srv, args = {}) {
  return (await srv.ok('desktop_start', args)).sc.id;
}

/**
 * Runs a shell command line on the desktop (launch_app), its stdout and exit
 * status appended to <dir>/<name>.out. Resolves the file's path.
 */
export async function launchShell(srv, session, dir, name, line) {
  const out = join(dir, `${name}.out`);
  await srv.ok('launch_app', { session, command: ['sh', '-c', `${line} > '${out}.tmp'; echo "status=$?" >> '${out}.tmp'; mv '${out}.tmp' '${out}'`] });
  return out;
}

/** The file's contents once the program has ended (the file exists). */
export async function outputOf(path, timeoutMs = ms(15000)) {
  const end = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    assert.ok(Date.now() < end, `${path} did not appear within ${timeoutMs} ms`);
    await sleep(50);
  }
  return readFileSync(path, 'utf8');
}

/** The first element of a snapshot or find result with this role (and name). */
export function element(sc, role, name) {
  const list = sc.elements ?? sc.matches;
  const e = list.find((x) => x.role === role && (name === undefined || x.name === name));
  assert.ok(e, `no ${role} ${name ?? ''} in ${JSON.stringify(list).slice(0, 1500)}`);
  return e;
}

/**
 * A snapshot once the application's windows have stopped moving: a window
 * manager frames and places a new window a moment after it appears, so
 * bounds read at once may be a title bar's height off.
 */
export async function settledSnapshot(srv, session, args = { app: 'zenity' }) {
  let prev = '';
  for (let i = 0; i < 50; i++) {
    const snap = await srv.ok('snapshot', { session, ...args });
    const where = JSON.stringify(snap.sc.elements.map((e) => e.bounds));
    if (where === prev) return snap;
    prev = where;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the windows kept moving for 5 s');
}
