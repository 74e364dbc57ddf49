// The marker of an approval card: where the call waiting for the person's
// answer would act — the element's bounds (a ref) or the point (x, y) —
// said on the card and drawn over the screen, in pages that may answer,
// while they show that session. Drawn in the overlay layer (click-through,
// never in a screenshot).
const NS = 'http://www.w3.org/2000/svg';

function el(name, attrs) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function describe(t) {
  if (t.ref && t.found === false) return `on ${t.ref} in ${t.session} — not found now (a stale ref)`;
  if (t.ref && t.width !== undefined) return `on ${t.ref} in ${t.session}, at ${t.x},${t.y} (${t.width}×${t.height})`;
  if (t.ref) return `on ${t.ref} in ${t.session}`;
  return `at ${t.x},${t.y} in ${t.session}`;
}

export class CardMarkers {
  // state: the page's (watching, role).
  constructor(svg, state) {
    this.svg = svg;
    this.state = state;
    this.cards = new Map(); // id -> { target, line }
  }
  card(m, div) {
    if (!m.target) return;
    const line = document.createElement('p');
    line.className = 'target';
    div.append(line);
    this.cards.set(m.id, { target: m.target, line });
    this.render(m.id);
  }
  target(id, target) {
    const c = this.cards.get(id);
    if (!c) return;
    c.target = target;
    this.render(id);
  }
  gone(id) {
    this.svg.querySelector(`g[data-card-marker="${CSS.escape(id)}"]`)?.remove();
    this.cards.delete(id);
  }
  clear() { [...this.cards.keys()].forEach((id) => this.gone(id)); }
  // The page shows another session: markers follow.
  sync() { [...this.cards.keys()].forEach((id) => this.render(id)); }
  render(id) {
    const { target: t, line } = this.cards.get(id);
    line.textContent = describe(t);
    this.svg.querySelector(`g[data-card-marker="${CSS.escape(id)}"]`)?.remove();
    const mayAnswer = this.state.role === 'approve' || this.state.role === 'control';
    if (!mayAnswer || t.session !== this.state.watching || t.x === undefined) return;
    const g = el('g', { 'data-card-marker': id });
    if (t.width !== undefined) {
      g.append(el('rect', { x: t.x, y: t.y, width: t.width, height: t.height, fill: 'none', stroke: '#ffcc00', 'stroke-width': 3, 'stroke-dasharray': '6 4' }));
    } else {
      g.append(el('circle', { cx: t.x, cy: t.y, r: 14, fill: 'none', stroke: '#ffcc00', 'stroke-width': 3 }));
      g.append(el('path', { d: `M ${t.x - 20} ${t.y} H ${t.x + 20} M ${t.x} ${t.y - 20} V ${t.y + 20}`, stroke: '#ffcc00', 'stroke-width': 2 }));
    }
    this.svg.append(g);
  }
}
