// A small RFB 3.8 server that offers only Apple's security type 30 (the
// Diffie-Hellman authentication of macOS Screen Sharing), for the tests:
// the server side of that handshake (DH with the 1024-bit MODP group, MD5 of
// the shared secret as an AES-128-ECB key over 128 bytes of user name and
// password), then a tiny two-colour framebuffer sent raw in the pixel
// format the client asked for. Loopback only; closed when the test ends.
import { createDecipheriv, createHash, getDiffieHellman } from 'node:crypto';
import { createServer } from 'node:net';

const LEFT = [0x11, 0x22, 0xdd];
const RIGHT = [0xee, 0x44, 0x00];

/** Reads exact byte counts off a socket, in order. */
function reader(socket) {
  let buf = Buffer.alloc(0);
  let want = null;
  socket.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    pump();
  });
  function pump() {
    while (want && buf.length >= want.n) {
      const w = want;
      want = null;
      const out = buf.subarray(0, w.n);
      buf = buf.subarray(w.n);
      w.resolve(out);
    }
  }
  return (n) => new Promise((resolve) => {
    want = { n, resolve };
    pump();
  });
}

/** The screen's pixels in the client's format (true colour, 8-32 bpp). */
function rawRect(width, height, fmt) {
  const bpp = fmt.bpp / 8;
  const out = Buffer.alloc(width * height * bpp);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b] = x < width / 2 ? LEFT : RIGHT;
      const v = (((r * fmt.rmax) / 255) << fmt.rs) | (((g * fmt.gmax) / 255) << fmt.gs) | (((b * fmt.bmax) / 255) << fmt.bs);
      const at = (y * width + x) * bpp;
      if (bpp === 4) fmt.big ? out.writeUInt32BE(v >>> 0, at) : out.writeUInt32LE(v >>> 0, at);
      else if (bpp === 2) fmt.big ? out.writeUInt16BE(v, at) : out.writeUInt16LE(v, at);
      else out[at] = v;
    }
  return out;
}

async function serve(socket, { username, password, width, height, seen }) {
  const read = reader(socket);
  socket.write('RFB 003.008\n');
  await read(12);
  socket.write(Buffer.from([1, 30]));
  if ((await read(1))[0] !== 30) return socket.destroy();
  const dh = getDiffieHellman('modp2');
  dh.generateKeys();
  const len = dh.getPrime().length;
  const head = Buffer.alloc(4);
  head.writeUInt16BE(2, 0); // the generator
  head.writeUInt16BE(len, 2);
  const pub = Buffer.alloc(len);
  dh.getPublicKey().copy(pub, len - dh.getPublicKey().length);
  socket.write(Buffer.concat([head, dh.getPrime(), pub]));
  const cipher = await read(128);
  const theirs = await read(len);
  const secret = Buffer.alloc(len);
  const s = dh.computeSecret(theirs);
  s.copy(secret, len - s.length);
  const d = createDecipheriv('aes-128-ecb', createHash('md5').update(secret).digest(), null);
  d.setAutoPadding(false);
  const plain = Buffer.concat([d.update(cipher), d.final()]);
  const field = (b) => b.subarray(0, b.indexOf(0) < 0 ? b.length : b.indexOf(0)).toString('utf8');
  const got = { username: field(plain.subarray(0, 64)), password: field(plain.subarray(64, 128)) };
  seen.push(got);
  if (got.username !== username || got.password !== password) {
    const why = Buffer.from('Authentication failed: wrong user name or password');
    const r = Buffer.alloc(8);
    r.writeUInt32BE(1, 0);
    r.writeUInt32BE(why.length, 4);
    socket.end(Buffer.concat([r, why]));
    return;
  }
  socket.write(Buffer.alloc(4)); // SecurityResult OK
  await read(1); // ClientInit
  const name = Buffer.from('fake Mac');
  const init = Buffer.alloc(24);
  init.writeUInt16BE(width, 0);
  init.writeUInt16BE(height, 2);
  // 32 bpp, depth 24, little-endian, true colour, maxima 255, shifts 16/8/0.
  Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]).copy(init, 4);
  init.writeUInt32BE(name.length, 20);
  socket.write(Buffer.concat([init, name]));
  let fmt = { bpp: 32, big: false, rmax: 255, gmax: 255, bmax: 255, rs: 16, gs: 8, bs: 0 };
  for (;;) {
    const type = (await read(1))[0];
    if (type === 0) {
      const m = await read(19);
      const p = m.subarray(3);
      fmt = { bpp: p[0], big: p[2] !== 0, rmax: p.readUInt16BE(4), gmax: p.readUInt16BE(6), bmax: p.readUInt16BE(8), rs: p[10], gs: p[11], bs: p[12] };
    } else if (type === 2) {
      const m = await read(3);
      await read(m.readUInt16BE(1) * 4);
    } else if (type === 3) {
      const m = await read(9);
      if (m[0] !== 0) continue; // incremental: nothing changes here
      const up = Buffer.alloc(16);
      up.writeUInt16BE(1, 2);
      up.writeUInt16BE(width, 8);
      up.writeUInt16BE(height, 10);
      socket.write(Buffer.concat([up, rawRect(width, height, fmt)]));
    } else if (type === 4) await read(7);
    else if (type === 5) await read(5);
    else if (type === 6) {
      const m = await read(7);
      await read(m.readUInt32BE(3));
    } else return socket.destroy();
  }
}

/** Starts the server; resolves { port, seen } (seen: the credentials each
 * client sent, as the server decrypted them). */
export async function startArdServer(t, { username, password, width = 64, height = 48 }) {
  const sockets = new Set();
  const seen = [];
  const srv = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    serve(s, { username, password, width, height, seen }).catch(() => s.destroy());
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    srv.close();
  });
  return { port: srv.address().port, seen, left: LEFT, right: RIGHT };
}
