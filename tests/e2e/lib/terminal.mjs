// Helpers for the terminal end-to-end tests: a glovebox server with its own
// data directory, tool calls that assert success or failure, terminal
// sessions, image decoding and a look at the processes a session left.
//
// Every server is closed in the test's after hook, which asserts a clean
// exit (status 0, no sanitizer report); a server that does not exit is
// killed and the test fails.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import omggif from 'omggif';
import pngjs from 'pngjs';

import { REPO_DIR, SANITIZED, connectClient, ms, needs, sleep, textOf } from './server.mjs';

export { SANITIZED, ms, textOf };

// As scripts/run-tests.sh does: fontconfig keeps state for the life of the
// process, which LeakSanitizer would otherwise report at every exit.
if (SANITIZED && !process.env.LSAN_OPTIONS) {
  process.env.LSAN_OPTIONS = `suppressions=${resolve(REPO_DIR, 'tests/lsan.supp')}`;
}

/** Per-test options: a generous overall deadline (each wait has its own). */
export function topts(extra = {}) {
  return { timeout: ms(60000), ...extra };
}

/** topts for a file whose every test drives terminal sessions (import it
 * as topts): each is skipped, saying why, on a build without them. */
export const terminalOpts = (extra = {}) => needs('terminal', topts(extra));
/** The same for desktop sessions. */
export const desktopOpts = (extra = {}) => needs('desktop', topts(extra));

