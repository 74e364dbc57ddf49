// Desktop sessions through MCP: a private Xvfb desktop with its own bus,
// screenshots checked pixel by pixel, programs launched inside, everything
// glovebox started gone after session_stop, an existing display attached to
// and left running, and the errors a user meets.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { startDesktop } from '../lib/desktop.mjs';
import { connectClient, needs } from '../lib/server.mjs';
import {
  assertColour,
  childrenOf,
  decodePng,
  hostPid,
  imageOf,
  ms,
  pixel,
  procExists,
  procState,
  processes,
  startServer,
  tempDir,
  desktopOpts as topts,
  until,
} from '../lib/terminal.mjs';

test('a private desktop: a dialog seen in the screenshot where the accessibility tree puts it; region and scale', topts(), async (t) => {
  const srv = await startServer(t);
  const start = await srv.ok('desktop_start', { width: 800, height: 600, command: ['zenity', '--info', '--text', 'Pixels here'] });
  const session = start.sc.id;
  assert.match(session, /^desktop-\d+$/);
  assert.equal(start.sc.private, true);
  assert.equal(start.sc.width, 800);
  assert.match(start.sc.display, /^:\d+$/);
  await srv.ok('wait_for', { session, text: 'Pixels here', timeout_ms: ms(15000) });
  const snap = await srv.ok('snapshot', { session, app: 'zenity' });
  const dialog = snap.sc.elements.find((e) => e.role === 'dialog');
  assert.ok(dialog, snap.sc.outline);
  const b = dialog.bounds;

  const full = await srv.ok('screenshot', { session });
  const png = decodePng(imageOf(full).data);
  assert.equal(png.width, 800);
  assert.equal(png.height, 600);
  assert.equal(full.sc.scale, 1);
  // The bare root window is black; the dialog (a light GTK theme) is light.
  assertColour(pixel(png, 3, 3), [0, 0, 0], 0, 'the root window');
  const inside = pixel(png, b.x + 8, b.y + b.height - 8);
  assert.ok(inside.every((c) => c > 180), `inside the dialog at its bounds: rgb(${inside})`);

  const part = await srv.ok('screenshot', { session, region: { x: b.x, y: b.y, width: 200, height: 100 }, max_width: 100 });
  const small = decodePng(imageOf(part).data);
  assert.equal(small.width, 100);
  assert.equal(small.height, 50);
  assert.equal(part.sc.scale, 0.5);
  assert.deepEqual(part.sc.region, { x: b.x, y: b.y, width: 200, height: 100 });

  await srv.err('screenshot', { session, region: { x: 700, y: 0, width: 200, height: 10 } }, /off the screen \(800x600\)/);
  await srv.ok('session_stop', { session });
  await srv.close();
});

test('session_stop ends the program, the bus and Xvfb; nothing is left', topts(), async (t) => {
  const srv = await startServer(t);
  const start = await srv.ok('desktop_start', { command: ['sleep', '300'] });
  const session = start.sc.id;
  const [sleepPid] = start.sc.app_pids;
  const started = childrenOf(srv.pid).filter((p) => ['Xvfb', 'dbus-daemon', 'sleep'].includes(p.comm));
  assert.deepEqual(started.map((p) => p.comm).sort(), ['Xvfb', 'dbus-daemon', 'sleep']);
  assert.ok(started.some((p) => p.pid === sleepPid));
  const stopped = await srv.ok('session_stop', { session });
  assert.equal(stopped.sc.session.state, 'ended');
  await until(() => started.every((p) => !procExists(p.pid)), ms(5000), 'every desktop process to be gone');
  await srv.close();
});

