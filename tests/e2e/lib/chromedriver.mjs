// A chromedriver of the test's own — an endpoint glovebox did not start, so
// it has no DevTools socket there — behind a proxy that logs each request,
// for tests that check which W3C commands glovebox sent.
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';

import { ms, until } from './terminal.mjs';

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts chromedriver (HOME = home) and its logging proxy; both end with
 * the test. Returns { url: the proxy's, log: ["METHOD /path", …] }. */
export async function startLoggedChromedriver(t, home) {
  const driverPort = await freePort();
  const driver = spawn('/usr/bin/chromedriver', [`--port=${driverPort}`], { detached: true, stdio: 'ignore', env: { ...process.env, HOME: home } });
  t.after(() => {
    try {
      process.kill(-driver.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  const log = [];
  const proxy = createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    const up = request({ host: '127.0.0.1', port: driverPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  t.after(() => proxy.close());
  const listening = () =>
    new Promise((r) =>
      request({ host: '127.0.0.1', port: driverPort, path: '/status' }, (res) => {
        res.resume();
        r(res.statusCode === 200);
      })
        .on('error', () => r(false))
        .end(),
    );
  await until(listening, ms(15000), 'chromedriver to listen');
  return { url: `http://127.0.0.1:${proxy.address().port}`, log };
}
