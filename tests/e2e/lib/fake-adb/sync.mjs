// The sync: service (adb's file_sync_protocol.h, version 1): STAT, LIST, RECV,
// SEND (DATA… DONE), QUIT — enough for `adb push` and `adb pull` against the
// fake device's in-memory files. Requests: 4-byte id + 4-byte LE length.
const MAX_DATA = 64 * 1024;

function header(id, ...words) {
  const b = Buffer.alloc(4 + 4 * words.length);
  b.write(id, 0, 'latin1');
  words.forEach((w, i) => b.writeUInt32LE(w >>> 0, 4 + 4 * i));
  return b;
}

function fail(msg) {
  const m = Buffer.from(msg);
  return Buffer.concat([header('FAIL', m.length), m]);
}

export class SyncSession {
  /** write(buf) sends to the client; end() half-closes; dev is the FakeDevice. */
  constructor(dev, write, end) {
    this.dev = dev;
    this.write = write;
    this.end = end;
    this.buf = Buffer.alloc(0);
    this.send = null; // {path, mode, chunks} while a SEND is receiving DATA
    this.done = false;
  }

  push(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    while (!this.done && this.buf.length >= 8) {
      const id = this.buf.toString('latin1', 0, 4);
      const len = this.buf.readUInt32LE(4);
      // DONE inside a SEND carries the mtime in the length field, with no payload.
      const payloadLen = this.send && id === 'DONE' ? 0 : len;
      if (this.buf.length < 8 + payloadLen) break;
      const payload = this.buf.subarray(8, 8 + payloadLen);
      this.buf = this.buf.subarray(8 + payloadLen);
      this.request(id, len, payload);
    }
  }

  request(id, len, payload) {
    const fs = this.dev.fs;
    if (this.send) {
      if (id === 'DATA') { this.send.chunks.push(Buffer.from(payload)); return; }
      if (id === 'DONE') {
        const { path, mode, chunks } = this.send;
        this.send = null;
        const ok = fs.write(path, Buffer.concat(chunks), false, mode, len);
        this.dev.record('push', { path, bytes: chunks.reduce((n, c) => n + c.length, 0), ok });
        this.write(ok ? header('OKAY', 0) : fail(`couldn't create file: No such file or directory`));
        return;
      }
      this.write(fail(`unexpected sync packet ${id} during SEND`));
      this.finish();
      return;
    }
    const path = payload.toString('utf8');
    switch (id) {
      case 'STAT': {
        const st = fs.stat(path);
        this.write(header('STAT', st?.mode ?? 0, st?.size ?? 0, st?.mtime ?? 0));
        return;
      }
      case 'LIST': {
        for (const name of fs.list(path)) {
          const st = fs.stat(`${path}/${name}`);
          const n = Buffer.from(name);
          this.write(Buffer.concat([header('DENT', st.mode, st.size, st.mtime, n.length), n]));
        }
        this.write(header('DONE', 0, 0, 0, 0));
        return;
      }
      case 'RECV': {
        const data = fs.read(path);
        this.dev.record('pull', { path, bytes: data?.length ?? null });
        if (data === null) { this.write(fail('No such file or directory')); return; }
        for (let off = 0; off < data.length; off += MAX_DATA) {
          const part = data.subarray(off, off + MAX_DATA);
          this.write(Buffer.concat([header('DATA', part.length), part]));
        }
        this.write(header('DONE', 0));
        return;
      }
      case 'SEND': {
        const comma = path.lastIndexOf(',');
        const mode = comma >= 0 ? Number(path.slice(comma + 1)) : 0o644;
        this.send = { path: comma >= 0 ? path.slice(0, comma) : path, mode: mode | 0o100000, chunks: [] };
        return;
      }
      case 'QUIT':
        this.finish();
        return;
      default:
        this.write(fail(`unknown sync request ${JSON.stringify(id)}`));
        this.finish();
    }
  }

  finish() {
    this.done = true;
    this.end();
  }
}
