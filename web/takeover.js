// Takeover of a desktop: while this page holds control of the session, the
// pointer and keyboard on its canvas reach the desktop. The server turns
// these messages into X input (XTEST) and keysyms:
//   {type: 'pointer', x, y, button?, down?}  screen pixels; button 0 a move,
//                                            1 left, 2 middle, 3 right, 4-7 a wheel click
//   {type: 'key', key, code, down}           KeyboardEvent.key and .code
// Pointer moves go at most once per animation frame.

const WHEEL_PIXELS = 100; // of wheel delta per click (deltaMode 0)
const WHEEL_LINES = 3;    // lines per click (deltaMode 1)

export class DeskInput {
  // canvas: the desktop's canvas; send(obj) sends a message;
  // toScreen(clientX, clientY): screen pixels of a point on the page
  // (default: the canvas is the whole screen, scaled to its box).
  constructor(canvas, send, toScreen) {
    this.canvas = canvas;
    this.send = send;
    this.toScreen = toScreen || ((cx, cy) => {
      const r = canvas.getBoundingClientRect();
      return [Math.floor((cx - r.left) * canvas.width / (r.width || 1)),
              Math.floor((cy - r.top) * canvas.height / (r.height || 1))];
    });
    this.on = false;
    this.keys = new Map(); // code -> key, held down on this page
    this.wheel = [0, 0];
    this.pending = null;
    this.frame = 0;
    this.handlers = {
      pointermove: e => this.move(e),
      pointerdown: e => this.button(e, true),
      pointerup: e => this.button(e, false),
      wheel: e => this.onWheel(e),
      contextmenu: e => e.preventDefault(),
      keydown: e => this.key(e, true),
      keyup: e => this.key(e, false),
      blur: () => this.letGo(),
    };
    this.opts = { passive: false };
  }

  // On while this page has control of the desktop.
  enable(on) {
    if (on === this.on) return;
    this.on = on;
    const c = this.canvas;
    for (const [name, fn] of Object.entries(this.handlers)) {
      if (on) c.addEventListener(name, fn, this.opts);
      else c.removeEventListener(name, fn, this.opts);
    }
    c.tabIndex = on ? 0 : -1;
    c.classList.toggle('takeover', on);
    if (on) c.focus();
    else this.letGo();
  }

  dispose() {
    this.enable(false);
    cancelAnimationFrame(this.frame);
  }

  point(e) {
    return this.toScreen(e.clientX, e.clientY);
  }

  move(e) {
    this.pending = this.point(e);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  flush() {
    this.frame = 0;
    if (!this.pending) return;
    const [x, y] = this.pending;
    this.pending = null;
    this.send({ type: 'pointer', x, y });
  }

  button(e, down) {
    e.preventDefault();
    if (down) {
      this.canvas.focus();
      this.canvas.setPointerCapture?.(e.pointerId);
    }
    this.pending = null;
    const [x, y] = this.point(e);
    // Browser buttons 0 left, 1 middle, 2 right; X: 1, 2, 3.
    const button = [1, 2, 3][e.button];
    if (button) this.send({ type: 'pointer', x, y, button, down });
  }

  onWheel(e) {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? WHEEL_LINES : e.deltaMode === 2 ? 1 / 100 : WHEEL_PIXELS;
    const [x, y] = this.point(e);
    const axes = [[e.deltaY, 5, 4], [e.deltaX, 7, 6]];
    axes.forEach(([delta, forward, back], i) => {
      this.wheel[i] += delta;
      while (Math.abs(this.wheel[i]) >= unit) {
        const sign = Math.sign(this.wheel[i]);
        this.wheel[i] -= sign * unit;
        this.send({ type: 'pointer', x, y, button: sign > 0 ? forward : back, down: true });
      }
    });
  }

  key(e, down) {
    if (e.isComposing) return;
    // Every key goes to the desktop: Tab, Backspace and shortcuts too.
    e.preventDefault();
    if (down) this.keys.set(e.code, e.key);
    else this.keys.delete(e.code);
    this.send({ type: 'key', key: e.key, code: e.code, down });
  }

  // Keys still down when the page loses the keyboard are let go.
  letGo() {
    for (const [code, key] of this.keys) this.send({ type: 'key', key, code, down: false });
    this.keys.clear();
  }
}
