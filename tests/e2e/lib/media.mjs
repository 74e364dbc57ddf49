// Minimal readers for the recording formats, enough to check what a user's
// player would find: animated WebP (RIFF chunks) and WebM (EBML elements).
import assert from 'node:assert/strict';

/** {width, height, frames} of a WebP file (animated or still). */
export function readWebp(buf) {
  assert.equal(buf.subarray(0, 4).toString('latin1'), 'RIFF', 'not a RIFF file');
  assert.equal(buf.subarray(8, 12).toString('latin1'), 'WEBP', 'not a WebP file');
  assert.equal(buf.readUInt32LE(4) + 8, buf.length, 'the RIFF size is not the file size');
  let width = 0;
  let height = 0;
  let frames = 0;
  let still = false;
  for (let off = 12; off + 8 <= buf.length; ) {
    const id = buf.subarray(off, off + 4).toString('latin1');
    const size = buf.readUInt32LE(off + 4);
    const body = buf.subarray(off + 8, off + 8 + size);
    if (id === 'VP8X') {
      width = body.readUIntLE(4, 3) + 1;
      height = body.readUIntLE(7, 3) + 1;
    } else if (id === 'ANMF') {
      frames++;
    } else if (id === 'VP8 ' && !width) {
      still = true;
      width = body.readUInt16LE(6) & 0x3fff;
      height = body.readUInt16LE(8) & 0x3fff;
    } else if (id === 'VP8L' && !width) {
      still = true;
      const bits = body.readUInt32LE(1);
      width = (bits & 0x3fff) + 1;
      height = ((bits >> 14) & 0x3fff) + 1;
    }
    off += 8 + size + (size & 1);
  }
  return { width, height, frames: frames || (still ? 1 : 0) };
}

// EBML element ids (with their length marker) that hold other elements:
// Segment, Tracks, TrackEntry, Video, Cluster, BlockGroup, Info, Cues.
const MASTER = new Set([0x18538067, 0x1654ae6b, 0xae, 0xe0, 0x1f43b675, 0xa0, 0x1549a966, 0x1c53bb6b]);

function vint(buf, off, keepMarker) {
  const first = buf[off];
  let len = 1;
  while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
  assert.ok(len <= 8, `bad EBML length at ${off}`);
  let v = keepMarker ? first : first & (0xff >> len);
  let allOnes = v === (0xff >> len);
  for (let i = 1; i < len; i++) {
    v = v * 256 + buf[off + i];
    if (buf[off + i] !== 0xff) allOnes = false;
  }
  return { v, len, unknown: !keepMarker && allOnes };
}

/**
 * {docType, codec, width, height, blocks, cues, durationMs} of a WebM file:
 * cues counts the index's cue points (where a player can seek to; written
 * only when the file was finished), durationMs is the Segment's Duration.
 */
export function readWebm(buf) {
  assert.equal(buf.readUInt32BE(0), 0x1a45dfa3, 'no EBML header');
  const out = { docType: '', codec: '', width: 0, height: 0, blocks: 0, cues: 0, durationMs: 0 };
  let timecodeScale = 1000000;
  let duration = 0;
  const walk = (start, end) => {
    for (let off = start; off < end; ) {
      const id = vint(buf, off, true);
      const size = vint(buf, off + id.len, false);
      const body = off + id.len + size.len;
      const stop = size.unknown ? end : Math.min(end, body + size.v);
      if (id.v === 0x1a45dfa3) walk(body, stop);
      else if (id.v === 0x4282) out.docType = buf.subarray(body, stop).toString('latin1');
      else if (id.v === 0x86) out.codec = buf.subarray(body, stop).toString('latin1');
      else if (id.v === 0xb0) out.width = buf.readUIntBE(body, stop - body);
      else if (id.v === 0xba) out.height = buf.readUIntBE(body, stop - body);
      else if (id.v === 0xa3 || id.v === 0xa1) out.blocks++;
      else if (id.v === 0xbb) out.cues++;
      else if (id.v === 0x2ad7b1) timecodeScale = buf.readUIntBE(body, stop - body);
      else if (id.v === 0x4489) duration = stop - body === 4 ? buf.readFloatBE(body) : buf.readDoubleBE(body);
      else if (MASTER.has(id.v)) walk(body, stop);
      off = stop;
    }
  };
  walk(0, buf.length);
  out.durationMs = (duration * timecodeScale) / 1e6;
  return out;
}
