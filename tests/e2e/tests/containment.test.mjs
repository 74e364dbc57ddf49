// Containment: nothing a session starts outlives the session or the server —
// not a setsid'd or nohup'd background job, not a double-forked program on a
// desktop, not even after kill -9 of glovebox (each session's processes live
// in a PID namespace whose init dies with glovebox). Survivors are found by a
// unique marker argument in /proc/*/cmdline, and any found is killed (by pid)
// when the test ends.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';

import { desktopOpts, ms, procExists, startServer, terminalOpts, topts, until } from '../lib/terminal.mjs';

const ROOT = process.getuid?.() === 0;
let serial = 0;

/** A `sleep` argument no other process on the machine has. */
function marker(base) {
  serial += 1;
  return `${base}.${process.pid}${serial}`;
}

/** Pids of live processes running `sleep MARKER` (zombies have no cmdline). */
function survivors(mark) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv.includes(mark) && /(^|\/)sleep$/.test(argv[0])) out.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Kill, by pid, whatever a failed test left running with this marker. */
function cleanUp(t, mark) {
  t.after(() => {
    for (const pid of survivors(mark)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  });
}

async function started(mark) {
  await until(() => survivors(mark).length > 0, ms(10000), `sleep ${mark} to start`);
}

async function noneLeft(mark, what, timeoutMs = ms(3000)) {
  await until(() => survivors(mark).length === 0, timeoutMs, `no sleep ${mark} left ${what} (still running: ${survivors(mark)})`);
}

/** True, or the test is skipped where this machine cannot contain (doctor says why). */
async function contained(t, srv) {
  const { containment } = (await srv.status()).sc;
  if (containment.mode !== 'none') return true;
  t.skip(`no containment here: ${containment.reason}`);
  return false;
}

const MODES = ROOT
  ? [
      { name: 'pid-namespace', env: {} },
      { name: 'user+pid-namespace', env: { GLOVEBOX_CONTAINMENT: 'user' } },
    ]
  : [{ name: 'default', env: {} }];

for (const mode of MODES) {
  test(`containment (${mode.name}): a setsid'd background job ends with session_stop`, terminalOpts(), async (t) => {
    const mark = marker(3001);
    cleanUp(t, mark);
    const srv = await startServer(t, { env: mode.env });
    if (!(await contained(t, srv))) return;
    if (mode.name !== 'default') assert.equal((await srv.status()).sc.containment.mode, mode.name);
    const s = await srv.start({ command: ['sh', '-c', `setsid sleep ${mark} & exec cat`] });
    await started(mark);
    await srv.stop(s.id);
    await noneLeft(mark, 'after session_stop');
    // The server goes on starting programs.
    const again = await srv.start({ command: ['sh', '-c', 'echo still-here; exec cat'] });
    await srv.waitFor(again.id, { text: 'still-here' });
  });
}

test('containment: a setsid\'d background job ends when the server exits cleanly (stdin closed)', terminalOpts(), async (t) => {
  const mark = marker(3001);
  cleanUp(t, mark);
  const srv = await startServer(t);
  if (!(await contained(t, srv))) return;
  await srv.start({ command: ['sh', '-c', `setsid sleep ${mark} & exec cat`] });
  await started(mark);
  await srv.close();
  await noneLeft(mark, 'after the server exited');
});

test('containment: a setsid\'d background job ends when the server exits on SIGTERM', terminalOpts(), async (t) => {
  const mark = marker(3001);
  cleanUp(t, mark);
  const srv = await startServer(t);
  if (!(await contained(t, srv))) return;
  await srv.start({ command: ['sh', '-c', `setsid sleep ${mark} & exec cat`] });
  await started(mark);
  srv.closed = true;
  const exited = new Promise((resolve) => srv.child.once('exit', (code, signal) => resolve({ code, signal })));
  srv.child.kill('SIGTERM');
  const r = await exited;
  assert.deepEqual(r, { code: 0, signal: null }, srv.stderr().slice(-2000));
  await noneLeft(mark, 'after the server exited');
});

test('containment: a nohup\'d job ends within about 2 s of kill -9 of the server', terminalOpts(), async (t) => {
  const mark = marker(3002);
  cleanUp(t, mark);
  const srv = await startServer(t);
  if (!(await contained(t, srv))) return;
  await srv.start({ command: ['sh', '-c', `nohup sleep ${mark} >/dev/null 2>&1 & exec cat`] });
  await started(mark);
  srv.closed = true; // nothing to close cleanly after this
  const exited = new Promise((resolve) => srv.child.once('exit', resolve));
  process.kill(srv.pid, 'SIGKILL');
  await exited;
  await noneLeft(mark, 'after kill -9 of the server', ms(2000));
});

test('containment: programs still exit with their status, and ctrl+c still interrupts them', terminalOpts(), async (t) => {
  const srv = await startServer(t);
  const status = await srv.status();
  if (ROOT) assert.equal(status.sc.containment.mode, 'pid-namespace');
  assert.ok(['pid-namespace', 'user+pid-namespace', 'none'].includes(status.sc.containment.mode));

  const a = await srv.start({ command: ['sh', '-c', 'echo pid=$$; read x; exit 7'] });
  await srv.waitFor(a.id, { regex: 'pid=[0-9]+' });
  // Not PID 1 of its namespace, so default signal handling applies.
  assert.doesNotMatch((await srv.readText(a.id)).lines.join('\n'), /^pid=1$/m);
  await srv.type(a.id, '\n');
  assert.equal((await srv.waitFor(a.id, { exit: true })).exit_status, 7);

  const b = await srv.start({ command: ['cat'] });
  await srv.key(b.id, 'ctrl+c');
  await srv.waitFor(b.id, { exit: true });
  assert.equal((await srv.readText(b.id)).signal, 'SIGINT');

  const c = await srv.start({ command: ['sleep', marker(3003)] });
  await srv.key(c.id, 'ctrl+c');
  await srv.waitFor(c.id, { exit: true });
  assert.equal((await srv.readText(c.id)).signal, 'SIGINT');
});

test('containment: GLOVEBOX_CONTAINMENT=none runs uncontained and status says why', terminalOpts(), async (t) => {
  const srv = await startServer(t, { env: { GLOVEBOX_CONTAINMENT: 'none' } });
  const { containment } = (await srv.status()).sc;
  assert.equal(containment.mode, 'none');
  assert.match(containment.reason, /GLOVEBOX_CONTAINMENT=none/);
  const s = await srv.start({ command: ['sh', '-c', 'echo works; exec cat'] });
  await srv.waitFor(s.id, { text: 'works' });
});

test('containment: a double-forked program launched on a desktop ends with session_stop', desktopOpts(), async (t) => {
  const mark = marker(3004);
  cleanUp(t, mark);
  const srv = await startServer(t);
  if (!(await contained(t, srv))) return;
  const session = (await srv.ok('desktop_start', { width: 320, height: 240 })).sc.id;
  // The launched shell exits at once; its grandchild, in a session of its
  // own, is nobody's tracked child.
  await srv.ok('launch_app', { session, command: ['sh', '-c', `(setsid sleep ${mark} >/dev/null 2>&1 &) ; exit 0`] });
  await started(mark);
  await srv.stop(session);
  await noneLeft(mark, 'after session_stop', ms(5000));
});

test('containment: on an attached display, a double-forked launch_app program ends with session_stop; the X server stays', desktopOpts(), async (t) => {
  const mark = marker(3005);
  cleanUp(t, mark);
  // Our own X server, as a user's desktop would be.
  const xvfb = spawn('Xvfb', ['-screen', '0', '320x240x24', '-nolisten', 'tcp', '-displayfd', '1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => xvfb.kill('SIGKILL'));
  const display = await new Promise((resolve) => xvfb.stdout.once('data', (d) => resolve(`:${d.toString().trim()}`)));
  const srv = await startServer(t);
  if (!(await contained(t, srv))) return;
  const session = (await srv.ok('desktop_start', { display })).sc.id;
  await srv.ok('launch_app', { session, command: ['sh', '-c', `(setsid sleep ${mark} >/dev/null 2>&1 &) ; exit 0`] });
  await started(mark);
  await srv.stop(session);
  await noneLeft(mark, 'after session_stop', ms(5000));
  assert.ok(procExists(xvfb.pid), 'the X server glovebox did not start is still running');
});
