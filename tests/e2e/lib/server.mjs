// Helpers for end-to-end tests: start the real glovebox binary and talk to it
// either through the official MCP SDK client or over a raw pipe.
//
// Every wait has a deadline, so a misbehaving server fails a test instead of
// hanging the suite. Every server is checked on the way out: it must exit 0
// and its stderr must hold no AddressSanitizer/LeakSanitizer/UBSan report.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const E2E_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = resolve(E2E_DIR, '../..');
export const BUILD = resolve(process.env.GLOVEBOX_BUILD ?? resolve(REPO_DIR, 'build'));
export const SANITIZED = process.env.GLOVEBOX_SANITIZED === '1';

/** ASan+UBSan builds run about three times slower; scale deadlines by this. */
export const SLOW = SANITIZED ? 4 : 1;
/** A deadline of ms milliseconds on a plain build, scaled for sanitized ones. */
export const ms = (n) => n * SLOW;

/** Path of a binary in the build directory under test. */
export function binary(name = 'glovebox-testing') {
  const path = resolve(BUILD, name);
  if (!existsSync(path)) throw new Error(`${path} does not exist (GLOVEBOX_BUILD=${BUILD}); build it first`);
  return path;
}

// Servers keep an audit log in $XDG_DATA_HOME/glovebox; tests that do not
// choose a place share one temporary directory per test process rather than
// writing into the home directory of whoever runs them.
let sharedDataHome;
function defaultDataHome() {
  if (!sharedDataHome) {
    sharedDataHome = mkdtempSync(join(tmpdir(), 'glovebox-e2e-data-'));
    process.once('exit', () => rmSync(sharedDataHome, { recursive: true, force: true }));
  }
  return sharedDataHome;
}

/** The environment for a server: ours, plus sanitizer options that make a
 * report fail the exit status even when run outside scripts/run-tests.sh. */
export function serverEnv(extra = {}) {
  return {
    ...process.env,
    ASAN_OPTIONS: process.env.ASAN_OPTIONS ?? 'detect_leaks=1:exitcode=99',
    UBSAN_OPTIONS: process.env.UBSAN_OPTIONS ?? 'halt_on_error=1:print_stacktrace=1:exitcode=98',
    // Tests that are not about the permission policy run with every tool
    // allowed; the policy tests pass GLOVEBOX_ALLOW_ALL: '0'.
    GLOVEBOX_ALLOW_ALL: '1',
    // Every tool group, with its output schema (the SDK client then checks
    // each structuredContent against it); tools-list-size.test.mjs measures
    // the defaults.
    GLOVEBOX_TOOLS: 'all',
    GLOVEBOX_OUTPUT_SCHEMAS: '1',
    XDG_DATA_HOME: defaultDataHome(),
    ...extra,
  };
}

const SANITIZER_MARKERS = ['ERROR: AddressSanitizer', 'ERROR: LeakSanitizer', 'runtime error:'];

/** Fails if stderr holds a sanitizer report. */
export function assertNoSanitizerReport(stderr, what = 'server') {
  for (const marker of SANITIZER_MARKERS) {
    if (stderr.includes(marker)) {
      assert.fail(`${what} stderr has a sanitizer report ("${marker}"):\n${stderr.slice(0, 6000)}`);
    }
  }
}

/** Fails unless the process exited 0 with a clean stderr. */
export function assertCleanExit({ code, signal, error }, stderr, what = 'server') {
  if (error) assert.fail(`${what} could not be started: ${error.message}`);
  assertNoSanitizerReport(stderr, what);
  assert.equal(signal, null, `${what} was killed by ${signal}; stderr:\n${stderr.slice(0, 4000)}`);
  assert.equal(code, 0, `${what} exited ${code}; stderr:\n${stderr.slice(0, 4000)}`);
}

/** Resolves after ms milliseconds. */
export const sleep = (n) => new Promise((r) => setTimeout(r, n));

