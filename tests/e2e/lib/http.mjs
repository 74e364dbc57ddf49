// Helpers for the HTTP transport tests: start `glovebox-testing serve --http`
// on a free loopback port, connect the SDK's Streamable HTTP client, and make
// raw requests. Every server is stopped with SIGTERM and must exit 0 with no
// sanitizer report.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertCleanExit, binary, deadline, ms, serverEnv } from './server.mjs';

/** A port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts the server on HTTP. Returns { url, port, child, stderr(), stop() }.
 * args are extra serve options; env extra environment.
 */
export async function startHttp(t, { args = [], env = {}, bin = 'glovebox-testing', host = '127.0.0.1', stdin = 'ignore' } = {}) {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(binary(bin), ['serve', '--http', `${host}:${port}`, ...args], {
      env: serverEnv(env),
      stdio: [stdin, 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d.toString();
    });
    const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
    const ready = await deadline(
      Promise.race([
        new Promise((r) => {
          const check = () => (stderr.includes('serving MCP on') ? r(true) : null);
          child.stderr.on('data', check);
          check();
        }),
        exited.then(() => false),
      ]),
      ms(10000),
      'the HTTP server to start',
    );
    if (!ready) {
      if (attempt < 3 && /could not listen/.test(stderr)) continue; // the port was taken meanwhile
      throw new Error(`glovebox did not start:\n${stderr}`);
    }
    const stderrEnded = new Promise((r) => child.stderr.once('end', r));
    const handle = {
      port,
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
      base: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      child,
      stderr: () => stderr,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const status = await deadline(exited, ms(10000), 'glovebox to exit after SIGTERM');
        await deadline(stderrEnded, ms(2000), 'server stderr to close');
        assertCleanExit(status, stderr);
        return status;
      },
    };
    t?.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    return handle;
  }
}

/** Connects an SDK client over Streamable HTTP. */
export async function connectHttpClient(url, { capabilities = {}, headers, name = 'glovebox-http-e2e' } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: headers ? { headers } : undefined,
  });
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  await deadline(client.connect(transport), ms(10000), 'the SDK client to connect over HTTP');
  return { client, transport, errors };
}

export const JSON_AND_SSE = 'application/json, text/event-stream';

/** A POST of one JSON-RPC message; returns { status, headers, text, json }. */
export async function post(url, body, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** Initializes a session with raw requests; returns its id. */
export async function openSession(url, headers = {}) {
  const r = await post(url, INIT, headers);
  assert.equal(r.status, 200, r.text);
  const sid = r.headers.get('mcp-session-id');
  assert.ok(sid, 'initialize answered with an Mcp-Session-Id');
  const n = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid, ...headers });
  assert.equal(n.status, 202);
  return sid;
}

/** Parses an SSE body into events [{id, event, data, retry}]. */
export function parseSse(text) {
  const events = [];
  for (const block of text.split(/\n\n/)) {
    if (!block.trim()) continue;
    const ev = { data: '' };
    for (const line of block.split('\n')) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const field = line.slice(0, i);
      const value = line.slice(i + 1).replace(/^ /, '');
      if (field === 'data') ev.data += value;
      else ev[field] = value;
    }
    events.push(ev);
  }
  return events;
}

/** The 2026-07-28 _meta block. */
export function modernMeta(extra = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
    ...extra,
  };
}

/** Open file descriptors and RSS (KiB) of a process. */
export async function processFootprint(pid) {
  const { readdir, readFile } = await import('node:fs/promises');
  const fds = (await readdir(`/proc/${pid}/fd`)).length;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { fds, rss };
}
