// Shell protocol v2 framing (adb's shell_protocol.h): 1-byte packet id and a
// 4-byte little-endian length, then the payload.
export const ID_STDIN = 0;
export const ID_STDOUT = 1;
export const ID_STDERR = 2;
export const ID_EXIT = 3;
export const ID_CLOSE_STDIN = 4;
export const ID_WINDOW_SIZE_CHANGE = 5;

export function packet(id, data) {
  const head = Buffer.alloc(5);
  head[0] = id;
  head.writeUInt32LE(data.length, 1);
  return Buffer.concat([head, data]);
}

/** Reads client→device packets from a growing buffer; calls onPacket(id, payload). */
export class PacketReader {
  constructor(onPacket) {
    this.buf = Buffer.alloc(0);
    this.onPacket = onPacket;
  }

  push(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    while (this.buf.length >= 5) {
      const len = this.buf.readUInt32LE(1);
      if (this.buf.length < 5 + len) break;
      const id = this.buf[0];
      const payload = this.buf.subarray(5, 5 + len);
      this.buf = this.buf.subarray(5 + len);
      this.onPacket(id, payload);
    }
  }
}

/**
 * A service's stdin as it comes (stdin packets), for a command that reads it
 * while running (`cat > /dev/input/event1`): one reader iterates the chunks
 * until close-stdin; kill() makes the reader fail as a killed process.
 */
export class StdinFeed {
  constructor() {
    this.chunks = [];
    this.closed = false;
    this.killed = false;
    this.wake = null;
  }

  push(chunk) { this.chunks.push(chunk); this.wake?.(); }

  close() { this.closed = true; this.wake?.(); }

  kill() { this.killed = true; this.wake?.(); }

  async *[Symbol.asyncIterator]() {
    for (;;) {
      if (this.killed) throw new Error('killed');
      if (this.chunks.length) { yield this.chunks.shift(); continue; }
      if (this.closed) return;
      await new Promise((r) => { this.wake = r; });
      this.wake = null;
    }
  }
}
