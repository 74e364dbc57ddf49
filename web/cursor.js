// The remote pointer a VNC server sends apart from its screen (its cursor
// shape), drawn as an image in the overlay layer at the pointer's point
// less the shape's hotspot: above the canvas, so the screen's tiles stay as
// they are when only the pointer moves. Cropped and scaled with the layer.
const NS = 'http://www.w3.org/2000/svg';

export class CursorLayer {
  constructor(svg) {
    this.svg = svg;
    this.img = null;
    this.hot = [0, 0];
  }
  // A `cursor` message: {shown, image, width, height, hot_x, hot_y, x, y}
  // for a new shape, {x, y} for a move, {shown: false} for none.
  update(m) {
    if (m.shown === false) { this.clear(); return; }
    if (m.image) {
      if (!this.img) {
        this.img = document.createElementNS(NS, 'image');
        this.img.id = 'gb-cursor';
        this.img.setAttribute('preserveAspectRatio', 'none');
      }
      this.img.setAttribute('href', m.image);
      this.img.setAttribute('width', m.width);
      this.img.setAttribute('height', m.height);
      this.hot = [m.hot_x, m.hot_y];
    }
    if (!this.img || m.x === undefined) return;
    this.img.setAttribute('x', m.x - this.hot[0]);
    this.img.setAttribute('y', m.y - this.hot[1]);
    this.img.dataset.x = m.x;
    this.img.dataset.y = m.y;
    // Above the agent's overlays drawn before it.
    if (this.img.nextSibling || !this.img.isConnected) this.svg.append(this.img);
  }
  clear() {
    this.img?.remove();
    this.img = null;
  }
}
