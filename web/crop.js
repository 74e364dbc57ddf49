// Part of the screen in this window: the address's vx, vy, vw, vh (a region
// in the desktop's pixels) and scale (how many page pixels per desktop
// pixel), or monitor=N (a monitor the server reports, from RandR on X): one
// monitor per browser window on a desk of several. A bad value is said on
// the page and the whole screen is shown.
const INT = /^\d{1,6}$/;
const NUM = /^\d{1,3}(\.\d{1,4})?$/;

// What the address asks for: { region?, monitor?, scale, error? }.
export function parseCrop(search) {
  const q = new URLSearchParams(search);
  const want = { scale: 1 };
  const bad = (why) => ({ scale: 1, error: `The address asks for a view glovebox cannot show: ${why}. Showing the whole screen.` });
  const keys = ['vx', 'vy', 'vw', 'vh'].filter((k) => q.has(k));
  if (q.has('scale')) {
    const s = q.get('scale');
    if (!NUM.test(s) || !(Number(s) >= 0.1 && Number(s) <= 8)) return bad(`scale must be a number from 0.1 to 8 (got "${s}")`);
    want.scale = Number(s);
  }
  if (q.has('monitor')) {
    const m = q.get('monitor');
    if (keys.length) return bad('give either monitor or vx, vy, vw, vh, not both');
    if (!INT.test(m) || Number(m) > 15) return bad(`monitor must be a whole number from 0 to 15 (got "${m}")`);
    want.monitor = Number(m);
    return want;
  }
  if (!keys.length) return want;
  for (const k of keys) {
    const v = q.get(k);
    if (!INT.test(v)) return bad(`${k} must be a whole number of pixels, 0 or more (got "${v}")`);
  }
  if (!q.has('vw') || !q.has('vh')) return bad('vw and vh (the region\'s width and height) go with vx and vy');
  const r = { x: Number(q.get('vx') ?? 0), y: Number(q.get('vy') ?? 0), width: Number(q.get('vw')), height: Number(q.get('vh')) };
  if (r.width < 1 || r.height < 1) return bad('vw and vh must be 1 or more');
  want.region = r;
  return want;
}

// Shows the region of a desktop width×height (canvas and overlay layer
// alike); monitors: [{x, y, width, height}] as the server reported them,
// null while not known.
// Returns an error to show, or null.
export function applyCrop(want, width, height, monitors, screen, canvas, svg) {
  let r = want.region;
  let error = null;
  if (want.monitor !== undefined && monitors) { // null: not known yet
    const m = monitors[want.monitor];
    if (m) r = { x: m.x, y: m.y, width: m.width, height: m.height };
    else error = `This screen has ${monitors.length || 'no'} monitor${monitors.length === 1 ? '' : 's'} glovebox knows of; monitor=${want.monitor} is not one (they count from 0). Showing the whole screen.`;
  }
  if (r && (r.x + r.width > width || r.y + r.height > height)) {
    error = `The region ${r.x},${r.y} ${r.width}×${r.height} does not fit the ${width}×${height} screen. Showing the whole screen.`;
    r = null;
  }
  if (!r) r = { x: 0, y: 0, width, height };
  const s = want.scale;
  const whole = r.x === 0 && r.y === 0 && r.width === width && r.height === height && s === 1;
  screen.style.width = whole ? '' : `${r.width * s}px`;
  screen.style.height = whole ? '' : `${r.height * s}px`;
  screen.style.overflow = whole ? '' : 'hidden';
  for (const e of [canvas, svg]) {
    e.style.transformOrigin = '0 0';
    e.style.transform = whole ? '' : `translate(${-r.x * s}px, ${-r.y * s}px) scale(${s})`;
    e.style.maxWidth = whole ? '' : 'none';
  }
  svg.style.width = whole ? '' : `${width}px`;
  svg.style.height = whole ? '' : `${height}px`;
  screen.dataset.crop = whole ? '' : `${r.x},${r.y},${r.width},${r.height},${s}`;
  return { region: r, scale: s, error };
}

// A line above the screen saying what is wrong with the address (or
// nothing): not the page's message line, which sessions come and go on.
export function showNote(text) {
  let p = document.getElementById('viewnote');
  if (!p) {
    p = document.createElement('p');
    p.id = 'viewnote';
    p.setAttribute('role', 'alert');
    p.style.color = '#ffb4a8';
    document.getElementById('screen').before(p);
  }
  p.textContent = text || '';
  p.hidden = !text;
}

// Back to no crop (another session is shown).
export function resetCrop(screen, canvas, svg) {
  for (const e of [screen, canvas, svg]) e.removeAttribute('style');
  delete screen.dataset.crop;
}
