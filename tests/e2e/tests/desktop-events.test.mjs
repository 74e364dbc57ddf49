// The events resource of a desktop session: windows opened, focused and
// closed, and the exit of a program it started, told to a subscriber.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { startDesktop } from '../lib/desktop.mjs';
import { deadline, sleep } from '../lib/server.mjs';
import { ms, startServer, desktopOpts as topts } from '../lib/terminal.mjs';

async function eventsOf(srv, uri) {
  return JSON.parse((await srv.client.readResource({ uri })).contents[0].text).events;
}

async function untilEvent(srv, uri, pred, what) {
  let events = [];
  await deadline(
    (async () => {
      for (;;) {
        events = await eventsOf(srv, uri);
        if (events.some(pred)) return;
        await sleep(50);
      }
    })(),
    ms(15000),
    `${what} in ${uri}`,
  );
  return events;
}

test('a desktop events resource tells of a window opening, and of it closing', topts(), async (t) => {
  const srv = await startServer(t, { args: ['--subscribe-interval', '50'] });
  const session = await startDesktop(srv);
  const uri = `glovebox://session/${session}/events`;
  const heard = [];
  srv.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.push(n.params.uri));
  await srv.client.subscribeResource({ uri });
  assert.deepEqual(await eventsOf(srv, uri), [], 'an empty desktop has no news');

  await srv.ok('launch_app', { session, command: ['xmessage', '-title', 'EventsProbe', 'hello events'] });
  await deadline(
    (async () => {
      while (!heard.includes(uri)) await sleep(10);
    })(),
    ms(15000),
    'notifications/resources/updated for the events',
  );
  const opened = await untilEvent(srv, uri, (e) => e.type === 'window_opened' && e.title === 'EventsProbe', 'window_opened');
  const ev = opened.find((e) => e.type === 'window_opened');
  assert.match(ev.window, /^0x[0-9a-f]+$/);
  assert.ok(Number.isInteger(ev.seq) && ev.seq >= 1);

  await srv.ok('window_manage', { session, window: 'EventsProbe', action: 'close' });
  const closed = await untilEvent(srv, uri, (e) => e.type === 'window_closed' && e.window === ev.window, 'window_closed');
  assert.ok(closed.find((e) => e.type === 'window_closed').seq > ev.seq);
  await untilEvent(srv, uri, (e) => e.type === 'program_exited', 'program_exited');
});

test('a subscription on a desktop screen fires when its pixels change, not while they are still', topts(), async (t) => {
  const srv = await startServer(t, { args: ['--subscribe-interval', '50'] });
  const session = await startDesktop(srv);
  const uri = `glovebox://session/${session}/screen`;
  const heard = [];
  srv.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.push(n.params.uri));
  await srv.client.subscribeResource({ uri });
  await sleep(ms(600));
  assert.deepEqual(heard, [], 'an empty desktop does not change');
  await srv.ok('launch_app', { session, command: ['xmessage', '-title', 'PixelProbe', 'pixels'] });
  await deadline(
    (async () => {
      while (!heard.includes(uri)) await sleep(10);
    })(),
    ms(15000),
    'notifications/resources/updated for the screen',
  );
  // Once the window is drawn the screen is still again.
  let n;
  do {
    n = heard.length;
    await sleep(ms(700));
  } while (heard.length !== n);
  await sleep(ms(500));
  assert.equal(heard.length, n, 'no update while the screen is still');
});
