// The fake device's screen: draws the app's node tree (rectangles and text in
// the bitmap font) into an RGBA framebuffer. Pure function of the tree, so a
// screenshot always matches the uiautomator dump of the same moment.
import { GLYPH_H, GLYPH_W, glyphRows } from './font.mjs';

const COLORS = {
  background: [250, 250, 250, 255],
  statusbar: [33, 33, 33, 255],
  field: [255, 255, 255, 255],
  fieldBorder: [120, 120, 120, 255],
  focusBorder: [25, 118, 210, 255],
  button: [25, 118, 210, 255],
  buttonText: [255, 255, 255, 255],
  text: [20, 20, 20, 255],
  hint: [150, 150, 150, 255],
  icon: [76, 175, 80, 255],
};

class Canvas {
  constructor(width, height) {
    this.width = width;
    this.height = height;
    this.px = Buffer.alloc(width * height * 4);
  }

  fill(x0, y0, x1, y1, [r, g, b, a]) {
    x0 = Math.max(0, x0); y0 = Math.max(0, y0);
    x1 = Math.min(this.width, x1); y1 = Math.min(this.height, y1);
    if (x1 <= x0 || y1 <= y0) return;
    const row = Buffer.alloc((x1 - x0) * 4);
    for (let i = 0; i < row.length; i += 4) { row[i] = r; row[i + 1] = g; row[i + 2] = b; row[i + 3] = a; }
    for (let y = y0; y < y1; y++) row.copy(this.px, (y * this.width + x0) * 4);
  }

  frame(x0, y0, x1, y1, color, t) {
    this.fill(x0, y0, x1, y0 + t, color);
    this.fill(x0, y1 - t, x1, y1, color);
    this.fill(x0, y0, x0 + t, y1, color);
    this.fill(x1 - t, y0, x1, y1, color);
  }

  /** Text with its top-left corner at x, y; scale = pixels per font dot. */
  text(x, y, str, scale, color) {
    for (const ch of str) {
      const rows = glyphRows(ch);
      for (let r = 0; r < GLYPH_H; r++) {
        for (let c = 0; c < GLYPH_W; c++) {
          if (rows[r] & (16 >> c)) this.fill(x + c * scale, y + r * scale, x + (c + 1) * scale, y + (r + 1) * scale, color);
        }
      }
      x += (GLYPH_W + 1) * scale;
    }
  }
}

function textWidth(str, scale) {
  return [...str].length * (GLYPH_W + 1) * scale;
}

function drawNode(cv, node, scale) {
  const [[x0, y0], [x1, y1]] = node.bounds;
  const h = y1 - y0;
  const label = node.password ? node.text : node.text || node.hint || node.desc || '';
  const s = Math.max(1, Math.min(scale, Math.floor((h * 0.6) / GLYPH_H)));
  const ty = y0 + Math.floor((h - GLYPH_H * s) / 2);
  switch (node.kind) {
    case 'statusbar':
      cv.fill(x0, y0, x1, y1, COLORS.statusbar);
      cv.text(x0 + s * 4, ty, label, s, COLORS.buttonText);
      break;
    case 'field':
      cv.fill(x0, y0, x1, y1, COLORS.field);
      cv.frame(x0, y0, x1, y1, node.focused ? COLORS.focusBorder : COLORS.fieldBorder, Math.max(2, s));
      cv.text(x0 + s * 4, ty, label, s, node.text ? COLORS.text : COLORS.hint);
      break;
    case 'button':
      cv.fill(x0, y0, x1, y1, COLORS.button);
      cv.text(x0 + Math.floor((x1 - x0 - textWidth(label, s)) / 2), ty, label, s, COLORS.buttonText);
      break;
    case 'icon':
      cv.fill(x0, y0, x1, y0 + Math.floor(h * 0.7), COLORS.icon);
      cv.text(x0, y0 + Math.floor(h * 0.75), label, Math.max(1, Math.floor(s / 2)), COLORS.text);
      break;
    case 'text':
      cv.text(x0, ty, label, s, COLORS.text);
      break;
    case 'canvas': { // a game: words drawn on a surface, none in the tree
      const longest = Math.max(...node.paint.map((l) => [...l].length));
      const big = Math.max(1, Math.min(scale, Math.floor(((x1 - x0) * 0.9) / (longest * (GLYPH_W + 1)))));
      node.paint.forEach((line, i) => {
        const lx = x0 + Math.floor((x1 - x0 - textWidth(line, big)) / 2);
        cv.text(lx, y0 + Math.floor(h / 3) + i * GLYPH_H * big * 2, line, big, COLORS.text);
      });
      break;
    }
    default:
      break;
  }
  for (const child of node.children ?? []) drawNode(cv, child, scale);
}

/** Renders the tree into width×height RGBA; text scale follows the density. */
export function renderScreen(width, height, density, root) {
  const cv = new Canvas(width, height);
  cv.fill(0, 0, width, height, COLORS.background);
  drawNode(cv, root, Math.max(1, Math.round(density / 110)));
  return cv.px;
}
