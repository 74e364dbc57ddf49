// The terminal peer the terminal benchmark compares glovebox with: a small
// in-process Node library built the way the TypeScript terminal MCP servers
// are built — node-pty for the pseudo-terminal, @xterm/headless for the
// emulator, and for screenshots the screen buffer turned into an SVG of the
// cells and rasterised to PNG with @resvg/resvg-js.
//
// It is not an MCP server: the benchmark calls these methods directly, so the
// peer pays no JSON-RPC, no pipe and no base64, which only flatters it.
// Where the servers it stands for differ in detail, it takes the faster way:
// waits are checked on each parsed write (no polling interval), and resvg
// loads the four DejaVu Sans Mono files instead of scanning the system fonts.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pty = require('node-pty');
const { Terminal } = require('@xterm/headless');
const { Resvg } = require('@resvg/resvg-js');

const now = () => process.hrtime.bigint();

// The same cell size as glovebox's screenshots (10×19 px): DejaVu Sans Mono
// advances 1233/2048 em, so 16.61 px type advances 10 px a cell.
const CELL_W = 10;
const CELL_H = 19;
const FONT_PX = 16.61;
const BASELINE = 15;
const DEFAULT_FG = '#d4d4d4'; // glovebox's defaults
const DEFAULT_BG = '#1e1e1e';

const FONT_DIR = '/usr/share/fonts/truetype/dejavu';
export const monoFontFiles = ['DejaVuSansMono.ttf', 'DejaVuSansMono-Bold.ttf',
  'DejaVuSansMono-Oblique.ttf', 'DejaVuSansMono-BoldOblique.ttf']
  .map((f) => `${FONT_DIR}/${f}`)
  .filter((f) => existsSync(f));

/** resvg options: only the monospace files (fast), or the system fonts as a
 * server that does not configure fonts gets. */
export function resvgOptions({ systemFonts = false } = {}) {
  return {
    fitTo: { mode: 'original' },
    font: systemFonts
      ? { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans Mono', monospaceFamily: 'DejaVu Sans Mono' }
      : { loadSystemFonts: false, fontFiles: monoFontFiles, defaultFontFamily: 'DejaVu Sans Mono',
          monospaceFamily: 'DejaVu Sans Mono' },
  };
}

// xterm's 256-colour palette: 16 ANSI colours, the 6×6×6 cube, 24 greys.
const ANSI16 = ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
  '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'];
const hex2 = (v) => v.toString(16).padStart(2, '0');
const PALETTE = [...ANSI16];
for (let i = 0; i < 216; i++) {
  const level = (v) => (v === 0 ? 0 : 55 + v * 40);
  PALETTE.push(`#${hex2(level(Math.floor(i / 36)))}${hex2(level(Math.floor(i / 6) % 6))}${hex2(level(i % 6))}`);
}
for (let i = 0; i < 24; i++) PALETTE.push(`#${hex2(8 + i * 10).repeat(3)}`);

const rgbHex = (v) => `#${v.toString(16).padStart(6, '0')}`;

function fgOf(cell) {
  if (cell.isFgRGB()) return rgbHex(cell.getFgColor());
  if (cell.isFgPalette()) {
    const i = cell.getFgColor();
    return PALETTE[cell.isBold() && i < 8 ? i + 8 : i];
  }
  return DEFAULT_FG;
}

function bgOf(cell) {
  if (cell.isBgRGB()) return rgbHex(cell.getBgColor());
  if (cell.isBgPalette()) return PALETTE[cell.getBgColor()];
  return DEFAULT_BG;
}

const escapeXml = (s) => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

export class XtermPeer {
  /**
   * Starts command ([file, ...args]) in a cols×rows pty behind an xterm.
   * env is added to this process's environment, as glovebox does.
   */
  constructor({ command, cols = 120, rows = 40, env = {}, scrollback = 10000, cwd = process.cwd() }) {
    this.cols = cols;
    this.rows = rows;
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.exited = null;
    this.waiters = new Set();
    this.pty = pty.spawn(command[0], command.slice(1), {
      name: 'xterm-256color',
      cols,
      rows,
      cwd,
      env: { ...process.env, TERM: 'xterm-256color', COLORTERM: 'truecolor', ...env },
    });
    this.pid = this.pty.pid;
    this.pty.onData((data) => this.term.write(data));
    this.exitPromise = new Promise((resolve) => {
      this.pty.onExit((e) => {
        this.exited = e;
        this.#check();
        resolve(e);
      });
    });
    this.term.onWriteParsed(() => this.#check());
  }

  /** The visible screen as trimmed lines. */
  lines() {
    const buf = this.term.buffer.active;
    const out = [];
    for (let y = 0; y < this.rows; y++) out.push(buf.getLine(buf.viewportY + y)?.translateToString(true).trimEnd() ?? '');
    return out;
  }

  #find(w) {
    const lines = this.lines();
    for (let row = 0; row < lines.length; row++) {
      const line = lines[row];
      if (w.regex ? w.regex.test(line) : line.includes(w.text)) return { row, line };
    }
    return null;
  }

