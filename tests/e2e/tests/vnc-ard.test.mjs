// Apple's security type 30 (macOS Screen Sharing with a macOS account),
// against a small fake server doing the server side of the handshake
// (tests/e2e/lib/rfb-ard.mjs): the right account connects and shows the
// server's pixels; a wrong password is a clear error; without a user name
// the error says what to give; the password is never shown.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { assertColour, decodePng, imageOf, ms, pixel, startServer, topts } from '../lib/terminal.mjs';
import { startArdServer } from '../lib/rfb-ard.mjs';

const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(60000), ...extra }));
const errorOf = (r) => r.structuredContent.error;
const PASSWORD = 'mac-Pa55wörd';

test('Apple type 30: a macOS account connects; a wrong password or no user name is a clear error', vncOpts(), async (t) => {
  const mac = await startArdServer(t, { username: 'alice', password: PASSWORD });
  const srv = await startServer(t);
  const c = (await srv.ok('vnc_connect', { host: '127.0.0.1', port: mac.port, username: 'alice', password: PASSWORD })).sc;
  assert.equal(c.security_type, 'ard');
  assert.equal(c.server_name, 'fake Mac');
  assert.deepEqual([c.width, c.height], [64, 48]);
  assert.deepEqual(mac.seen.at(-1), { username: 'alice', password: PASSWORD }, 'the server decrypted what was sent');
  const png = decodePng(imageOf(await srv.ok('screenshot', { format: 'png' })).data);
  assertColour(pixel(png, 5, 20), mac.left, 2, 'the left half');
  assertColour(pixel(png, 60, 20), mac.right, 2, 'the right half');
  await srv.ok('click', { x: 10, y: 10 });

  let r = await srv.call('vnc_connect', { host: '127.0.0.1', port: mac.port, username: 'alice', password: 'wrong' });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /rejected the credentials .*wrong user name or password/);
  r = await srv.call('vnc_connect', { host: '127.0.0.1', port: mac.port, password: PASSWORD });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /macOS account \(Apple's type 30\): give "username"/);
  assert.ok(!srv.stderr().includes(PASSWORD), 'the password is not logged');
  await srv.close();
});
