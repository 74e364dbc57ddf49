// The clipboard of desktop sessions through MCP: text glovebox puts there is
// what other programs paste (xclip stands in for them), what they copy is
// what clipboard_get returns, in any language, at megabyte sizes (ICCCM INCR
// both ways), for CLIPBOARD and PRIMARY; and the errors and endings a user
// meets — an empty clipboard, a terminal session, an owner that does not
// answer, a session stopped while glovebox owns the clipboard.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { test } from 'node:test';

import { childrenOf, ms, procExists, startServer, textOf, desktopOpts as topts, until } from '../lib/terminal.mjs';
import { needs } from '../lib/server.mjs';

const NON_ASCII = 'héllo wörld ✓ 日本';

/** Starts a private desktop; resolves {session, display}. */
async function desktop(srv, args = {}) {
  const sc = (await srv.ok('desktop_start', args)).sc;
  return { session: sc.id, display: sc.display };
}

/** Runs xclip to completion on display; resolves {code, stdout (Buffer), stderr}. */
function xclip(display, args, input) {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'xclip',
      args,
      { env: { ...process.env, DISPLAY: display }, encoding: 'buffer', maxBuffer: 64 << 20, timeout: ms(15000) },
      (error, stdout, stderr) => {
        if (error && error.killed) reject(new Error(`xclip ${args.join(' ')} timed out`));
        else resolve({ code: error ? error.code : 0, stdout, stderr: stderr.toString() });
      },
    );
    if (input !== undefined) child.stdin.end(input);
  });
}