  #check() {
    for (const w of this.waiters) {
      const hit = this.#find(w);
      if (hit) w.finish({ matched: true, ...hit });
      else if (this.exited) w.finish({ matched: false, reason: 'the program exited' });
    }
  }

  /** Types text as glovebox's type_text does: "\n" is Enter (CR). */
  type(text) {
    this.pty.write(text.replace(/\n/g, '\r'));
  }

  /**
   * Resolves {matched, row, line, elapsedMs, reason} once text (plain, on one
   * line) or regex (a RegExp, per line) is on the screen: checked at once,
   * then after every write xterm has parsed.
   */
  waitFor({ text, regex, timeoutMs = 10000 }) {
    const started = now();
    return new Promise((resolve) => {
      const w = { text, regex };
      const timer = setTimeout(() => w.finish({ matched: false, reason: 'timeout' }), timeoutMs);
      w.finish = (r) => {
        clearTimeout(timer);
        this.waiters.delete(w);
        resolve({ ...r, elapsedMs: Number(now() - started) / 1e6 });
      };
      this.waiters.add(w);
      const hit = this.#find(w);
      if (hit) w.finish({ matched: true, ...hit });
      else if (this.exited) w.finish({ matched: false, reason: 'the program exited' });
    });
  }

  /** The screen as an SVG document: one rect per run of background colour,
   * one text element per run of identical text attributes, and the cursor. */
  svg() {
    const buf = this.term.buffer.active;
    const W = this.cols * CELL_W;
    const H = this.rows * CELL_H;
    const parts = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ` +
        `font-family="DejaVu Sans Mono, monospace" font-size="${FONT_PX}" xml:space="preserve">`,
      `<rect width="${W}" height="${H}" fill="${DEFAULT_BG}"/>`,
    ];
    const texts = [];
    const cell = buf.getNullCell();
    for (let y = 0; y < this.rows; y++) {
      const line = buf.getLine(buf.viewportY + y);
      if (!line) continue;
      const top = y * CELL_H;
      let bgRun = null; // {x, color, n}
      let textRun = null; // {x, key, attrs, chars}
      const flushBg = () => {
        if (bgRun && bgRun.color !== DEFAULT_BG)
          parts.push(`<rect x="${bgRun.x * CELL_W}" y="${top}" width="${bgRun.n * CELL_W}" height="${CELL_H}" fill="${bgRun.color}"/>`);
        bgRun = null;
      };
      const flushText = () => {
        if (textRun && textRun.chars.trim()) {
          const a = textRun.attrs;
          texts.push(`<text x="${textRun.x * CELL_W}" y="${top + BASELINE}" fill="${a.fg}"` +
            (a.bold ? ' font-weight="bold"' : '') + (a.italic ? ' font-style="italic"' : '') +
            (a.dim ? ' fill-opacity="0.5"' : '') +
            (a.deco ? ` text-decoration="${a.deco}"` : '') +
            `>${escapeXml(textRun.chars.trimEnd())}</text>`);
        }
        textRun = null;
      };
      for (let x = 0; x < this.cols; x++) {
        line.getCell(x, cell);
        const width = cell.getWidth();
        if (width === 0) continue; // the right half of a wide character
        let fg = fgOf(cell);
        let bg = bgOf(cell);
        if (cell.isInverse()) [fg, bg] = [bg, fg];
        if (!bgRun || bgRun.color !== bg || bgRun.x + bgRun.n !== x) {
          flushBg();
          bgRun = { x, color: bg, n: 0 };
        }
        bgRun.n += width;
        const chars = cell.isInvisible() ? ' ' : cell.getChars() || ' ';
        const deco = [cell.isUnderline() ? 'underline' : '', cell.isStrikethrough() ? 'line-through' : '']
          .filter(Boolean).join(' ');
        const key = `${fg}|${cell.isBold()}|${cell.isItalic()}|${cell.isDim()}|${deco}`;
        if (chars === ' ' && !deco) {
          // Blanks end no run: they only advance the pen (preserved spaces).
          if (textRun) textRun.chars += ' ';
          continue;
        }
        if (!textRun || textRun.key !== key || textRun.wide) {
          flushText();
          textRun = { x, key, chars: '', attrs: { fg, bold: cell.isBold(), italic: cell.isItalic(), dim: cell.isDim(), deco } };
        }
        textRun.chars += chars;
        // A wide glyph is not two advances wide in the font: start afresh.
        if (width === 2) textRun.wide = true;
      }
      flushBg();
      flushText();
    }
    parts.push(...texts);
    if (this.exited === null) {
      const cx = buf.cursorX * CELL_W;
      const cy = buf.cursorY * CELL_H;
      parts.push(`<rect x="${cx}" y="${cy}" width="${CELL_W}" height="${CELL_H}" fill="${DEFAULT_FG}" fill-opacity="0.6"/>`);
    }
    parts.push('</svg>');
    return parts.join('');
  }

  /** Screenshot: SVG build, resvg render and PNG encode. Returns the PNG,
   * its size and the SVG's length. */
  screenshotPng(options = resvgOptions()) {
    const svg = this.svg();
    const image = new Resvg(svg, options).render();
    const png = image.asPng();
    return { png, width: image.width, height: image.height, svgBytes: svg.length };
  }

  /** Ends the session as glovebox's session_stop does (SIGHUP, then SIGKILL
   * after 2 s) and frees the emulator. */
  async stop() {
    if (!this.exited) {
      try {
        this.pty.kill('SIGHUP');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          this.pty.kill('SIGKILL');
        } catch {
          // already gone
        }
      }, 2000);
      await this.exitPromise;
      clearTimeout(timer);
    }
    this.term.dispose();
  }
}

/** Resident set size of this process in KiB (VmRSS). */
export function selfRssKiB() {
  return rssKiB('self');
}

/** VmRSS of a process in KiB, or null when it cannot be read. */
export function rssKiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
