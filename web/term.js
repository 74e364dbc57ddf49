// A terminal session in xterm.js: fed the screen first (a replay with its
// modes), then the program's raw output as it comes.
import { Terminal } from '/view/vendor/xterm/xterm.mjs';

export class TermView {
  constructor(el) {
    this.el = el;
    this.term = new Terminal({ cols: 80, rows: 24, scrollback: 1000, convertEol: false,
                               disableStdin: true, cursorBlink: false });
    this.term.open(el);
  }
  // Keys typed go to onKeys while the person holds control.
  setInput(onKeys) {
    if (this.dataSub) this.dataSub.dispose();
    this.dataSub = null;
    this.term.options.disableStdin = !onKeys;
    if (onKeys) {
      this.dataSub = this.term.onData(onKeys);
      this.term.focus();
    }
  }
  resize(cols, rows) {
    this.term.resize(cols, rows);
    this.term.reset();
  }
  write(bytes) {
    this.term.write(bytes);
  }
  // What the screen shows, one string per row (for tests and the bench).
  lines() {
    const buf = this.term.buffer.active;
    const out = [];
    for (let i = 0; i < this.term.rows; i++) {
      const line = buf.getLine(buf.viewportY + i);
      out.push(line ? line.translateToString(true).trimEnd() : '');
    }
    return out;
  }
  dispose() {
    this.term.dispose();
  }
}
