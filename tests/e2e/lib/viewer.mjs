// Helpers for the live viewer tests: a server on stdio (the MCP client that
// starts sessions) and on HTTP (the viewer), links from `glovebox view`, and
// a real browser (Debian chromium through playwright-core).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import { freePort } from './http.mjs';
import { deadline, ms, runCli, sleep } from './server.mjs';
import { startServer } from './terminal.mjs';

export const CHROMIUM = process.env.GLOVEBOX_CHROMIUM ?? '/usr/bin/chromium';
/** Test options: skipped, saying why, without a browser. */
export const browserOpts = (extra = {}) =>
  existsSync(CHROMIUM) ? extra : { ...extra, skip: `no browser at ${CHROMIUM} (apt-get install chromium)` };

/** A server serving stdio (srv.ok…) and HTTP; resolves { srv, base }. */
export async function startViewerServer(t, { args = [], env = {} } = {}) {
  const port = await freePort();
  const srv = await startServer(t, { args: ['--stdio', '--http', `127.0.0.1:${port}`, ...args], env });
  const urlFile = join(srv.dataDir, 'viewer', `serve-${srv.pid}.url`);
  const end = Date.now() + ms(10000);
  while (!existsSync(urlFile)) {
    assert.ok(Date.now() < end, 'the server wrote where the viewer listens');
    await sleep(20);
  }
  return { srv, base: readFileSync(urlFile, 'utf8').trim() };
}

/** `glovebox view ARGS` for srv; resolves { link, id, secret }. */
export async function makeLink(srv, args = []) {
  const r = await runCli(['view', '--data-dir', srv.dataDir, ...args]);
  assert.equal(r.code, 0, r.stderr);
  const link = r.stdout.trim();
  const m = /#([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/.exec(link);
  assert.ok(m, `a link with its secret after #: ${link}`);
  return { link, id: m[1], secret: m[2], stderr: r.stderr };
}

/** A headless chromium, closed after t. */
export async function launchBrowser(t) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  return browser;
}

/** Waits until fn() (in the page) is truthy; resolves its value. */
export async function waitInPage(page, fn, arg, what, timeoutMs = ms(15000)) {
  const handle = await deadline(page.waitForFunction(fn, arg, { timeout: timeoutMs, polling: 50 }), timeoutMs + 1000, what);
  return handle.jsonValue();
}

/** The rows a terminal shows in the page. */
export function screenLines(page) {
  return page.evaluate(() => (window.gbView.view && window.gbView.view.lines ? window.gbView.view.lines() : null));
}
