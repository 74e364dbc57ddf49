// Helpers for the REST API (/v1) tests: plain fetch, as an orchestrator
// written in any language would call it.
import assert from 'node:assert/strict';

import { ms } from './server.mjs';

/** One request; returns { status, headers, json, text }. body: an object
 * (sent as JSON) or a string (sent as is). */
export async function api(base, method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Asserts a refusal: status and {error: {code, message}}; returns the message. */
export function assertRefused(r, status, code, messageRe) {
  assert.equal(r.status, status, `expected ${status} ${code}, got ${r.status}: ${r.text}`);
  assert.equal(r.json?.error?.code, code, r.text);
  assert.equal(typeof r.json.error.message, 'string');
  if (messageRe) assert.match(r.json.error.message, messageRe);
  return r.json.error.message;
}

/** Starts a session over /v1 (201 expected); returns the session object. */
export async function startSession(base, body, headers = {}) {
  const r = await api(base, 'POST', '/v1/sessions', body, headers);
  assert.equal(r.status, 201, `POST /v1/sessions ${JSON.stringify(body)}: ${r.status} ${r.text}`);
  assert.equal(r.headers.get('location'), `/v1/sessions/${r.json.id}`);
  return r.json;
}

/** Calls a tool on a session; returns the response. */
export function callTool(base, id, tool, args = {}, extra = {}, headers = {}) {
  return api(base, 'POST', `/v1/sessions/${id}/tools/${tool}`, { arguments: args, ...extra }, headers);
}

/** Parses "event: x\ndata: {...}\n\n" blocks into [{event, data}]. */
export function parseEvents(text) {
  const out = [];
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    const ev = {};
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) ev.event = line.slice(7);
      else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6));
    }
    out.push(ev);
  }
  return out;
}

/** Reads an event stream until pred(events) holds or it ends; returns
 * { events, done } (done: the server closed it). */
export async function readEvents(res, pred = () => false, timeoutMs = ms(20000)) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let text = '';
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; got: ${text}`);
    const chunk = await Promise.race([
      reader.read(),
      new Promise((_, rej) => setTimeout(() => rej(new Error(`event stream silent for ${timeoutMs} ms; got: ${text}`)), left)),
    ]);
    if (chunk.done) return { events: parseEvents(text), done: true, reader };
    text += dec.decode(chunk.value, { stream: true });
    const events = parseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2));
    if (pred(events)) return { events, done: false, reader };
  }
}
