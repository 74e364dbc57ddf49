// A real Appium 3 server with its fake driver (@appium/fake-driver, from
// npm) for the touch paths of webdriver sessions: its own APPIUM_HOME in a
// temporary folder, the driver installed from node_modules (no network),
// listening on a free loopback port, killed when the test ends.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { E2E_DIR } from './server.mjs';
import { ms } from './terminal.mjs';

const APPIUM = resolve(E2E_DIR, 'node_modules/appium/index.js');
const FAKE = resolve(E2E_DIR, 'node_modules/@appium/fake-driver');
/** The app the fake driver shows: a page source in UiAutomator2's shape. */
export const SHOP_APP = resolve(E2E_DIR, 'lib/appium/shop.xml');

export const haveAppium = existsSync(APPIUM) && existsSync(FAKE);

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

export async function startAppium(t) {
  const home = mkdtempSync(join(tmpdir(), 'glovebox-appium-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const env = { ...process.env, APPIUM_HOME: home };
  const inst = spawnSync(process.execPath, [APPIUM, 'driver', 'install', '--source=local', FAKE], { env, encoding: 'utf8', timeout: ms(60000) });
  if (inst.status !== 0) throw new Error(`appium driver install: ${inst.stderr || inst.stdout}`);
  const port = await freePort();
  const child = spawn(process.execPath, [APPIUM, '--address', '127.0.0.1', '--port', String(port), '--log-level', 'error'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + ms(30000);
  for (;;) {
    try {
      const r = await fetch(`${url}/status`);
      if (r.ok) break;
    } catch {}
    if (child.exitCode !== null) throw new Error(`appium exited: ${log}`);
    if (Date.now() > until) throw new Error(`appium did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  /** The W3C actions the fake driver was sent, in order. */
  const actions = async (session) => {
    const r = await fetch(`${url}/session/${session}/se/log`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'actions' }) });
    return (await r.json()).value;
  };
  return { url, actions, log: () => log };
}
