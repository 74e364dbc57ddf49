// The live viewer over HTTPS (--tls-cert): the page's WebSocket is WSS,
// served by libwebsockets with the same checks and limits as over plain
// HTTP.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { join } from 'node:path';

import { ms, needs } from '../lib/server.mjs';
import { tempDir } from '../lib/terminal.mjs';
import { browserOpts, launchBrowser, makeLink, startViewerServer, waitInPage } from '../lib/viewer.mjs';

test('viewer over HTTPS: the WebSocket is WSS; live terminal text, overlays; bad input closes that page only; no cookie, no socket', needs('terminal', browserOpts({ timeout: ms(90000) })), async (t) => {
  const dir = tempDir(t, 'glovebox-viewer-tls-');
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const { srv, base } = await startViewerServer(t, { args: ['--tls-cert', cert, '--tls-key', key] });
  assert.match(base, /^https:\/\//);
  const term = await srv.bash();
  const { link } = await makeLink(srv, ['--session', term.id, '--role', 'control']);
  const browser = await launchBrowser(t);
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(link);
  await waitInPage(page, () => document.body.dataset.state === 'connected', null, 'the page to connect over WSS');
  await srv.ok('type_text', { session: term.id, text: 'echo over-$((40+2))-tls\n' });
  await waitInPage(page, () => window.gbView.view?.lines?.().some((l) => l === 'over-42-tls'), null, 'live output over WSS');
  const drawn = await srv.ok('overlay_draw', { session: term.id, shapes: [{ kind: 'label', x: 10, y: 10, text: 'here' }] });
  await waitInPage(page, (id) => window.gbView.overlays.ids().includes(id), drawn.sc.ids[0], 'the overlay over WSS');

  // A second socket from the same page (it has the cookie): a message over
  // 64 KiB closes it with 1009, a flood with 1008; the page itself goes on.
  const closes = await page.evaluate(async () => {
    const one = (send) => new Promise((resolve) => {
      const ws = new WebSocket(`wss://${location.host}/view/ws`, 'glovebox.view.v1');
      let opened = false, got = 0;
      ws.onopen = () => { opened = true; };
      ws.onmessage = () => { if (!got++) send(ws); };
      ws.onclose = (e) => resolve([e.code, e.reason, opened, got]);
    });
    return [
      await one((ws) => ws.send('x'.repeat(70000))),
      await one((ws) => { for (let i = 0; i < 1000; i++) ws.send('{"type":"unwatch"}'); }),
    ];
  });
  assert.equal(closes[0][0], 1009, JSON.stringify(closes));
  assert.match(closes[0][1], /too big/);
  assert.equal(closes[1][0], 1008, JSON.stringify(closes));
  await srv.ok('type_text', { session: term.id, text: 'echo still-$((6*7))\n' });
  await waitInPage(page, () => window.gbView.view?.lines?.().some((l) => l === 'still-42'), null, 'the page still live');

  // Without the cookie (another browser context), no socket.
  const other = await browser.newContext({ ignoreHTTPSErrors: true });
  const stranger = await other.newPage();
  await stranger.goto(`${base}/view`);
  await waitInPage(stranger, () => document.body.dataset.state === 'refused', null, 'the page without a link to be refused');
  assert.match(await stranger.textContent('#message'), /glovebox view/);
});
