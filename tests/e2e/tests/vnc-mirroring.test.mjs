// iphone_mirroring on vnc_connect: press_button and launch_app become the
// macOS shortcuts of iPhone Mirroring (cmd+1 home, cmd+2 app switcher, cmd+3
// search, then the app's name and Return). No Mac here: a real Xvnc, with
// xev on its root window writing down the keys that arrive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { ms, startServer, textOf, topts, until } from '../lib/terminal.mjs';
import { startXvnc } from '../lib/vnc.mjs';

const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(60000), ...extra }));
const errorOf = (r) => r.structuredContent.error;

/** The keysym names of the key presses xev sees on the root window. */
function keyLog(t, xvnc) {
  const xev = spawn('xev', ['-root', '-event', 'keyboard'], { env: xvnc.env, stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => xev.kill('SIGKILL'));
  let out = '';
  xev.stdout.on('data', (d) => (out += d));
  // Xvnc adds Caps_Lock or Shift around an upper-case letter (its keymap).
  return () => [...out.matchAll(/KeyPress event[\s\S]*?keysym 0x[0-9a-f]+, (\w+)\)/g)].map((m) => m[1]).filter((k) => !/^(Caps_Lock|Shift_L)$/.test(k));
}

test('iphone_mirroring: press_button and launch_app are iPhone Mirroring\'s shortcuts', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  const keys = keyLog(t, xvnc);
  const srv = await startServer(t);
  const plain = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display })).sc;
  let r = await srv.call('press_button', { session: plain.id, button: 'home' });
  assert.equal(errorOf(r).code, 'not_supported');
  assert.match(errorOf(r).message, /"iphone_mirroring": true/);

  const phone = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, iphone_mirroring: true })).sc;
  assert.equal(phone.iphone_mirroring, true);
  // Xvnc's root gets the keys while the pointer is over it.
  await srv.ok('click', { session: phone.id, x: 160, y: 120 });
  await new Promise((res) => setTimeout(res, 300));
  const home = await srv.ok('press_button', { session: phone.id, button: 'home' });
  assert.equal(home.sc.keys, 'cmd+1');
  await until(async () => keys().join(' ') === 'Super_L 1', ms(5000), `cmd+1 arrives (saw ${keys().join(' ')})`);
  await srv.ok('press_button', { session: phone.id, button: 'app_switch' });
  await until(async () => keys().slice(2).join(' ') === 'Super_L 2', ms(5000), `cmd+2 arrives (saw ${keys().join(' ')})`);
  const launched = await srv.ok('launch_app', { session: phone.id, app: 'Notes' });
  assert.equal(launched.sc.app, 'Notes');
  assert.match(textOf(launched), /searched for Notes on the phone \(cmd\+3\)/);
  await until(async () => keys().slice(4).join(' ') === 'Super_L 3 N o t e s Return', ms(5000), `the search, the name and Return (saw ${keys().join(' ')})`);
  r = await srv.call('press_button', { session: phone.id, button: 'volume_up' });
  assert.equal(errorOf(r).code, 'not_supported');
  assert.match(errorOf(r).message, /home \(cmd\+1\), app_switch \(cmd\+2\) and search \(cmd\+3\) only, not volume_up/);
  await srv.close();
});
