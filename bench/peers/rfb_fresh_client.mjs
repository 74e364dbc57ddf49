// The fresh-client way to take a VNC screenshot, as the Python VNC MCP
// servers do per call: connect, handshake (security None), ask for one full
// update in raw 32-bit pixels, read it, encode a PNG (zlib at its default
// level), close. A minimal RFB 3.8 client written for the benchmark; it runs
// in the benchmark's own process, so it pays no MCP round trip or process
// start (its figures are a lower bound for such a server).
import { connect } from 'node:net';
import { deflateSync } from 'node:zlib';

function reader(socket) {
  let buf = Buffer.alloc(0);
  let want = null;
  const pump = () => {
    if (want && buf.length >= want.n) {
      const w = want;
      want = null;
      const out = buf.subarray(0, w.n);
      buf = buf.subarray(w.n);
      w.resolve(out);
    }
  };
  socket.on('data', (d) => {
    buf = buf.length ? Buffer.concat([buf, d]) : d;
    pump();
  });
  socket.on('error', (e) => want?.reject(e));
  return (n) => new Promise((resolve, reject) => {
    want = { n, resolve, reject };
    pump();
  });
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** RGB PNG of BGRX little-endian pixels (as asked of the server below). */
export function encodePng(width, height, pixels) {
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      const s = (y * width + x) * 4;
      raw[row + 1 + x * 3] = pixels[s + 2];
      raw[row + 2 + x * 3] = pixels[s + 1];
      raw[row + 3 + x * 3] = pixels[s];
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** One screenshot, the fresh-client way: resolves the PNG. */
export async function freshScreenshot(port, host = '127.0.0.1') {
  const socket = connect({ host, port });
  socket.setNoDelay(true);
  const read = reader(socket);
  try {
    await read(12);
    socket.write('RFB 003.008\n');
    const n = (await read(1))[0];
    const types = await read(n);
    if (!types.includes(1)) throw new Error('the server does not offer security None');
    socket.write(Buffer.from([1]));
    if ((await read(4)).readUInt32BE(0) !== 0) throw new Error('security failed');
    socket.write(Buffer.from([1])); // shared
    const init = await read(24);
    const width = init.readUInt16BE(0);
    const height = init.readUInt16BE(2);
    await read(init.readUInt32BE(20));
    // 32 bpp little-endian, red at 16, green 8, blue 0; raw only.
    const fmt = Buffer.from([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
    const enc = Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]);
    const req = Buffer.alloc(10);
    req[0] = 3;
    req.writeUInt16BE(width, 6);
    req.writeUInt16BE(height, 8);
    socket.write(Buffer.concat([fmt, enc, req]));
    const pixels = Buffer.alloc(width * height * 4);
    let covered = 0;
    while (covered < width * height) {
      const head = await read(4);
      if (head[0] !== 0) {
        // Not an update (a bell, colour map, cut text): the benchmark's server sends none.
        throw new Error(`unexpected server message ${head[0]}`);
      }
      const rects = head.readUInt16BE(2);
      for (let i = 0; i < rects; i++) {
        const r = await read(12);
        const [x, y, w, h] = [r.readUInt16BE(0), r.readUInt16BE(2), r.readUInt16BE(4), r.readUInt16BE(6)];
        if (r.readInt32BE(8) !== 0) throw new Error(`encoding ${r.readInt32BE(8)}, asked for raw`);
        const data = w * h ? await read(w * h * 4) : Buffer.alloc(0);
        for (let row = 0; row < h; row++) data.copy(pixels, ((y + row) * width + x) * 4, row * w * 4, (row + 1) * w * 4);
        covered += w * h;
      }
    }
    return encodePng(width, height, pixels);
  } finally {
    socket.destroy();
  }
}
