// A VNC screen reports no changes of its own: while a client is subscribed
// to it, glovebox looks at it every second and tells the client when it
// changed, and nothing while it is still.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { deadline, needs, sleep } from '../lib/server.mjs';
import { ms, startServer, topts } from '../lib/terminal.mjs';
import { startXvnc, xrun } from '../lib/vnc.mjs';

test('a subscription on a VNC screen fires when the remote screen changes, not while it is still', needs('vnc', topts({ timeout: ms(90000) })), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  xrun(xvnc, 'xsetroot', ['-solid', '#20c040']);
  const srv = await startServer(t, { args: ['--subscribe-interval', '50'] });
  const c = await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display });
  const uri = `glovebox://session/${c.sc.id}/screen`;
  const heard = [];
  srv.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.push(n.params.uri));
  await srv.client.subscribeResource({ uri });
  // Two looks (a second apart) of a still screen: nothing to tell.
  await sleep(ms(2500));
  assert.deepEqual(heard, [], 'a still screen sends nothing');
  xrun(xvnc, 'xsetroot', ['-solid', '#3050e0']);
  await deadline(
    (async () => {
      while (!heard.includes(uri)) await sleep(20);
    })(),
    ms(10000),
    'notifications/resources/updated for the VNC screen',
  );
});
