// The agent's overlays, drawn in an SVG layer above the screen: never part
// of the screen itself, so never in a screenshot; clicks pass through.
// Coordinates are screen pixels (the desktop's; for a terminal, the page's
// pixels of the terminal).
const NS = 'http://www.w3.org/2000/svg';

function el(name, attrs) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  return e;
}

export class OverlayLayer {
  constructor(svg) {
    this.svg = svg;
    this.items = new Map(); // id -> { g, timers }
    const defs = el('defs', {});
    const marker = el('marker', { id: 'gb-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' });
    marker.append(el('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: 'context-stroke' }));
    defs.append(marker);
    svg.append(defs);
  }
  setSize(w, h) {
    this.svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  }
  draw(o) {
    const color = o.color || '#ff3b30';
    const opacity = o.opacity ?? (o.kind === 'highlight' ? 0.3 : 1);
    const g = el('g', { 'data-overlay': o.id, 'data-kind': o.kind, opacity, 'data-monitor': o.monitor_index });
    const x = o.x ?? 0, y = o.y ?? 0, w = o.width ?? 0, h = o.height ?? 0;
    const pts = o.points ?? [];
    switch (o.kind) {
    case 'box': g.append(el('rect', { x, y, width: w, height: h, fill: 'none', stroke: color, 'stroke-width': 3, rx: 3 })); break;
    case 'highlight': g.append(el('rect', { x, y, width: w, height: h, fill: color })); break;
    case 'point': g.append(el('circle', { cx: x, cy: y, r: 8, fill: color, stroke: '#fff', 'stroke-width': 2 })); break;
    case 'arrow': {
      const [a, b] = pts.length >= 2 ? [pts[0], pts[1]] : [[x, y], [x + w, y + h]];
      g.append(el('line', { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: color, 'stroke-width': 4, 'marker-end': 'url(#gb-arrow)' }));
      break;
    }
    case 'path': g.append(el('polyline', { points: pts.map(p => p.join(',')).join(' '), fill: 'none', stroke: color, 'stroke-width': 3 })); break;
    }
    if (o.text) {
      const t = el('text', { x: x + 4, y: (o.kind === 'label' ? y : y - 6) + (o.kind === 'label' ? 16 : 0), fill: o.kind === 'label' ? '#fff' : color, 'font-size': 16, 'font-family': 'sans-serif', 'paint-order': 'stroke', stroke: '#000', 'stroke-width': 3 });
      t.textContent = o.text;
      g.append(t);
    }
    return g;
  }
  created(list) {
    for (const o of list) {
      this.remove(o.id);
      const g = this.draw(o);
      const item = { g, timers: [] };
      const show = () => this.svg.append(item.g);
      if (o.show_in_ms > 0) item.timers.push(setTimeout(show, o.show_in_ms)); else show();
      item.timers.push(setTimeout(() => this.remove(o.id), o.expires_in_ms));
      this.items.set(o.id, item);
    }
  }
  remove(id) {
    const item = this.items.get(id);
    if (!item) return;
    item.timers.forEach(clearTimeout);
    item.g.remove();
    this.items.delete(id);
  }
  // Anchored overlays whose element moved: drawn again in place, same timers.
  updated(list) {
    for (const o of list) {
      const item = this.items.get(o.id);
      if (!item) continue;
      const g = this.draw(o);
      if (item.g.isConnected) item.g.replaceWith(g);
      item.g = g;
    }
  }
  removed(ids) { ids.forEach(id => this.remove(id)); }
  cleared() { [...this.items.keys()].forEach(id => this.remove(id)); }
  // The ids drawn now (for tests).
  ids() { return [...this.svg.querySelectorAll('g[data-overlay]')].map(g => g.dataset.overlay); }
}
