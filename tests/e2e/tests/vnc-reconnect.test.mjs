// reconnect_s on a real Xvnc: a server that dies and comes back on the same
// display is connected to again, with the same session and password; calls
// during the gap fail with device_unavailable saying so (screenshots wait a
// little first); a server that stays away ends the session once the time is up.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { decodePng, imageOf, ms, pixel, startServer, topts, until } from '../lib/terminal.mjs';
import { startXvnc, xrun } from '../lib/vnc.mjs';

const PASSWORD = 'Rec0nnect';
const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(120000), ...extra }));
const errorOf = (r) => r.structuredContent.error;

async function colourAt(srv, id, x, y) {
  const r = await srv.call('screenshot', { session: id, format: 'png' });
  if (r.isError) return null;
  return pixel(decodePng(imageOf(r).data), x, y);
}
const near = (rgb, want) => rgb && rgb.every((c, i) => Math.abs(c - want[i]) < 9);

test('reconnect_s: a server that dies and comes back is connected to again; calls in the gap say so', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240, password: PASSWORD });
  xrun(xvnc, 'xsetroot', ['-solid', '#20c040']);
  const srv = await startServer(t, { env: { GB_VNC_PW: PASSWORD } });
  const c = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, password_env: 'GB_VNC_PW', reconnect_s: 60 })).sc;
  assert.ok(near(await colourAt(srv, c.id, 10, 10), [0x20, 0xc0, 0x40]));

  // The server dies: the session stays, calls say the connection is being made again.
  xvnc.kill();
  await until(async () => (await srv.ok('session_list', {})).sc.sessions.find((x) => x.id === c.id)?.reconnecting === true, ms(10000), 'the session says it is reconnecting');
  let r = await srv.call('click', { session: c.id, x: 5, y: 5 });
  assert.equal(errorOf(r).code, 'device_unavailable');
  assert.match(errorOf(r).message, /dropped and is being made again \(for up to 60 s after the drop\)/);
  r = await srv.call('screenshot', { session: c.id });
  assert.equal(errorOf(r).code, 'device_unavailable', 'a screenshot waits, then says so');

  // It comes back (a new X server, another colour): same session, password used again.
  await xvnc.restart();
  xrun(xvnc, 'xsetroot', ['-solid', '#3050e0']);
  await until(async () => near(await colourAt(srv, c.id, 10, 10), [0x30, 0x50, 0xe0]), ms(20000), 'the new server\'s screen in a screenshot');
  const listed = (await srv.ok('session_list', {})).sc.sessions.find((x) => x.id === c.id);
  assert.equal(listed.reconnecting, undefined);
  assert.equal(listed.state, 'live');
  await srv.ok('click', { session: c.id, x: 5, y: 5 });
  assert.ok(!srv.stderr().includes(PASSWORD), 'the password is not logged');
  await srv.ok('session_stop', { session: c.id });
  await srv.close();
});

test('reconnect_s: a server that stays away ends the session once the time is up', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  const srv = await startServer(t);
  const c = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, reconnect_s: 2 })).sc;
  await srv.ok('screenshot', { session: c.id });
  xvnc.kill();
  let last;
  await until(async () => {
    last = await srv.call('screenshot', { session: c.id });
    return last.isError && errorOf(last).code === 'session_expired';
  }, ms(20000), 'the session ends');
  assert.match(errorOf(last).message, /the VNC connection ended and was not made again within 2 s/);
  // Stopping a session between two tries ends it at once.
  await xvnc.restart();
  const d = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, reconnect_s: 600 })).sc;
  xvnc.kill();
  await until(async () => (await srv.ok('session_list', {})).sc.sessions.find((x) => x.id === d.id)?.reconnecting === true, ms(10000), 'reconnecting');
  await srv.ok('session_stop', { session: d.id });
  const r = await srv.call('screenshot', { session: d.id });
  assert.equal(errorOf(r).code, 'session_expired');
  await srv.close();
});