/** Races promise against a deadline; rejects with a message naming what. */
export function deadline(promise, timeoutMs, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Waits for a child process to exit; resolves {code, signal}. */
function waitForExit(child, timeoutMs, what) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return deadline(
    new Promise((r) => child.once('exit', (code, signal) => r({ code, signal }))),
    timeoutMs,
    `${what} to exit`,
  );
}

function killQuietly(child) {
  if (child && child.exitCode === null && child.signalCode === null) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

// ---------------------------------------------------------------------------
// The official SDK client.

/**
 * Starts `glovebox-testing serve [args]` (or another binary) and connects the
 * SDK Client to it. Returns { client, transport, child, stderr(), close() }.
 * close() ends stdin, waits for the server to exit and asserts a clean exit.
 * Pass the test context t so the server is killed if the test fails early.
 */
export async function connectClient(t, { bin = 'glovebox-testing', args = [], capabilities = {}, clientInfo, env = {}, cwd } = {}) {
  const transport = new StdioClientTransport({
    command: binary(bin),
    args: ['serve', ...args],
    env: serverEnv(env),
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => {
    stderr += d.toString();
  });
  const stderrEnded = new Promise((r) => transport.stderr.once('end', r));
  // Record every message the server sends, as the client received it, so
  // tests can assert on what crossed the wire (e.g. nothing for a cancelled id).
  const inbound = [];
  let onmessage;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => onmessage,
    set: (fn) => {
      onmessage = fn
        ? (msg, extra) => {
            inbound.push(msg);
            fn(msg, extra);
          }
        : fn;
    },
  });
  const client = new Client(clientInfo ?? { name: 'glovebox-e2e', version: '1.0.0' }, { capabilities });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  try {
    await deadline(client.connect(transport), ms(10000), 'the SDK client to connect');
  } catch (e) {
    killQuietly(transport._process);
    await client.close().catch(() => {});
    e.message += `\nserver stderr:\n${stderr.slice(0, 4000)}`;
    throw e;
  }
  // The SDK keeps the child private; we need it for the exit status.
  const child = transport._process;
  assert.ok(child, 'the SDK transport has a child process');
  const handle = {
    client,
    transport,
    child,
    errors,
    inbound,
    /** The protocol version the server chose in its initialize result. */
    negotiatedVersion: () => inbound.find((m) => m.result?.protocolVersion)?.result.protocolVersion,
    stderr: () => stderr,
    async close({ timeoutMs = ms(5000) } = {}) {
      child.stdin.end();
      const status = await waitForExit(child, timeoutMs, 'glovebox after stdin closed');
      // Let stderr drain (the SDK pipes it into transport.stderr) so a
      // sanitizer report written at exit is seen.
      await deadline(stderrEnded, ms(2000), 'server stderr to close');
      await client.close().catch(() => {});
      assertCleanExit(status, stderr);
      return status;
    },
  };
  /** Kills the server if it is still running (cleanup, no assertions). */
  handle.kill = async () => {
    killQuietly(child);
    await client.close().catch(() => {});
  };
  t?.after(handle.kill);
  return handle;
}

