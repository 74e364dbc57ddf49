// The fake device's `screenrecord --output-format=h264 … -`: the screen as an
// H.264 Annex B stream on stdout, a new frame only when the screen changes (as
// SurfaceFlinger composes the virtual display only then), until --time-limit
// (default and most 180 s) or the client leaving. The fake has no encoder of its
// own: Debian's ffmpeg (libx264, tests only) encodes the RGBA frames piped to
// it, scaled to --size. Other output formats are not faked.
import { spawn } from 'node:child_process';

const enc = (s) => Buffer.from(s, 'utf8');
const MAX_TIME_LIMIT = 180;
const POLL_MS = 15; // how often the screen is looked at for a change

const USAGE = `Usage: screenrecord [options] <filename>

Android screenrecord v1.3.  Records the device's display to a .mp4 file.

Options:
--size WIDTHxHEIGHT
    Set the video size, e.g. "1280x720".  Default is the device's main
    display resolution (if supported), 1280x720 if not.  For best results,
    use a size supported by the AVC encoder.
--bit-rate RATE
    Set the video bit rate, in bits per second.  Value may be specified as
    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.
--time-limit TIME
    Set the maximum recording time, in seconds.  Default / maximum is 180.
--output-format FORMAT
    Format of the output. One of: mp4, h264, webm, 3gpp, frames, raw-frames.
--help
    Show this message.
`;

/** Every ffmpeg a fake screenrecord runs, by pid: tests check none outlives its stream. */
export const encoders = new Set();

function parseArgs(dev, args) {
  const o = { format: 'mp4', size: null, bitRate: 20000000, timeLimit: MAX_TIME_LIMIT, file: null };
  const value = (i, name) => {
    const a = args[i];
    const eq = a.indexOf('=');
    return eq >= 0 ? [a.slice(eq + 1), i] : [args[i + 1], i + 1, name];
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.split('=')[0];
    if (!a.startsWith('--') || a === '-') { o.file = a; continue; }
    // Before Android 5 there was no --output-format.
    if (name === '--output-format' && dev.screenrecord === 'old') return { error: `screenrecord: unrecognized option '${a}'\n${USAGE}`, code: 2 };
    if (name === '--help') return { help: true };
    if (name === '--verbose' || name === '--bugreport' || name === '--rotate') continue;
    if (!['--size', '--bit-rate', '--time-limit', '--output-format', '--display-id'].includes(name)) {
      return { error: `screenrecord: unrecognized option '${a}'\n${USAGE}`, code: 2 };
    }
    let v;
    [v, i] = value(i, name);
    if (v === undefined) return { error: `screenrecord: option '${name}' requires an argument\n${USAGE}`, code: 2 };
    if (name === '--size') {
      const m = /^(\d+)x(\d+)$/.exec(v);
      if (!m || Number(m[1]) === 0 || Number(m[2]) === 0) return { error: `Invalid size '${v}', must be width x height\n`, code: 2 };
      o.size = { width: Number(m[1]), height: Number(m[2]) };
    } else if (name === '--bit-rate') {
      const m = /^(\d+)(M?)$/.exec(v);
      if (!m) return { error: `Invalid bit rate '${v}'\n`, code: 2 };
      o.bitRate = Number(m[1]) * (m[2] ? 1000000 : 1);
    } else if (name === '--time-limit') {
      const t = Number(v);
      if (!Number.isInteger(t) || t < 1 || t > MAX_TIME_LIMIT) {
        return { error: `Time limit ${v}s outside acceptable range [1,${MAX_TIME_LIMIT}]\n`, code: 2 };
      }
      o.timeLimit = t;
    } else if (name === '--output-format') {
      if (!['mp4', 'h264', 'webm', '3gpp', 'frames', 'raw-frames'].includes(v)) return { error: `Unknown format '${v}'\n`, code: 2 };
      o.format = v;
    }
  }
  return o;
}

