// The glovebox live viewer: trades the link's secret (after '#') for a
// cookie, then opens one WebSocket to the server and shows what it sends.
// Plain ES modules, no framework.
import { TermView } from '/view/term.js';
import { DeskView } from '/view/desk.js';
import { OverlayLayer } from '/view/overlay.js';
import { DeskInput } from '/view/takeover.js';
import { CardMarkers } from '/view/marker.js';
import { CursorLayer } from '/view/cursor.js';
import { applyCrop, parseCrop, resetCrop, showNote } from '/view/crop.js';

const PROTOCOL = 'glovebox.view.v1';
const $ = id => document.getElementById(id);
const overlays = new OverlayLayer(document.getElementById('overlay'));
const state = { overlays, ws: null, role: null, watching: null, view: null, sessions: [], closedFor: null };
window.gbView = state; // for tests and the bench
state.markers = new CardMarkers(document.getElementById('overlay'), state);
state.cursor = new CursorLayer(document.getElementById('overlay'));
state.cropWant = parseCrop(location.search);
showNote(state.cropWant.error);

function setState(s, text) {
  document.body.dataset.state = s;
  $('status').textContent = text;
}

function message(text) {
  $('message').textContent = text;
}

async function exchange() {
  const link = location.hash.slice(1);
  if (!link) return true;
  // The secret leaves the address bar (and the history) at once.
  history.replaceState(null, '', location.pathname + location.search);
  const r = await fetch('/view/auth', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ link }), credentials: 'same-origin',
  });
  if (!r.ok) {
    let why = `error ${r.status}`;
    try { why = (await r.json()).error || why; } catch (e) { /* not JSON */ }
    setState('refused', 'not allowed');
    message(why);
    return false;
  }
  return true;
}

function renderSessions() {
  const ul = $('sessions');
  ul.replaceChildren();
  for (const s of state.sessions) {
    const li = document.createElement('li');
    li.dataset.session = s.id;
    li.textContent = s.name ? `${s.name} (${s.id})` : s.id;
    const kind = document.createElement('span');
    kind.className = 'kind';
    kind.textContent = s.kind + (s.state !== 'live' ? ` · ${s.state}` : '');
    li.append(kind);
    if (s.state === 'ended') li.classList.add('ended');
    if (s.id === state.watching) li.classList.add('active');
    li.addEventListener('click', () => watch(s.id));
    ul.append(li);
  }
}

function send(obj) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(obj));
}

function clearCards() {
  $('cards').replaceChildren();
  state.markers.clear();
}

function clearView() {
  overlays.cleared();
  state.cursor.clear();
  if (state.view && state.view.dispose) state.view.dispose();
  state.view = null;
  state.deskInput?.dispose();
  state.deskInput = null;
  $('term').hidden = true;
  $('term').replaceChildren();
  $('desk').hidden = true;
  resetCrop($('screen'), $('desk'), $('overlay'));
}

// The part of the desktop this window shows (crop.js), once its size is known.
function crop() {
  const c = $('desk');
  if (!(state.view instanceof DeskView) || !c.width) return;
  state.crop = applyCrop(state.cropWant, c.width, c.height, state.monitors, $('screen'), c, $('overlay'));
  showNote(state.cropWant.error || state.crop.error);
}

function watch(id) {
  state.wanted = id;
  send({ type: 'watch', session: id });
}

function onJson(m) {
  switch (m.type) {
  case 'hello':
    clearCards();
    state.role = m.role;
    $('role').textContent = m.role + (m.session ? ` · ${m.session}` : '');
    setState('connected', 'live');
    if (m.session) watch(m.session);
    else if (state.wanted) watch(state.wanted);
    else {
      const q = new URLSearchParams(location.search).get('session');
      if (q) watch(q);
    }
    break;
  case 'sessions':
    state.sessions = m.sessions;
    state.paused = m.paused;
    $('paused').hidden = !m.paused;
    $('mode').hidden = !m.mode;
    $('mode').textContent = m.mode || '';
    $('stop').hidden = m.paused || !(state.role === 'approve' || state.role === 'control');
    $('resume').hidden = !m.paused || state.role !== 'control';
    renderSessions();
    if (!state.watching && !state.wanted) message(m.sessions.length ? 'Choose a session.' : 'No sessions yet.');
    break;
  case 'watching':
    clearView();
    state.watching = m.session;
    state.control = null;
    state.mine = false;
    message('');
    if (m.kind === 'terminal') {
      $('term').hidden = false;
      state.view = new TermView($('term'));
      overlays.setSize($('term').clientWidth, $('term').clientHeight);
    } else {
      $('desk').hidden = false;
      state.monitors = null; // until the server says (RandR)
      state.view = new DeskView($('desk'), seq => send({ type: 'ack', seq }), (w, h) => {
        overlays.setSize(w, h);
        crop();
      });
      state.deskInput = new DeskInput($('desk'), send);
    }
    renderSessions();
    state.markers.sync();
    break;
  case 'screen':
    if (state.view instanceof TermView) {
      state.view.resize(m.cols, m.rows);
      overlays.setSize($('term').clientWidth, $('term').clientHeight);
    }
    break;
  case 'overlay':
    if (m.session !== state.watching) break;
    if (m.event === 'created') overlays.created(m.overlays);
    else if (m.event === 'updated') overlays.updated(m.overlays);
    else if (m.event === 'removed') overlays.removed(m.ids);
    else if (m.event === 'cleared') overlays.cleared();
    break;
  case 'cursor':
    if (m.session === state.watching) state.cursor.update(m);
    break;
  case 'monitors':
    if (m.session !== state.watching) break;
    state.monitors = m.monitors;
    crop();
    break;
  case 'ended':
    message(`${m.session} ended: ${m.reason}`);
    state.watching = null;
    state.wanted = null;
    clearView();
    renderSessions();
    break;
  case 'error':
    message(m.message);
    break;
  case 'card':
    showCard(m);
    break;
  case 'control':
    if (m.session !== state.watching) break;
    state.control = m.by;
    if (m.mine !== undefined) state.mine = m.mine && m.by === 'person';
    if (m.by === 'agent') state.mine = false;
    renderControl(m.note);
    break;
  case 'card_target':
    state.markers.target(m.id, m.target);
    break;
  case 'card_gone':
    state.markers.gone(m.id);
    document.querySelector(`.card[data-card="${CSS.escape(m.id)}"]`)?.remove();
    break;
  }
}

