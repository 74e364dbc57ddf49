// Real VNC servers for the vnc tests: TigerVNC's Xvnc (None or VncAuth) and
// x11vnc on an Xvfb display, each on a display and port nobody uses,
// listening on loopback only, killed (by pid) when the test ends.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ms } from './terminal.mjs';

/** Whether display n's lock file names a process that still runs (an X
 * server killed outright leaves its lock behind; X servers take such a
 * stale lock over). */
function lockHeld(n) {
  try {
    const pid = Number(readFileSync(`/tmp/.X${n}-lock`, 'utf8').trim());
    if (!pid) return true;
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** A display number with no X server, lock or VNC port in use. */
async function freeDisplay() {
  for (let tries = 0; tries < 200; tries++) {
    const n = 40 + Math.floor(Math.random() * 400);
    if (existsSync(`/tmp/.X${n}-lock`) ? lockHeld(n) : existsSync(`/tmp/.X11-unix/X${n}`)) continue;
    if (await portOpen(5900 + n)) continue;
    return n;
  }
  throw new Error('no free X display');
}

function portOpen(port) {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function waitPort(port, child, what) {
  const until = Date.now() + ms(15000);
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

function track(t, child) {
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  t.after(kill);
  return kill;
}

/** Xvnc on a free display, width x height; password: VncAuth with it
 * (a file made by vncpasswd -f), else SecurityTypes None; security: other
 * SecurityTypes (TLSVnc, X509Vnc, ...), args: more arguments. */
export async function startXvnc(t, { width = 640, height = 480, password, security, args: extra = [] } = {}) {
  const display = await freeDisplay();
  const port = 5900 + display;
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-vnc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const args = [`:${display}`, '-geometry', `${width}x${height}`, '-depth', '24', '-rfbport', String(port), '-localhost', '-AlwaysShared', '-nolisten', 'tcp'];
  if (password) {
    const r = spawnSync('vncpasswd', ['-f'], { input: password + '\n' });
    const file = join(dir, 'passwd');
    writeFileSync(file, r.stdout, { mode: 0o600 });
    args.push('-SecurityTypes', security ?? 'VncAuth', '-PasswordFile', file);
  } else {
    args.push('-SecurityTypes', security ?? 'None');
  }
  args.push(...extra);
  let log = '';
  const run = async () => {
    const child = spawn('Xvnc', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (d) => (log += d));
    const kill = track(t, child);
    await waitPort(port, child, 'Xvnc');
    return { child, kill };
  };
  const server = { display, port, log: () => log, env: { ...process.env, DISPLAY: `:${display}` } };
  Object.assign(server, await run());
  /** Kills this Xvnc (SIGKILL, as a crash) and starts a new one on the
   * same display and port, with the same arguments. */
  server.restart = async () => {
    server.kill();
    const c = server.child;
    if (c.exitCode === null && c.signalCode === null) await new Promise((r) => c.once('exit', r));
    Object.assign(server, await run());
  };
  return server;
}

/** Xvfb with x11vnc serving it (no password). */
export async function startX11vnc(t, { width = 800, height = 600 } = {}) {
  const display = await freeDisplay();
  const xvfb = spawn('Xvfb', [`:${display}`, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], { stdio: 'ignore' });
  track(t, xvfb);
  const until = Date.now() + ms(10000);
  while (!existsSync(`/tmp/.X11-unix/X${display}`) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const port = 5900 + display;
  const child = spawn('x11vnc', ['-display', `:${display}`, '-rfbport', String(port), '-localhost', '-nopw', '-forever', '-shared', '-quiet', '-noxdamage'], { stdio: 'ignore' });
  const kill = track(t, child);
  await waitPort(port, child, 'x11vnc');
  return { display, port, child, kill, env: { ...process.env, DISPLAY: `:${display}` } };
}

/** Runs an X client on the server's display until the test ends. */
export function xclient(t, server, cmd, args) {
  const child = spawn(cmd, args, { env: { ...server.env, PS1: 'gbvnc> ' }, stdio: 'ignore' });
  track(t, child);
  return child;
}

/** Runs an X client to completion (xsetroot). */
export function xrun(server, cmd, args) {
  const r = spawnSync(cmd, args, { env: server.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
}
