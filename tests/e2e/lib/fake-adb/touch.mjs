// The fake device's input nodes: `getevent -p` in the toolbox's numeric
// format (power keys, volume keys, and with the device option `touchscreen`
// a multi-touch panel at /dev/input/event1 whose ranges, 0..4095 on both
// axes, differ from the screen so scaling shows), and the panel itself:
// bytes written to it are decoded as struct input_event (24 bytes for a
// 64-bit ABI, 16 for a 32-bit one) with multi-touch protocol B, and each
// finger lifted becomes what `input tap` / `input swipe` would have done.
export const TOUCH_NODE = '/dev/input/event1';
const RAW_MAX = 4095;

const EV_SYN = 0;
const EV_KEY = 1;
const EV_ABS = 3;
const ABS_MT_SLOT = 0x2f;
const ABS_MT_POSITION_X = 0x35;
const ABS_MT_POSITION_Y = 0x36;
const ABS_MT_TRACKING_ID = 0x39;
const BTN_TOUCH = 0x14a;

const abs = (code, max) => `${code}  : value 0, min 0, max ${max}, fuzz 0, flat 0, resolution 0`;

/** getevent -p's stdout for dev. */
export function geteventP(dev) {
  const out = [
    'add device 1: /dev/input/event0',
    '  name:     "qpnp_pon"',
    '  events:',
    '    KEY (0001): 0074 ',
    '  input props:',
    '    <none>',
  ];
  if (dev.touchscreen) {
    out.push(
      `add device 2: ${TOUCH_NODE}`,
      '  name:     "fts_ts"',
      '  events:',
      '    KEY (0001): 0145  014a ',
      `    ABS (0003): ${abs('002f', 9)}`,
      `                ${abs('0030', 255)}`,
      `                ${abs('0035', RAW_MAX)}`,
      `                ${abs('0036', RAW_MAX)}`,
      `                ${abs('0039', 65535)}`,
      `                ${abs('003a', 127)}`,
      '  input props:',
      '    INPUT_PROP_DIRECT',
    );
  }
  out.push(
    'add device 3: /dev/input/event2',
    '  name:     "gpio-keys"',
    '  events:',
    '    KEY (0001): 0072  0073 ',
    '    SW  (0005): 0000 ',
    '  input props:',
    '    <none>',
  );
  return out.join('\n') + '\n';
}

/** Whether the shell user may write path (test -w). */
export function writable(dev, path) {
  return path === TOUCH_NODE && dev.touchscreen === true;
}

/** Whether path exists among the input nodes. */
export function isNode(dev, path) {
  return path === '/dev/input/event0' || path === '/dev/input/event2' || (path === TOUCH_NODE && !!dev.touchscreen);
}

/** Raw panel coordinates → screen pixels as apps see them now (TouchInputMapper's mapping). */
function toDisplay(dev, rx, ry) {
  const base = dev.sizeOverride ?? { width: dev.width, height: dev.height };
  const w = base.width;
  const h = base.height;
  const nx = Math.floor((rx * w) / (RAW_MAX + 1));
  const ny = Math.floor((ry * h) / (RAW_MAX + 1));
  switch (dev.rotation()) {
    case 1: return { x: ny, y: w - 1 - nx };
    case 2: return { x: w - 1 - nx, y: h - 1 - ny };
    case 3: return { x: h - 1 - ny, y: nx };
    default: return { x: nx, y: ny };
  }
}

/**
 * A writer of the touch node (one `cat > /dev/input/event1`): feed it bytes;
 * whole events are decoded, a partial one waits for the rest. Each
 * SYN_REPORT applies the frame: a tracking id appearing is a finger down, a
 * move while down extends its path, -1 lifts it — then a short still press
 * is a tap, a still one of 500 ms or more a long press, else a swipe.
 */
export class TouchWriter {
  constructor(dev) {
    this.dev = dev;
    this.size = /64/.test(dev.props['ro.product.cpu.abi']) ? 24 : 16;
    this.buf = Buffer.alloc(0);
    this.slot = { id: -1, x: 0, y: 0 };
    this.pending = {};
    this.down = null;
  }

  write(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    const n = Math.floor(this.buf.length / this.size) * this.size;
    for (let at = 0; at < n; at += this.size) {
      const p = at + this.size - 8;
      const type = this.buf.readUInt16LE(p);
      const code = this.buf.readUInt16LE(p + 2);
      const value = this.buf.readInt32LE(p + 4);
      this.dev.record('evdev', { type, code, value });
      this.event(type, code, value);
    }
    this.buf = this.buf.subarray(n);
  }

  event(type, code, value) {
    if (type === EV_ABS && code === ABS_MT_SLOT && value !== 0) throw new Error('fake panel: only slot 0');
    if (type === EV_ABS && code === ABS_MT_TRACKING_ID) this.pending.id = value;
    if (type === EV_ABS && code === ABS_MT_POSITION_X) this.pending.x = value;
    if (type === EV_ABS && code === ABS_MT_POSITION_Y) this.pending.y = value;
    if (type === EV_KEY && code === BTN_TOUCH) this.pending.btn = value;
    if (type === EV_SYN && code === 0) this.report();
  }

  report() {
    const was = this.slot.id;
    Object.assign(this.slot, this.pending);
    this.pending = {};
    const at = toDisplay(this.dev, this.slot.x, this.slot.y);
    if (was < 0 && this.slot.id >= 0) {
      this.down = { from: at, to: at, time: Date.now(), moved: 0 };
    } else if (this.down && this.slot.id >= 0) {
      this.down.to = at;
      this.down.moved = Math.max(this.down.moved, Math.abs(at.x - this.down.from.x) + Math.abs(at.y - this.down.from.y));
    } else if (was >= 0 && this.slot.id < 0 && this.down) {
      this.lift(this.down);
      this.down = null;
    }
  }

  lift({ from, to, time, moved }) {
    const dev = this.dev;
    const ms = Date.now() - time;
    const { width, height } = dev.displaySize();
    if (moved < 8) {
      const long = ms >= 500;
      const hit = dev.apps.tap(from.x, from.y, width, height);
      if (long) dev.record('longpress', { x1: from.x, y1: from.y, x2: to.x, y2: to.y, ms, via: 'events' });
      else dev.record('tap', { x: from.x, y: from.y, hit: hit?.id || hit?.text || null, via: 'events' });
      return;
    }
    dev.record('swipe', { x1: from.x, y1: from.y, x2: to.x, y2: to.y, ms, via: 'events' });
  }
}