/** Asserts that promise rejects with an McpError of the given code; returns it. */
export async function assertMcpError(promise, code, messageRe) {
  let err;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected an MCP error ${code}, but the request succeeded`);
  assert.equal(err.code, code, `expected error code ${code}, got ${err.code}: ${err.message}`);
  if (messageRe) assert.match(err.message, messageRe);
  return err;
}

/** The text of a tool result's content blocks, joined. */
export function textOf(result) {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

// ---------------------------------------------------------------------------
// The raw pipe driver.

/**
 * A glovebox process on raw pipes. Replies are parsed as they arrive, in
 * NDJSON lines or Content-Length frames (whichever each reply uses), and kept
 * in order as { raw, json, framing }. Nothing is hidden: tests see the bytes.
 */
export class RawServer {
  /**
   * @param {object} o
   * @param {string} [o.bin] binary name in the build dir
   * @param {string[]} [o.args] arguments after "serve" (o.argv replaces all)
   * @param {number|'pipe'} [o.stdin] an fd to use as stdin instead of a pipe
   */
  constructor({ bin = 'glovebox-testing', args = [], argv, stdin = 'pipe', env } = {}) {
    this.child = spawn(binary(bin), argv ?? ['serve', ...args], {
      stdio: [stdin, 'pipe', 'pipe'],
      env: serverEnv(env),
    });
    this.stderr = '';
    this.messages = []; // every reply, in arrival order
    this.taken = new Set(); // indexes already returned by take()
    this.buf = Buffer.alloc(0);
    this.waiters = new Set();
    // Resolves when the process is gone: exited, or never started (then
    // with the spawn error, e.g. EACCES while the binary is being relinked).
    this.exited = new Promise((r) => {
      this.child.once('exit', (code, signal) => r({ code, signal }));
      this.child.once('error', (error) => r({ code: null, signal: null, error }));
    });
    const ended = (stream) => new Promise((r) => (stream.readableEnded ? r() : stream.once('close', r)));
    // Both pipes closed: every reply and every byte of stderr has been read.
    this.pipesClosed = Promise.all([ended(this.child.stdout), ended(this.child.stderr)]);
    this.child.stdout.on('data', (d) => this.#onData(d));
    this.child.stderr.on('data', (d) => {
      this.stderr += d.toString();
    });
    // A server that exits before reading everything makes writes fail with
    // EPIPE; that must surface as an assertion on the exit, not a crash.
    this.child.stdin?.on('error', () => {});
  }

  /** Registers cleanup with the test context so a failed test never leaks a process. */
  static start(t, opts) {
    const s = new RawServer(opts);
    t?.after(() => killQuietly(s.child));
    return s;
  }

  #onData(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      const m = this.#nextFrame();
      if (!m) break;
      let json;
      try {
        json = JSON.parse(m.raw);
      } catch {
        json = undefined;
      }
      this.messages.push({ ...m, json });
    }
    for (const w of [...this.waiters]) w();
  }

  #nextFrame() {
    // Content-Length framing: a header block, a blank line, then the body.
    if (this.buf.length >= 1 && this.buf[0] === 0x43 /* C */) {
      const sep = this.buf.indexOf('\r\n\r\n');
      if (sep < 0) return null;
      const header = this.buf.subarray(0, sep).toString('latin1');
      const m = /^content-length:\s*(\d+)\s*$/im.exec(header);
      if (!m) throw new Error(`bad header block from server: ${JSON.stringify(header)}`);
      const n = Number(m[1]);
      if (this.buf.length < sep + 4 + n) return null;
      const raw = this.buf.subarray(sep + 4, sep + 4 + n).toString('utf8');
      this.buf = this.buf.subarray(sep + 4 + n);
      return { raw, framing: 'content-length', header };
    }
    const nl = this.buf.indexOf(0x0a);
    if (nl < 0) return null;
    const raw = this.buf.subarray(0, nl).toString('utf8');
    this.buf = this.buf.subarray(nl + 1);
    return { raw, framing: 'ndjson' };
  }

  /** Writes raw bytes (string or Buffer). */
  write(data) {
    return new Promise((resolveWrite, reject) => {
      this.child.stdin.write(data, (err) => {
        if (!err) return resolveWrite();
        // Usually EPIPE: the server is gone. Say how it went, not just EPIPE.
        Promise.race([this.exited, sleep(ms(1000)).then(() => null)]).then((st) => {
          const how = !st ? 'still running' : st.error ? `could not start (${st.error.message})` : `exited (code ${st.code}, signal ${st.signal})`;
          err.message = `writing to glovebox failed (${err.message}); the server ${how}; stderr:\n${this.stderr.slice(0, 4000)}`;
          reject(err);
        });
      });
    });
  }

  /** Sends one message as an NDJSON line (an object is serialised). */
  send(msg) {
    return this.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n');
  }

  /** Sends one message with Content-Length framing. */
  sendFramed(msg) {
    const body = Buffer.from(typeof msg === 'string' ? msg : JSON.stringify(msg), 'utf8');
    return this.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  /**
   * Waits for the first reply not yet taken that satisfies pred; marks it
   * taken and returns it. Rejects after timeoutMs.
   */
  take(pred, { timeoutMs = ms(5000), what = 'a matching reply' } = {}) {
    const find = () => {
      for (let i = 0; i < this.messages.length; i++) {
        if (!this.taken.has(i) && pred(this.messages[i])) {
          this.taken.add(i);
          return this.messages[i];
        }
      }
      return null;
    };
    const found = find();
    if (found) return Promise.resolve(found);
    return new Promise((resolveTake, reject) => {
      const waiter = () => {
        const m = find();
        if (m) {
          cleanup();
          resolveTake(m);
        }
      };
      let done = false;
      const onExit = ({ code, signal, error }) => {
        if (done) return;
        const late = find(); // written just before the exit, read just after
        cleanup();
        if (late) return resolveTake(late);
        const how = error ? `could not start (${error.message})` : `exited (code ${code}, signal ${signal})`;
        reject(new Error(`server ${how} while waiting for ${what}; stderr:\n${this.stderr.slice(0, 4000)}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; replies so far:\n` +
              this.messages.map((m) => m.raw.slice(0, 300)).join('\n'),
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        done = true;
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      this.waiters.add(waiter);
      // Once the process is gone, give its pipes a moment to deliver what it wrote.
      this.exited.then((st) => {
        if (done) return;
        let timer;
        const grace = new Promise((r) => {
          timer = setTimeout(r, ms(2000));
        });
        Promise.race([this.pipesClosed, grace]).then(() => {
          clearTimeout(timer);
          onExit(st);
        });
      });
    });
  }

  /** The response (result or error) to request id. */
  reply(id, opts = {}) {
    return this.take((m) => isResponse(m.json) && sameId(m.json.id, id), {
      what: `the reply to id ${JSON.stringify(id)}`,
      ...opts,
    });
  }

  /** The next reply whose raw text matches re. */
  replyMatching(re, opts = {}) {
    return this.take((m) => re.test(m.raw), { what: `a reply matching ${re}`, ...opts });
  }

  /** Sends a request and resolves its reply's parsed JSON. */
  async request(id, method, params, opts) {
    const msg = { jsonrpc: '2.0', id, method };
    if (params !== undefined) msg.params = params;
    await this.send(msg);
    return (await this.reply(id, opts)).json;
  }

  notify(method, params) {
    const msg = { jsonrpc: '2.0', method };
    if (params !== undefined) msg.params = params;
    return this.send(msg);
  }

  /** The legacy handshake; resolves the initialize result. */
  async initialize(protocolVersion = '2025-11-25', id = 'init') {
    const r = await this.request(id, 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'glovebox-e2e-raw', version: '1.0.0' },
    });
    assert.ok(r.result, `initialize failed: ${JSON.stringify(r)}`);
    await this.notify('notifications/initialized');
    return r.result;
  }

  /** Sends a ping and requires its answer: the server is still serving. */
  async assertServing(id = `ping-${Math.random().toString(36).slice(2)}`) {
    const r = await this.request(id, 'ping', undefined, { what: `the answer to ping ${id}` });
    assert.deepEqual(r.result, {}, `ping answered with ${JSON.stringify(r)}`);
  }

  /** Replies not yet taken (for checking that nothing unexpected arrived). */
  untaken() {
    return this.messages.filter((_, i) => !this.taken.has(i));
  }

  /** Waits windowMs and fails if a reply satisfying pred arrives meanwhile. */
  async assertNoReply(pred, windowMs, what = 'a reply') {
    await sleep(windowMs);
    const bad = this.messages.filter((m) => pred(m));
    assert.equal(bad.length, 0, `expected no ${what}, got:\n${bad.map((m) => m.raw.slice(0, 300)).join('\n')}`);
  }

  /** Resolves {code, signal} once the process exits; rejects after timeoutMs. */
  waitExit(timeoutMs = ms(5000)) {
    return deadline(this.exited, timeoutMs, 'glovebox to exit');
  }

  /** Closes stdin, waits for exit and asserts exit 0 with a clean stderr. */
  async close({ timeoutMs = ms(5000) } = {}) {
    this.child.stdin?.end();
    const status = await this.waitExit(timeoutMs);
    await deadline(this.pipesClosed, ms(2000), 'stdout and stderr to close');
    assertCleanExit(status, this.stderr);
    return status;
  }

  /** After the process exited by itself or by signal: assert it was clean. */
  async assertExitedCleanly(timeoutMs = ms(5000)) {
    const status = await this.waitExit(timeoutMs);
    await deadline(this.pipesClosed, ms(2000), 'stdout and stderr to close');
    assertCleanExit(status, this.stderr);
    return status;
  }
}

export function isResponse(j) {
  return j && typeof j === 'object' && !('method' in j) && ('result' in j || 'error' in j);
}

function sameId(a, b) {
  return a === b || (a !== null && b !== null && typeof a === typeof b && JSON.stringify(a) === JSON.stringify(b));
}

// ---------------------------------------------------------------------------
// 2026-07-28 (stateless) requests.

export const MODERN = '2026-07-28';
export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const META_LOG = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** params with the per-request _meta of the 2026-07-28 revision. */
export function modernParams(params = {}, metaExtra = {}) {
  return {
    ...params,
    _meta: { [META_VERSION]: MODERN, [META_CAPS]: {}, ...metaExtra, ...(params._meta ?? {}) },
  };
}

// ---------------------------------------------------------------------------
// Running the CLI.

/** Runs `<bin> ...argv` to completion; resolves { code, signal, stdout, stderr }. */
export function runCli(argv, { bin = 'glovebox', timeoutMs = ms(10000), cwd, command, env = {} } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command ?? binary(bin), argv, { env: serverEnv(env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d.toString()));
    child.stderr.on('data', (d) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      killQuietly(child);
      reject(new Error(`${argv.join(' ')} did not finish within ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

/** Known server bugs: a reason when the test is expected to fail here, else false. */
export const KNOWN = {
  // The backend requirement check calls FcInit() and never FcFini(); under
  // LeakSanitizer every process that ran it (status, doctor) exits 99.
  fontconfigLeak: SANITIZED
    ? 'server bug: fontconfig state from FcInit() in src/backend/requirements.c leaks (LeakSanitizer, exit 99)'
    : false,
};

let kindsCache;
/** The kinds of session the build under test has, from `glovebox doctor
 * --json` ("implemented": built in; its module loads on first use), and
 * "ocr" when it has OCR. */
export function builtKinds() {
  if (!kindsCache) {
    const r = spawnSync(binary('glovebox'), ['doctor', '--json'], { env: serverEnv(), encoding: 'utf8' });
    if (r.error) throw r.error;
    kindsCache = new Set(JSON.parse(r.stdout).filter((k) => k.implemented).map((k) => k.kind));
    // OCR is a module of its own (-Docr=), not a kind: built when its module
    // is beside the executable, where the server looks for it first.
    if (existsSync(resolve(BUILD, 'glovebox-ocr.so'))) kindsCache.add('ocr');
  }
  return kindsCache;
}

/** Test options that skip, saying why, when the build lacks one of kinds:
 * test('…', needs('desktop', opts()), …). */
export function needs(...args) {
  const extra = typeof args[args.length - 1] === 'object' ? args.pop() : {};
  const missing = args.filter((k) => !builtKinds().has(k));
  if (missing.length === 0) return extra;
  const what = missing.map((k) => (k === 'ocr' ? 'OCR' : `${k} sessions`)).join(' and ');
  return { ...extra, skip: `this glovebox is built without ${what} (-D${missing[0]}=disabled)` };
}

/** Options for every test: a generous overall timeout as a last line of
 * defence (each wait has its own, shorter deadline), plus extras (todo…). */
export function opts(extra = {}) {
  return { timeout: ms(30000), ...extra };
}