test("what the programs print goes to the session's log, not glovebox's stderr; a flood is cut short and never blocks", topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const start = await srv.ok('desktop_start', {});
  const { id: session, log } = start.sc;
  assert.match(log, new RegExp(`/logs/${session}-${srv.pid}\\.log$`));
  await srv.ok('launch_app', { session, command: ['sh', '-c', 'echo said-on-stdout; echo said-on-stderr >&2'] });
  await until(() => /said-on-stdout\nsaid-on-stderr\n/.test(readFileSync(log, 'utf8')), ms(5000), 'the lines in the log');
  // Six MiB from a program nobody reads: kept up to 4 MiB, and it runs to its end.
  await srv.ok('launch_app', { session, command: ['sh', '-c', `head -c 6291456 /dev/zero | tr '\\0' x; touch ${dir}/finished`] });
  await until(() => existsSync(join(dir, 'finished')), ms(15000), 'the flooding program to finish');
  await srv.ok('session_stop', { session });
  const text = readFileSync(log, 'utf8');
  assert.ok(text.length <= 4 * 1024 * 1024 + 100, `${text.length} bytes kept`);
  assert.match(text, /\[glovebox: the rest of the output was left out\]\n$/);
  assert.doesNotMatch(srv.stderr(), /said-on-std|xxxxxxxx/);
  await srv.close();
});

test('attaching to an existing display: screenshots work, and stopping leaves the X server running', topts(), async (t) => {
  // Our own X server, as a user's desktop would be.
  const xvfb = spawn('Xvfb', ['-screen', '0', '640x480x24', '-nolisten', 'tcp', '-displayfd', '1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => xvfb.kill('SIGKILL'));
  const display = await new Promise((resolve) => xvfb.stdout.once('data', (d) => resolve(`:${d.toString().trim()}`)));
  const srv = await startServer(t);
  const start = await srv.ok('desktop_start', { display });
  assert.equal(start.sc.private, false);
  assert.equal(start.sc.width, 640);
  const shot = await srv.ok('screenshot', { session: start.sc.id });
  assert.equal(decodePng(imageOf(shot).data).width, 640);
  // Typing a character the keymap lacks binds a spare keycode; stopping
  // gives the keyboard back as it was found.
  const keymap = () => execFileSync('xmodmap', ['-display', display, '-pke']).toString();
  const modmap = () => execFileSync('xmodmap', ['-display', display, '-pm']).toString();
  const before = keymap();
  const modsBefore = modmap();
  await srv.ok('type_text', { session: start.sc.id, text: 'Ω' });
  assert.match(keymap(), /Greek_OMEGA|U03A9/i);
  // Meta_L is only on a shifted level here: meta gets a key of its own in mod1.
  await srv.ok('press_key', { session: start.sc.id, key: 'meta+x' });
  assert.match(keymap(), /= Meta_L Meta_L/);
  assert.notEqual(modmap(), modsBefore);
  await srv.ok('session_stop', { session: start.sc.id });
  assert.equal(keymap(), before);
  assert.equal(modmap(), modsBefore);
  assert.ok(procExists(xvfb.pid), 'the X server glovebox did not start is still running');
  await srv.close();
});

test('bad displays and bad requests get errors that say what is wrong', needs('terminal', topts()), async (t) => {
  const srv = await startServer(t);
  await srv.err('desktop_start', { display: ':98765' }, /cannot reach X display :98765/);
  const bad = await srv.call('desktop_start', { display: 'evil.example:0' });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /display/);
  await srv.err('desktop_start', { display: ':0', width: 800 }, /width\/height are for private desktops/);
  // With no session given, the newest one is meant: here the desktop that failed.
  await srv.err('launch_app', { command: ['true'] }, /session desktop-1 has ended \(could not start\)/);
  const term = await srv.ok('terminal_start', { command: ['cat'] });
  await srv.err('launch_app', { session: term.sc.id, command: ['true'] }, /is a terminal session \(launch_app needs a desktop session/);
  const desk = await startDesktop(srv);
  await srv.err('launch_app', { session: desk, command: ['/nonexistent/program'] }, /cannot run \/nonexistent\/program: No such file or directory/);
  await srv.ok('session_stop', { session: desk });
  await srv.ok('session_stop', { session: term.sc.id });
  await srv.close();
});

test('a killed glovebox leaves nothing: its desktop and what escaped its programs end with it', topts(), async (t) => {
  const srv = await startServer(t);
  if ((await srv.status()).sc.containment.mode === 'none') return t.skip('no PID namespaces here (glovebox doctor says why)');
  const pidFile = join(srv.dataDir, 'escaped.pid');
  const start = await srv.ok('desktop_start', { command: ['sh', '-c', `sleep 600 & echo $! > '${pidFile}'; wait`] });
  const xvfb = start.sc.xvfb_pid;
  assert.ok(Number.isInteger(xvfb) && procExists(xvfb), 'Xvfb runs');
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), ms(5000), 'the program to start');
  // $! is the pid inside the session's PID namespace.
  const escaped = hostPid(xvfb, Number(readFileSync(pidFile, 'utf8')));
  t.after(() => { try { if (procExists(escaped)) process.kill(escaped, 'SIGKILL'); } catch {} });
  const alive = (pid) => !['Z', 'X', null].includes(procState(pid));

  srv.child.kill('SIGKILL');
  srv.closed = true; // no clean exit to check: it was killed
  await until(() => !alive(xvfb), ms(5000), 'Xvfb to end with the glovebox that started it');
  await until(() => !alive(escaped), ms(5000), 'the escaped process to end with the glovebox that started it');
});

