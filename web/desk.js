// A desktop on a canvas, drawn from the server's tile updates:
//   u8 1, u32 seq, u16 width, u16 height, u16 rects,
//   then per rect: u16 x, y, w, h, u8 format (0 PNG, 1 JPEG), u32 length, bytes.
// Every update is acknowledged once drawn; the server sends a page at most
// two updates ahead of its acknowledgements.
export class DeskView {
  constructor(canvas, ack, onSize) {
    this.canvas = canvas;
    this.onSize = onSize;
    this.ctx = canvas.getContext('2d');
    this.ack = ack;
    this.chain = Promise.resolve();
    this.frames = 0;
    this.bytes = 0;
  }
  update(buf) {
    const dv = new DataView(buf);
    const seq = dv.getUint32(1);
    const width = dv.getUint16(5), height = dv.getUint16(7), n = dv.getUint16(9);
    const rects = [];
    let off = 11;
    for (let i = 0; i < n; i++) {
      const x = dv.getUint16(off), y = dv.getUint16(off + 2);
      const fmt = dv.getUint8(off + 8), len = dv.getUint32(off + 9);
      const blob = new Blob([new Uint8Array(buf, off + 13, len)],
                            { type: fmt ? 'image/jpeg' : 'image/png' });
      rects.push({ x, y, blob });
      off += 13 + len;
    }
    this.bytes += buf.byteLength;
    const decoded = Promise.all(rects.map(r => createImageBitmap(r.blob)));
    this.chain = this.chain.then(() => decoded).then(bitmaps => {
      if (this.canvas.width !== width || this.canvas.height !== height) {
        this.canvas.width = width;
        this.canvas.height = height;
        this.onSize(width, height);
      }
      bitmaps.forEach((b, i) => { this.ctx.drawImage(b, rects[i].x, rects[i].y); b.close(); });
      this.frames++;
      this.lastDrawn = performance.now();
      this.ack(seq);
    }).catch(() => this.ack(seq));
  }
  // The colour of one pixel, [r, g, b] (for tests and the bench).
  pixel(x, y) {
    const d = this.ctx.getImageData(x, y, 1, 1).data;
    return [d[0], d[1], d[2]];
  }
}