/** A fresh temporary directory, removed in t's after hook. */
export function tempDir(t, prefix = 'glovebox-term-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The default prompt of the bash sessions these tests start. */
export const PROMPT = 'gb$ ';

/**
 * Starts glovebox-testing with a fresh --data-dir and connects the SDK
 * client. The after hook closes stdin and asserts a clean exit (status 0, no
 * sanitizer report in stderr), then removes the data directory.
 */
export async function startServer(t, { args = [], env = {}, cwd } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'glovebox-data-'));
  let handle;
  try {
    // No t here: connectClient would register a kill that runs before our close.
    handle = await connectClient(undefined, { args: ['--data-dir', dataDir, ...args], env, cwd });
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const srv = new Server(handle, dataDir);
  t.after(async () => {
    try {
      if (!srv.closed) await srv.close();
    } finally {
      await handle.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
  return srv;
}

export class Server {
  constructor(handle, dataDir) {
    this.handle = handle;
    this.client = handle.client;
    this.child = handle.child;
    this.pid = handle.child.pid;
    this.dataDir = dataDir;
    this.closed = false;
  }

  stderr() {
    return this.handle.stderr();
  }

  /** Closes stdin and asserts a clean exit within timeoutMs. */
  async close({ timeoutMs = ms(8000) } = {}) {
    this.closed = true;
    return this.handle.close({ timeoutMs });
  }

  /** Calls a tool; resolves the raw result (errors included). If the
   * server goes away meanwhile, the error carries the end of its stderr. */
  async call(name, args = {}, options = {}) {
    try {
      return await this.client.callTool({ name, arguments: args }, undefined, { timeout: ms(60000), ...options });
    } catch (e) {
      if (this.child.exitCode !== null || this.child.signalCode !== null || /Connection closed/.test(e.message)) {
        e.message += ` (glovebox exit ${this.child.exitCode ?? this.child.signalCode}); stderr:\n${this.stderr().slice(-4000)}`;
      }
      throw e;
    }
  }

  /** Calls a tool that must succeed; resolves the result (structuredContent in .sc). */
  async ok(name, args = {}, options = {}) {
    const r = await this.call(name, args, options);
    assert.ok(!r.isError, `${name}(${JSON.stringify(args).slice(0, 300)}) failed: ${textOf(r)}`);
    assert.ok(r.structuredContent, `${name} returned no structuredContent: ${JSON.stringify(r).slice(0, 500)}`);
    r.sc = r.structuredContent;
    return r;
  }

  /** Calls a tool that must fail (isError); resolves the error text. */
  async err(name, args = {}, re) {
    const r = await this.call(name, args);
    assert.equal(r.isError, true, `${name}(${JSON.stringify(args).slice(0, 300)}) should fail, got ${JSON.stringify(r).slice(0, 500)}`);
    const text = textOf(r);
    if (re) assert.match(text, re);
    return text;
  }

  /** terminal_start; resolves its structuredContent ({id, pid, ...}). */
  async start(args = {}) {
    return (await this.ok('terminal_start', args)).sc;
  }

  /**
   * A bash session with a known prompt (PROMPT), no rc files, and the prompt
   * on screen before it resolves.
   */
  async bash({ env = {}, ...args } = {}) {
    const s = await this.start({
      command: ['bash', '--norc', '--noprofile'],
      env: { PS1: PROMPT, HISTFILE: '/dev/null', ...env },
      ...args,
    });
    await this.waitFor(s.id, { text: PROMPT });
    return s;
  }

  /** wait_for that must match; resolves its structuredContent. */
  async waitFor(session, cond, timeoutMs = ms(10000)) {
    const r = await this.ok('wait_for', { session, timeout_ms: timeoutMs, ...cond }, { timeout: timeoutMs + ms(10000) });
    if (!r.sc.matched) {
      const screen = await this.call('read_text', { session });
      assert.fail(`wait_for ${JSON.stringify(cond)} on ${session}: ${JSON.stringify(r.sc)}; screen:\n${textOf(screen)}`);
    }
    return r.sc;
  }

  /** Types text (\n is Enter) and resolves type_text's structuredContent. */
  async type(session, text) {
    return (await this.ok('type_text', { session, text })).sc;
  }

  /** Types a command line and waits for a line of its output to match re. */
  async run(session, line, re, timeoutMs) {
    await this.type(session, line + '\n');
    return this.waitFor(session, { regex: re }, timeoutMs);
  }

  async key(session, key, extra = {}) {
    return (await this.ok('press_key', { session, key, ...extra })).sc;
  }

  async readText(session, extra = {}) {
    return (await this.ok('read_text', { session, ...extra })).sc;
  }

  async snapshot(session) {
    return (await this.ok('snapshot', { session })).sc;
  }

  async stop(session) {
    return (await this.ok('session_stop', { session })).sc;
  }

  async list(includeEnded = false) {
    return (await this.ok('session_list', { include_ended: includeEnded })).sc.sessions;
  }

  /** status; resolves {sc, elapsed} (wall-clock ms of the round trip). */
  async status() {
    const t0 = performance.now();
    const r = await this.ok('status');
    return { sc: r.sc, elapsed: performance.now() - t0 };
  }
}

// ---------------------------------------------------------------------------
// Images.

/** The single image content block of a tool result. */
export function imageOf(result) {
  const images = (result.content ?? []).filter((c) => c.type === 'image');
  assert.equal(images.length, 1, `expected one image block, got ${JSON.stringify(result.content).slice(0, 400)}`);
  return images[0];
}

/** Decodes a base64 PNG; resolves {width, height, data (RGBA)}. */
export function decodePng(base64) {
  return pngjs.PNG.sync.read(Buffer.from(base64, 'base64'));
}

/** RGB of the pixel at (x, y) of a decoded PNG. */
export function pixel(png, x, y) {
  const i = (png.width * y + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2]];
}

/** Asserts rgb is within tol of want on every channel. */
export function assertColour(rgb, want, tol, what) {
  const close = rgb.every((c, i) => Math.abs(c - want[i]) <= tol);
  assert.ok(close, `${what}: got rgb(${rgb.join(',')}), want rgb(${want.join(',')}) ±${tol}`);
}

/** Decodes a GIF (Buffer); returns omggif's reader. */
export function decodeGif(buf) {
  return new omggif.GifReader(new Uint8Array(buf.buffer, buf.byteOffset, buf.length));
}

// ---------------------------------------------------------------------------
// Processes, from /proc.

/** The state letter of a process (R, S, Z, ...), or null if it is gone. */
export function procState(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

/** True while pid exists (a zombie counts: it has not been reaped). */
export const procExists = (pid) => procState(pid) !== null;

/** Every process's {pid, comm, ppid, pgrp, sid, state}. */
export function processes() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), comm, state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), sid: Number(f[3]) });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/**
 * The pid glovebox (and this test) sees for a process that calls itself
 * `inner` — what `$!` or `$$` print inside a session, whose processes live in
 * a PID namespace of their own. `anchor` is any live process of that session
 * (its program's pid as terminal_start reports it). Uncontained, the two
 * numbers are the same.
 */
export function hostPid(anchor, inner) {
  const ns = readlinkSync(`/proc/${anchor}/ns/pid`);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/pid`) !== ns) continue;
      const line = readFileSync(`/proc/${name}/status`, 'utf8').match(/^NSpid:\s*(.*)$/m);
      if (line && Number(line[1].trim().split(/\s+/).pop()) === inner) return Number(name);
    } catch {
      // exited while we looked
    }
  }
  assert.fail(`no process ${inner} in the PID namespace of ${anchor}`);
}

/** Children of pid (zombies included). */
export const childrenOf = (pid) => processes().filter((p) => p.ppid === pid);

/** Polls pred every 50 ms until it holds; fails after timeoutMs. Only for
 * watching /proc (the server has no event for "process gone"). */
export async function until(pred, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}
