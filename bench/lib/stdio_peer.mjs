// A minimal MCP client over raw stdio pipes, for timing. It writes one JSON
// line per request and waits for the line carrying the same id, so what is
// measured is the server (plus one pipe round trip), not a client library.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const now = () => process.hrtime.bigint();

export class StdioPeer {
  /** Spawns server ({command, args}); spawnedAt is taken just before spawn(). */
  constructor(server, { env } = {}) {
    this.server = server;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.buf = '';
    this.stderr = '';
    this.exit = null; // {code, signal} once exited
    this.spawnedAt = now();
    this.child = spawn(server.command, server.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    this.pid = this.child.pid;
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        for (const [, p] of this.pending) {
          clearTimeout(p.timer);
          p.reject(new Error(`${server.name} exited (${signal ?? `status ${code}`}) with a request in flight`));
        }
        this.pending.clear();
        resolve(this.exit);
      });
    });
    this.child.on('error', (err) => {
      for (const [, p] of this.pending) p.reject(err);
      this.pending.clear();
    });
    this.child.stdin.on('error', () => {}); // EPIPE when the server died; reported via exit
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => this.#onData(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-16384);
    });
  }

  #onData(chunk) {
    const at = now();
    this.buf += chunk;
    let nl;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (!line.trim()) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        this.protocolError = `unparseable line from ${this.server.name}: ${line.slice(0, 200)}`;
        continue;
      }
      if (msg.method !== undefined && msg.id !== undefined) {
        // A request from the server (roots/list, sampling, …): we offer none.
        this.#write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
        continue;
      }
      const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
      if (!p) {
        // A notification (logging, list changed, resources updated, …).
        if (msg.id === undefined) this.onNotification?.(msg, at);
        continue;
      }
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      p.resolve({ msg, at, bytes: Buffer.byteLength(line) + 1 });
    }
  }

  #write(obj) {
    this.child.stdin.write(JSON.stringify(obj) + '\n');
  }

  notify(method, params) {
    this.#write(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method });
  }

  /** Sends a request; resolves {msg, ns, bytes, at} where ns is the round
   * trip in nanoseconds (BigInt) from just before the write. */
  request(method, params, timeoutMs = 10000) {
    const id = this.nextId++;
    const req = params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
    return new Promise((resolve, reject) => {
      if (this.exit) {
        reject(new Error(`${this.server.name} is not running`));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.server.name}: no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const sent = now();
      this.pending.set(id, {
        resolve: (r) => resolve({ ...r, ns: r.at - sent }),
        reject,
        timer,
      });
      this.child.stdin.write(JSON.stringify(req) + '\n');
    });
  }

  /** Peak resident set size so far, in KiB (VmHWM), or null once exited. */
  peakRssKiB() {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const m = /^VmHWM:\s+(\d+) kB/m.exec(status);
      return m ? Number(m[1]) : null;
    } catch {
      return null;
    }
  }

  /** The shared objects the server has mapped (paths from /proc/PID/maps),
   * or null once exited. */
  mappedLibraries() {
    try {
      const paths = new Set();
      for (const line of readFileSync(`/proc/${this.pid}/maps`, 'utf8').split('\n')) {
        const path = line.split(/\s+/)[5];
        if (path && /\.so(\.|$)/.test(path)) paths.add(path);
      }
      return [...paths];
    } catch {
      return null;
    }
  }

  /** Closes stdin and waits for the exit; SIGTERM, then SIGKILL, if the
   * server lingers. Resolves {code, signal, forced}. */
  async close(graceMs = 3000) {
    if (!this.exit) this.child.stdin.end();
    let forced = false;
    const wait = (ms) => Promise.race([this.exited, new Promise((r) => setTimeout(r, ms).unref())]);
    await wait(graceMs);
    if (!this.exit) {
      forced = true;
      this.child.kill('SIGTERM');
      await wait(2000);
    }
    if (!this.exit) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    return { ...this.exit, forced };
  }
}

/** The initialize request every benchmark opens with. */
export const initializeParams = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'glovebox-bench', version: '1' },
};

/** Throws if msg is a JSON-RPC error. */
export function expectResult(server, method, msg) {
  if (msg.error)
    throw new Error(`${server.name}: ${method} failed: ${msg.error.code} ${msg.error.message}`);
  return msg.result;
}