test('uncontained (GLOVEBOX_CONTAINMENT=none), a killed glovebox\'s desktop ends with it, and what escaped is ended by the next one', topts(), async (t) => {
  const env = { GLOVEBOX_CONTAINMENT: 'none' };
  const srv = await startServer(t, { env });
  const pidFile = join(srv.dataDir, 'escaped.pid');
  const start = await srv.ok('desktop_start', { command: ['sh', '-c', `sleep 600 & echo $! > '${pidFile}'; wait`] });
  const xvfb = start.sc.xvfb_pid;
  assert.ok(Number.isInteger(xvfb) && procExists(xvfb), 'Xvfb runs');
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), ms(5000), 'the program to start');
  const escaped = Number(readFileSync(pidFile, 'utf8'));
  t.after(() => { try { if (procExists(escaped)) process.kill(escaped, 'SIGKILL'); } catch {} });
  const alive = (pid) => !['Z', 'X', null].includes(procState(pid));

  srv.child.kill('SIGKILL');
  srv.closed = true; // no clean exit to check: it was killed
  await until(() => !alive(xvfb), ms(5000), 'Xvfb to end with the glovebox that started it');
  assert.ok(alive(escaped), 'a process whose parent ended keeps running until someone ends it');

  // The next glovebox with the same data directory ends it when it starts a desktop.
  const next = await connectClient(t, { args: ['--data-dir', srv.dataDir], env });
  const r = await next.client.callTool({ name: 'desktop_start', arguments: {} });
  assert.ok(!r.isError, JSON.stringify(r));
  await until(() => !alive(escaped), ms(5000), 'the escaped process to be ended');
  await next.client.callTool({ name: 'session_stop', arguments: { session: r.structuredContent.id } });
  await next.close();
});

test('the root window painted with xsetroot -solid reads back as that colour, at full size and scaled', topts(), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 640, height: 480 });
  await srv.ok('launch_app', { session, command: ['xsetroot', '-solid', '#3366cc'] });
  let png;
  await until(async () => {
    png = decodePng(imageOf(await srv.ok('screenshot', { session })).data);
    return pixel(png, 320, 240)[2] === 0xcc;
  }, ms(5000), 'the root to turn blue');
  assert.equal(png.width, 640);
  for (const [x, y] of [[0, 0], [639, 479], [320, 240]]) assertColour(pixel(png, x, y), [0x33, 0x66, 0xcc], 0, `pixel ${x},${y}`);
  // The server keeps it (-noreset) after xsetroot, its last client, has gone.
  const small = decodePng(imageOf(await srv.ok('screenshot', { session, max_width: 100 })).data);
  assert.equal(small.width, 100);
  assertColour(pixel(small, 50, 37), [0x33, 0x66, 0xcc], 0, 'scaled pixel');
  const jpeg = await srv.ok('screenshot', { session, format: 'jpeg', quality: 90 });
  assert.equal(imageOf(jpeg).mimeType, 'image/jpeg');
});