export async function screenrecord(dev, args, io) {
  if (dev.screenrecord === false) { io.err(enc('/system/bin/sh: screenrecord: inaccessible or not found\n')); return 127; }
  const o = parseArgs(dev, args);
  if (o.help) { io.err(enc(USAGE)); return 0; }
  if (o.error) { io.err(enc(o.error)); return o.code; }
  if (o.file === null) { io.err(enc(`Must specify output file (see --help).\n`)); return 2; }
  if (o.format !== 'h264' || o.file !== '-') {
    io.err(enc(`fake device: only --output-format=h264 to stdout ("-") is faked\n`));
    return 1;
  }
  const { width, height } = dev.displaySize();
  const size = o.size ?? { width, height };
  dev.record('screenrecord', { size, bitRate: o.bitRate, timeLimit: o.timeLimit });
  // The encoder refuses: any size ('fails': no AVC encoder), or sizes other
  // than the display's ('sized-fails': one that wants multiples of 16);
  // 'fails-latin1' says so with a vendor's Latin-1 byte (not UTF-8).
  if (dev.screenrecord === 'fails-latin1') {
    io.err(Buffer.concat([enc(`ERROR: unable to configure video/avc codec at ${size.width}x${size.height} (encodeur `),
      Buffer.from([0x72, 0xe9, 0x66, 0x75, 0x73, 0xe9]), enc(')\n')]));
    return 1;
  }
  if (dev.screenrecord === 'fails' || (dev.screenrecord === 'sized-fails' && o.size)) {
    io.err(enc(`ERROR: unable to configure video/avc codec at ${size.width}x${size.height} (err=-2147483648)\n`));
    return 1;
  }
  // dev.screenrecordResize = {width, height}: from then on the pictures
  // come at that size, new parameter sets and all, in the same stream (an
  // encoder reconfigured mid-stream); one ffmpeg per size.
  let sent = Promise.resolve();
  const all = [];
  const startEncoder = (sz) => {
    const ff = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgba',
      '-s', `${width}x${height}`, '-framerate', '60', '-probesize', '32', '-analyzeduration', '0', '-i', '-',
      '-vf', `scale=${sz.width}:${sz.height}`, '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency',
      '-b:v', String(o.bitRate), '-pix_fmt', 'yuv420p', '-flush_packets', '1', '-f', 'h264', '-'],
    { stdio: ['pipe', 'pipe', 'pipe'] });
    encoders.add(ff.pid);
    dev.encoders.add(ff.pid);
    // screenrecordGapMs: each write of the encoder reaches the client in two
    // halves that far apart (a busy link or machine), in order.
    ff.stdout.on('data', (d) => {
      const gap = dev.screenrecordGapMs;
      if (!gap || d.length < 2) { sent = sent.then(() => io.out(d)); return; }
      const half = d.length >> 1;
      sent = sent.then(() => io.out(d.subarray(0, half)))
        .then(() => new Promise((r) => setTimeout(r, gap)))
        .then(() => { if (!io.signal?.aborted) io.out(d.subarray(half)); });
    });
    const e = { ff, size: sz, err: '' };
    ff.stderr.on('data', (d) => { e.err += d; });
    ff.stdin.on('error', () => {});
    e.exited = new Promise((resolve) => ff.on('close', (code) => {
      encoders.delete(ff.pid);
      dev.encoders.delete(ff.pid);
      resolve(code);
    }));
    all.push(e);
    return e;
  };
  let cur = startEncoder(size);
  const exited = cur.exited;
  let last = null;
  let writing = false;
  // dev.holdScreenrecord(): frames are taken as the screen changes but queued,
  // not encoded, until the test lets them go (a slow encoder or link).
  const queue = [];
  const tick = () => {
    if (writing) return;
    const resize = dev.screenrecordResize;
    if (resize && resize !== cur.size) {
      cur = startEncoder(resize);
      last = null; // the screen again, at the new size
    }
    const f = dev.frame();
    // The display rotated: screenrecord keeps its size; the fake just stops sending.
    if (f.px !== last && f.width === width && f.height === height) {
      last = f.px;
      queue.push(f.px);
    }
    const hold = dev.screenrecordHold;
    while (queue.length && !writing && (!hold || hold.release > 0)) {
      if (hold) hold.release--;
      writing = !cur.ff.stdin.write(queue.shift());
      if (writing) cur.ff.stdin.once('drain', () => { writing = false; });
    }
  };
  tick();
  const timer = setInterval(tick, POLL_MS);
  await new Promise((resolve) => {
    const t = setTimeout(resolve, Math.min(o.timeLimit, dev.screenrecordLimit ?? Infinity) * 1000);
    io.signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
    exited.then(() => { clearTimeout(t); resolve(); });
  });
  clearInterval(timer);
  for (const e of all) {
    if (io.signal?.aborted) e.ff.kill('SIGKILL'); // nobody reads the rest
    else e.ff.stdin.end(); // the time limit: the frames sent so far are flushed
  }
  for (const e of all) {
    const code = await e.exited;
    if (code !== 0 && !io.signal?.aborted) io.err(enc(`fake device: ffmpeg failed: ${e.err}\n`));
  }
  return 0;
}