// A confirmation the policy asks for: approve and control links answer it;
// watch links see it without buttons.
function showCard(m) {
  const div = document.createElement('div');
  div.className = 'card';
  div.dataset.card = m.id;
  const q = document.createElement('p');
  q.className = 'q';
  q.textContent = m.question; // text only: never markup from the agent
  const why = document.createElement('p');
  why.className = 'why';
  why.textContent = `glovebox asks because ${m.why}. No answer in ${Math.round(m.expires_in_ms / 1000)} s counts as no.`;
  div.append(q, why);
  state.markers.card(m, div);
  if (state.role === 'approve' || state.role === 'control') {
    for (const [label, approve] of [['Approve', true], ['Decline', false]]) {
      const b = document.createElement('button');
      b.className = approve ? 'approve' : 'decline';
      b.textContent = label;
      b.addEventListener('click', () => send({ type: 'answer', id: m.id, approve }));
      div.append(b);
    }
  }
  $('cards').append(div);
  setTimeout(() => { div.remove(); state.markers.gone(m.id); }, m.expires_in_ms + 1000);
}

function renderControl(note) {
  const canTake = state.role === 'control' && (state.view instanceof TermView || state.view instanceof DeskView);
  $('control').hidden = !state.watching;
  $('control').textContent = state.control === 'person'
    ? (state.mine ? 'you have control' : 'a person has control') : 'agent has control';
  $('take').hidden = !canTake || state.control === 'person';
  $('handback').hidden = !state.mine;
  $('note').hidden = !state.mine;
  if (state.view instanceof TermView) {
    state.view.setInput(state.mine ? data => send({ type: 'input', data }) : null);
  }
  state.deskInput?.enable(!!state.mine);
  if (note) message(`Handed back: ${note}`);
}

function onBinary(buf) {
  const type = new Uint8Array(buf, 0, 1)[0];
  if (type === 2 && state.view instanceof TermView) state.view.write(new Uint8Array(buf, 1));
  else if (type === 1 && state.view instanceof DeskView) state.view.update(buf);
}

function connect() {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/view/ws`;
  const ws = new WebSocket(url, PROTOCOL);
  ws.binaryType = 'arraybuffer';
  state.ws = ws;
  ws.onmessage = e => {
    // Bytes received, for the bench ("0 bytes for a still screen").
    state.rxBytes = (state.rxBytes || 0) + (typeof e.data === 'string' ? e.data.length : e.data.byteLength);
    if (typeof e.data === 'string') onJson(JSON.parse(e.data));
    else onBinary(e.data);
  };
  ws.onclose = e => {
    state.closedFor = e.reason || null;
    if (document.body.dataset.state === 'starting') {
      // Refused before it opened: no valid cookie.
      setState('refused', 'not allowed');
      message('Open a link made with "glovebox view" to watch this server.');
      return;
    }
    if (e.code === 4001 || e.code === 1008 || e.code === 1003 || e.code === 1007 || e.code === 1009) {
      setState('closed', 'closed');
      clearView();
      message(e.reason || 'The viewer was closed.');
      return;
    }
    setState('reconnecting', 'reconnecting…');
    clearView();
    state.watching = null;
    setTimeout(() => { setState('starting', 'connecting…'); connect(); }, 1000);
  };
}

$('stop').addEventListener('click', () => send({ type: 'stop' }));
$('take').addEventListener('click', () => send({ type: 'take' }));
$('handback').addEventListener('click', () => send({ type: 'handback', note: $('note').value }));
$('resume').addEventListener('click', () => send({ type: 'resume' }));

if (await exchange()) connect();