test('starting a desktop does not hold up other requests, and a server told to quit meanwhile leaves nothing', topts(), async (t) => {
  const srv = await startServer(t);
  const order = [];
  const starting = srv.ok('desktop_start', { command: ['sleep', '300'] }).then((r) => { order.push('desktop_start'); return r; });
  const pings = Promise.all([1, 2, 3].map(() => srv.client.ping().then(() => order.push('ping'))));
  await pings;
  const started = await starting;
  assert.deepEqual(order, ['ping', 'ping', 'ping', 'desktop_start'], 'pings are answered while Xvfb starts');
  assert.ok(procExists(started.sc.xvfb_pid));
  await srv.ok('session_stop', { session: started.sc.id });

  // Quit while a desktop is starting: the server exits cleanly and stops what it started.
  const before = new Set(childrenOf(srv.pid).map((p) => p.pid));
  srv.client.callTool({ name: 'desktop_start', arguments: { command: ['sleep', '301'] } }).catch(() => {});
  await until(() => childrenOf(srv.pid).some((p) => p.comm === 'Xvfb' && !before.has(p.pid)), ms(5000), 'Xvfb to be started');
  const mine = childrenOf(srv.pid).filter((p) => !before.has(p.pid));
  await srv.close();
  await until(() => mine.every((p) => !procExists(p.pid)), ms(5000), 'everything it started to be gone');
});

test('quitting at any moment of a desktop start exits cleanly and leaves no process', topts({ timeout: ms(120000) }), async () => {
  const { spawn } = await import('node:child_process');
  const { binary, serverEnv } = await import('../lib/server.mjs');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dataDir = mkdtempSync(join(tmpdir(), 'glovebox-quit-'));
  try {
    for (let delay = 0; delay <= 150; delay += 10) {
      const marker = String(90000 + delay);
      const child = spawn(binary(), ['serve', '--data-dir', dataDir], { stdio: ['pipe', 'ignore', 'pipe'], env: serverEnv() });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'quit', version: '1' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'desktop_start', arguments: { command: ['sleep', marker] } } });
      await new Promise((r) => setTimeout(r, delay));
      child.stdin.end();
      const [code, signal] = await new Promise((r) => child.once('exit', (c, s) => r([c, s])));
      assert.equal(signal, null, `quit after ${delay} ms: killed by ${signal}\n${stderr}`);
      assert.equal(code, 0, `quit after ${delay} ms: exit ${code}\n${stderr}`);
      assert.doesNotMatch(stderr, /Sanitizer|Assertion/);
      const cmdline = (pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return ''; // gone while we looked
        }
      };
      const left = () => processes().filter((p) => p.comm === 'sleep' && p.state !== 'Z' && cmdline(p.pid).includes(marker));
      await until(() => left().length === 0, ms(3000), `no sleep ${marker} left after quitting at ${delay} ms`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('programs that exited give their places back; 64 running programs is the bound, with a clear error', topts({ timeout: ms(180000) }), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv);
  const dir = tempDir(t);
  // Seventy programs that end at once: each leaves, so each next one may start.
  for (let i = 0; i < 70; i++) {
    const mark = join(dir, `done-${i}`);
    await srv.ok('launch_app', { session, command: ['touch', mark] });
    await until(() => existsSync(mark), ms(5000), `program ${i} to run`);
  }
  // Xvfb and the bus take two places; programs that keep running fill the rest.
  const pids = [];
  for (let i = 0; i < 62; i++) pids.push((await srv.ok('launch_app', { session, command: ['sleep', '3003.5'] })).sc.pid);
  await srv.err('launch_app', { session, command: ['sleep', '3003.5'] }, /this desktop already runs 64 programs/);
  // One ends: its place is free again (launch_app's pid is the one glovebox sees).
  process.kill(pids[0], 'SIGTERM');
  await until(async () => !(await srv.ok('session_list', {})).sc.sessions.find((s) => s.id === session).app_pids.includes(pids[0]), ms(5000), 'the program to be gone');
  await srv.ok('launch_app', { session, command: ['sleep', '3003.5'] });
  await srv.ok('session_stop', { session });
  await srv.close();
});