/** What a program pastes from the selection: xclip -o, which must succeed. */
async function paste(display, selection = 'clipboard', target) {
  const r = await xclip(display, ['-selection', selection, '-o', ...(target ? ['-t', target] : [])]);
  assert.equal(r.code, 0, `xclip -o failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * Another program copies text: xclip -i, kept in the foreground (-quiet) so
 * its pid is the one serving the selection; killed when the test ends.
 */
function copyElsewhere(t, display, text, selection = 'clipboard', target) {
  const child = spawn('xclip', ['-quiet', '-selection', selection, ...(target ? ['-t', target] : []), '-i'], {
    env: { ...process.env, DISPLAY: display },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
  child.stdin.end(text);
  return child;
}

/** clipboard_get until it returns want (xclip owns the selection only once it has read its input). */
async function getWhenItHolds(srv, session, want, selection = 'clipboard') {
  let last;
  const held = await until(
    async () => {
      last = (await srv.ok('clipboard_get', { session, selection })).sc;
      return last.text === want;
    },
    ms(10000),
    `clipboard_get to return the ${want.length}-character text`,
  ).then(() => true, (e) => e);
  assert.equal(held, true, `${held.message}; last: ${JSON.stringify(last)?.slice(0, 300)}`);
  return last;
}

test('clipboard_set: programs on the desktop paste exactly that text, in any language', topts(), async (t) => {
  const srv = await startServer(t);
  const { session, display } = await desktop(srv);

  const set = await srv.ok('clipboard_set', { session, text: 'hello, clipboard' });
  assert.deepEqual(set.sc, { session, selection: 'clipboard', bytes: 16 });
  assert.equal((await paste(display)).toString('utf8'), 'hello, clipboard');

  const set2 = await srv.ok('clipboard_set', { session, text: NON_ASCII, secret: true });
  assert.equal(set2.sc.bytes, Buffer.byteLength(NON_ASCII));
  assert.equal((await paste(display)).toString('utf8'), NON_ASCII);
  assert.equal((await paste(display, 'clipboard', 'text/plain;charset=utf-8')).toString('utf8'), NON_ASCII);
  // What glovebox offers: UTF-8 always; STRING (Latin-1) only for text that fits it.
  const targets = (await paste(display, 'clipboard', 'TARGETS')).toString().split('\n');
  for (const name of ['TARGETS', 'UTF8_STRING', 'TEXT', 'text/plain;charset=utf-8', 'TIMESTAMP']) assert.ok(targets.includes(name), `${name} in ${targets}`);
  assert.ok(!targets.includes('STRING'), 'STRING offered for text Latin-1 cannot hold');
  const refused = await xclip(display, ['-selection', 'clipboard', '-o', '-t', 'STRING']);
  assert.notEqual(refused.code, 0, 'STRING of Japanese text is refused, not mangled');

  await srv.ok('clipboard_set', { session, text: 'café' });
  assert.deepEqual(await paste(display, 'clipboard', 'STRING'), Buffer.from('café', 'latin1'));

  // glovebox answers from what it holds, and says it is the owner.
  const got = await srv.ok('clipboard_get', { session });
  assert.equal(got.sc.text, 'café');
  assert.equal(got.sc.owner, true);
  assert.equal(got.sc.empty, false);
  assert.equal(textOf(got), 'café');
  // One call at a time, in the order sent: a read sent after a set sees it.
  const [, seen] = await Promise.all([srv.ok('clipboard_set', { session, text: 'in order' }), srv.ok('clipboard_get', { session })]);
  assert.equal(seen.sc.text, 'in order');
  await srv.ok('session_stop', { session });
  await srv.close();
});

test('clipboard_get returns what another program copied; a later copy replaces glovebox\'s text', topts(), async (t) => {
  const srv = await startServer(t);
  const { session, display } = await desktop(srv);
  const first = copyElsewhere(t, display, NON_ASCII);
  const got = await getWhenItHolds(srv, session, NON_ASCII);
  assert.equal(got.bytes, Buffer.byteLength(NON_ASCII));
  assert.equal(got.owner, false);
  assert.equal(got.empty, false);
  assert.match(got.owner_window, /^0x[0-9a-f]+$/);
  first.kill('SIGKILL');

  await srv.ok('clipboard_set', { session, text: 'from glovebox' });
  const other = copyElsewhere(t, display, 'copied after');
  const after = await getWhenItHolds(srv, session, 'copied after');
  assert.equal(after.owner, false, 'glovebox let go when the other program copied');
  other.kill('SIGKILL');

  // A program that holds an image, not text.
  const image = copyElsewhere(t, display, Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'clipboard', 'image/png');
  let text;
  await until(
    async () => {
      const r = await srv.call('clipboard_get', { session });
      text = textOf(r);
      return r.isError;
    },
    ms(10000),
    'clipboard_get to fail on an image',
  );
  assert.match(text, /cannot read the clipboard: the owner of CLIPBOARD \(window 0x[0-9a-f]+\) holds image\/png, not text/);
  image.kill('SIGKILL');
  await srv.ok('session_stop', { session });
  await srv.close();
});

test('megabytes of text go both ways, in pieces (INCR)', topts({ timeout: ms(120000) }), async (t) => {
  const srv = await startServer(t);
  const { session, display } = await desktop(srv);
  // 3 MiB and more: above glovebox's 64 KiB pieces and xclip's 1 MiB ones.
  const line = `${NON_ASCII} 0123456789 the quick brown fox\n`;
  const big = line.repeat(Math.ceil((3 << 20) / Buffer.byteLength(line)));
  const set = await srv.ok('clipboard_set', { session, text: big });
  assert.equal(set.sc.bytes, Buffer.byteLength(big));
  const pasted = await paste(display);
  assert.equal(pasted.length, Buffer.byteLength(big));
  assert.ok(pasted.equals(Buffer.from(big)), 'the pasted megabytes are the text set');

  const other = big.replaceAll('fox', 'cat');
  const owner = copyElsewhere(t, display, other);
  const got = await getWhenItHolds(srv, session, other);
  assert.equal(got.bytes, Buffer.byteLength(other));
  assert.equal(got.owner, false);
  owner.kill('SIGKILL');
  await srv.ok('session_stop', { session });
  await srv.close();
});

test('the primary selection is separate from the clipboard', topts(), async (t) => {
  const srv = await startServer(t);
  const { session, display } = await desktop(srv);
  const set = await srv.ok('clipboard_set', { session, selection: 'primary', text: 'selected with the mouse' });
  assert.equal(set.sc.selection, 'primary');
  assert.equal((await paste(display, 'primary')).toString(), 'selected with the mouse');
  const clip = await srv.ok('clipboard_get', { session });
  assert.equal(clip.sc.empty, true, 'CLIPBOARD untouched');

  const owner = copyElsewhere(t, display, NON_ASCII, 'primary');
  const got = await getWhenItHolds(srv, session, NON_ASCII, 'primary');
  assert.equal(got.selection, 'primary');
  owner.kill('SIGKILL');
  await srv.ok('session_stop', { session });
  await srv.close();
});

test('an empty clipboard, a terminal session and bad arguments get clear answers', needs('terminal', topts()), async (t) => {
  const srv = await startServer(t);
  const { session } = await desktop(srv);
  const empty = await srv.ok('clipboard_get', { session });
  assert.deepEqual(empty.sc, { session, selection: 'clipboard', text: '', bytes: 0, empty: true, owner: false });
  assert.equal(textOf(empty), 'the clipboard is empty');
  const primary = await srv.ok('clipboard_get', { session, selection: 'primary' });
  assert.equal(textOf(primary), 'the primary selection is empty');

  await srv.err('clipboard_get', { session, selection: 'secondary' }, /selection/);
  await srv.err('clipboard_set', { session }, /text/);

  const term = await srv.ok('terminal_start', { command: ['cat'] });
  await srv.err('clipboard_get', { session: term.sc.id }, /cannot read the clipboard: not supported by terminal sessions/);
  await srv.err('clipboard_set', { session: term.sc.id, text: 'x' }, /cannot set the clipboard: not supported by terminal sessions/);
  await srv.ok('session_stop', { session: term.sc.id });
  await srv.ok('session_stop', { session });
  await srv.err('clipboard_get', { session }, /session desktop-\d+ has ended/);
  await srv.close();
});

test('an owner that does not answer: an error after 2 s naming its window; a stop answers the waiting call', topts(), async (t) => {
  const srv = await startServer(t);
  const { session, display } = await desktop(srv);
  const owner = copyElsewhere(t, display, 'frozen');
  await getWhenItHolds(srv, session, 'frozen');
  owner.kill('SIGSTOP');
  const t0 = Date.now();
  await srv.err('clipboard_get', { session }, /cannot read the clipboard: the owner of CLIPBOARD \(window 0x[0-9a-f]+\) did not answer within 2 s/);
  assert.ok(Date.now() - t0 >= 1900, 'it waited the 2 s');
  // A read the client cancels does not hold up the calls behind it.
  const abort = new AbortController();
  const cancelled = srv.call('clipboard_get', { session }, { signal: abort.signal }).catch((e) => e);
  setTimeout(() => abort.abort(), 200);
  const t1 = Date.now();
  await srv.ok('clipboard_set', { session, text: 'after the cancelled read' });
  assert.ok(Date.now() - t1 < 1500, `clipboard_set waited ${Date.now() - t1} ms behind a cancelled read`);
  assert.match(String(await cancelled), /abort/i);
  assert.equal((await paste(display)).toString(), 'after the cancelled read');
  // Another program copies again: the frozen one lost the clipboard, so freeze a new one.
  owner.kill('SIGCONT');
  owner.kill('SIGKILL');
  const frozen = copyElsewhere(t, display, 'frozen again');
  await getWhenItHolds(srv, session, 'frozen again');
  frozen.kill('SIGSTOP');

  // The server kept answering meanwhile, and answers a stop while a read waits.
  const waiting = srv.call('clipboard_get', { session });
  await srv.ok('session_list');
  await srv.ok('session_stop', { session });
  const r = await waiting;
  assert.equal(r.isError, true);
  assert.match(textOf(r), /cannot read the clipboard: the session ended/);
  frozen.kill('SIGCONT');
  frozen.kill('SIGKILL');
  await srv.close();
});

test('session_stop while glovebox owns the clipboard: nothing left running, the selection let go', topts(), async (t) => {
  const srv = await startServer(t);
  const { session } = await desktop(srv);
  await srv.ok('clipboard_set', { session, text: 'owned at the end' });
  await srv.ok('clipboard_set', { session, selection: 'primary', text: 'this too' });
  const started = childrenOf(srv.pid);
  // The session's programs, its window manager and the init of its PID namespace (containment.md); no clipboard helper.
  const expected = ['Xvfb', 'dbus-daemon', 'openbox'];
  if (started.some((p) => p.comm === 'glovebox-pidns')) expected.push('glovebox-pidns');
  assert.deepEqual(started.map((p) => p.comm).sort(), expected.sort(), 'no helper process for the clipboard');
  await srv.ok('session_stop', { session });
  await until(() => started.every((p) => !procExists(p.pid)), ms(5000), 'every desktop process to be gone');
  assert.deepEqual(childrenOf(srv.pid), []);

  // An attached display outlives the session; the clipboard glovebox held does not.
  const xvfb = spawn('Xvfb', ['-screen', '0', '640x480x24', '-nolisten', 'tcp', '-displayfd', '1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => xvfb.kill('SIGKILL'));
  const display = await new Promise((resolve) => xvfb.stdout.once('data', (d) => resolve(`:${d.toString().trim()}`)));
  const attached = (await srv.ok('desktop_start', { display })).sc.id;
  await srv.ok('clipboard_set', { session: attached, text: 'on your display' });
  assert.equal((await paste(display)).toString(), 'on your display');
  await srv.ok('session_stop', { session: attached });
  assert.ok(procExists(xvfb.pid), 'the X server glovebox did not start is still running');
  const after = await xclip(display, ['-selection', 'clipboard', '-o']);
  assert.notEqual(after.code, 0, 'nothing to paste once the session ended');
  assert.equal(after.stdout.length, 0);
  await srv.close();
});

test('the X server dies while a read waits: a clear error, and glovebox carries on', topts(), async (t) => {
  const srv = await startServer(t);
  const { session, display } = await desktop(srv);
  const owner = copyElsewhere(t, display, 'about to vanish');
  await getWhenItHolds(srv, session, 'about to vanish');
  owner.kill('SIGSTOP');
  const waiting = srv.call('clipboard_get', { session });
  await srv.ok('session_list');
  const xvfb = childrenOf(srv.pid).find((p) => p.comm === 'Xvfb');
  process.kill(xvfb.pid, 'SIGKILL');
  const r = await waiting;
  assert.equal(r.isError, true);
  assert.match(textOf(r), /cannot read the clipboard: (lost the connection to X display :\d+ \(the X server closed it\)|the session ended)/);
  // The hang-up on the X connection can be seen before Xvfb's exit is reaped;
  // the session ends once it is.
  const state = async () => (await srv.ok('session_list', { include_ended: true })).sc.sessions.find((s) => s.id === session)?.state;
  await until(async () => (await state()) === 'ended', ms(10000), 'the session to end');
  await srv.err('clipboard_get', { session }, /session desktop-\d+ has ended \(its X server \(Xvfb\) exited\)/);
  owner.kill('SIGCONT');
  owner.kill('SIGKILL');
  await srv.close();
});

test('a GTK entry pastes what clipboard_set put there, and what it copies comes back from clipboard_get', topts(), async (t) => {
  const { launchShell, outputOf, element } = await import('../lib/desktop.mjs');
  const { tempDir } = await import('../lib/terminal.mjs');
  const srv = await startServer(t);
  const session = (await srv.ok('desktop_start', {})).sc.id;
  const out = await launchShell(srv, session, tempDir(t), 'paste', `zenity --entry --title Paste --text 'Paste here'`);
  await srv.ok('wait_for', { session, text: 'Paste here', timeout_ms: ms(15000) });
  const entry = element((await srv.ok('snapshot', { session, app: 'zenity' })).sc, 'text');
  await srv.ok('clipboard_set', { session, text: 'pasted — ünïcödé ✓' });
  await srv.ok('click', { session, ref: entry.ref });
  await srv.ok('press_key', { session, key: 'ctrl+v' });
  // GTK asks glovebox for the text and pastes when it arrives.
  await until(async () => (await srv.ok('read_text', { session, ref: entry.ref })).sc.text === 'pasted — ünïcödé ✓', ms(5000), 'the paste');
  await srv.ok('type_text', { session, text: ' + typed' });
  await srv.ok('press_key', { session, key: 'ctrl+a' });
  await srv.ok('press_key', { session, key: 'ctrl+c' });
  await until(async () => (await srv.ok('clipboard_get', { session })).sc.text === 'pasted — ünïcödé ✓ + typed', ms(5000), 'the copy to arrive');
  await srv.ok('press_key', { session, key: 'Enter' });
  assert.equal(await outputOf(out), 'pasted — ünïcödé ✓ + typed\nstatus=0\n');
});
