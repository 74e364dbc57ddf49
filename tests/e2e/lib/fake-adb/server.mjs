// The smart-socket side of the fake adb server: requests are 4 hex digits of
// length + text; host services answer OKAY/FAIL and close, a transport switch
// keeps the connection for exactly one device service (shell, exec, sync).
// Every connection ends with a half-close and a drain before the close, so the
// client never loses output to a reset.
import net from 'node:net';
import { FakeDevice } from './device.mjs';
import { ID_CLOSE_STDIN, ID_EXIT, ID_STDERR, ID_STDIN, ID_STDOUT, PacketReader, StdinFeed, packet } from './shellv2.mjs';
import { SyncSession } from './sync.mjs';

const hex4 = (n) => n.toString(16).padStart(4, '0');
const UNAUTHORIZED = "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n" +
  "Try 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.";
// Host commands that may follow host:, host-serial:S:, host-transport-id:N:, host-usb: or host-local:.
const PER_DEVICE = ['features', 'get-state', 'get-serialno', 'get-devpath'];

export class FakeAdbServer {
  /** opts: devices (array of FakeDevice options), version (adb server version, 41 for adb 29). */
  constructor({ devices = [{}], version = 41, features = ['shell_v2'] } = {}) {
    this.version = version;
    this.features = features;
    this.devices = [];
    this.nextTransportId = 1;
    this.requests = []; // every smart-socket request, in order
    this.sockets = new Set();
    for (const d of devices) this.addDevice(d);
  }

  addDevice(opts) {
    const dev = opts instanceof FakeDevice ? opts : new FakeDevice(opts);
    dev.transportId = this.nextTransportId++;
    this.devices.push(dev);
    return dev;
  }

  removeDevice(serial) {
    this.devices = this.devices.filter((d) => d.serial !== serial);
  }

  device(serial) {
    return serial === undefined ? this.devices[0] : this.devices.find((d) => d.serial === serial);
  }

  listen(port = 0, host = '127.0.0.1') {
    this.server = net.createServer({ allowHalfOpen: true }, (s) => this.accept(s));
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve(this.server.address().port));
    });
  }

  close() {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  devicesText(long) {
    return this.devices.map((d) => {
      if (!long) return `${d.serial}\t${d.state}\n`;
      const info = d.state === 'device' ? ` product:${d.product} model:${d.model} device:${d.deviceName}` : '';
      return `${d.serial.padEnd(22)} ${d.state}${info} transport_id:${d.transportId}\n`;
    }).join('');
  }

  /** Picks a device like the real server: {dev} or {error}. by: serial, id, or null for any. */
  select({ serial = null, id = null } = {}) {
    let dev;
    if (serial !== null) {
      dev = this.devices.find((d) => d.serial === serial);
      if (!dev) return { error: `device '${serial}' not found` };
    } else if (id !== null) {
      dev = this.devices.find((d) => d.transportId === id);
      if (!dev) return { error: `no device with transport id '${id}'` };
    } else {
      if (!this.devices.length) return { error: 'no devices/emulators found' };
      if (this.devices.length > 1) return { error: 'more than one device/emulator' };
      [dev] = this.devices;
    }
    if (dev.state === 'offline') return { error: 'device offline (no transport)' };
    if (dev.state === 'unauthorized') return { error: UNAUTHORIZED };
    return { dev };
  }

  accept(sock) {
    this.sockets.add(sock);
    sock.setNoDelay(true);
    sock.on('close', () => this.sockets.delete(sock));
    sock.on('error', () => {});
    const conn = { sock, dev: null, buf: Buffer.alloc(0), sink: null };
    sock.on('data', (chunk) => {
      if (conn.sink) { conn.sink(chunk); return; }
      conn.buf = Buffer.concat([conn.buf, chunk]);
      while (!conn.sink && conn.buf.length >= 4) {
        const len = parseInt(conn.buf.toString('latin1', 0, 4), 16);
        if (!/^[0-9a-fA-F]{4}$/.test(conn.buf.toString('latin1', 0, 4))) {
          this.fail(conn, 'bad request length');
          return;
        }
        if (conn.buf.length < 4 + len) return;
        const req = conn.buf.toString('utf8', 4, 4 + len);
        conn.buf = conn.buf.subarray(4 + len);
        this.requests.push(req);
        this.request(conn, req);
      }
    });
    // The client closing its side after we half-closed ends the drain.
    sock.on('end', () => { if (conn.finished) sock.destroy(); else conn.onEnd?.(); });
  }

  write(conn, data) {
    if (!conn.sock.destroyed && conn.sock.writable) conn.sock.write(data);
  }

  /** Half-close, keep reading (drain) until the client closes, then close; bounded. */
  finish(conn) {
    if (conn.finished) return;
    conn.finished = true;
    conn.sink = () => {};
    conn.sock.end();
    if (conn.sock.readableEnded) conn.sock.destroy();
    setTimeout(() => conn.sock.destroy(), 5000).unref();
  }

  okay(conn) { this.write(conn, Buffer.from('OKAY')); }

  reply(conn, payload) {
    const p = Buffer.from(payload, 'utf8');
    this.write(conn, Buffer.concat([Buffer.from('OKAY' + hex4(p.length)), p]));
    this.finish(conn);
  }

  fail(conn, msg) {
    const p = Buffer.from(msg, 'utf8');
    this.write(conn, Buffer.concat([Buffer.from('FAIL' + hex4(p.length)), p]));
    this.finish(conn);
  }

  request(conn, req) {
    if (conn.dev) { this.service(conn, conn.dev, req); return; }
    if (!req.startsWith('host')) { // a device service with no transport chosen: the only device
      const { dev, error } = this.select();
      if (error) this.fail(conn, error); else this.service(conn, dev, req);
      return;
    }
    if (req === 'host:version') { this.reply(conn, hex4(this.version)); return; }
    if (req === 'host:devices' || req === 'host:devices-l') { this.reply(conn, this.devicesText(req.endsWith('-l'))); return; }
    if (req === 'host:host-features') { this.reply(conn, this.features.join(',')); return; }
    if (req === 'host:kill') { this.okay(conn); this.finish(conn); return; } // the fake keeps running
    const switchTo = (sel, sendId) => {
      const { dev, error } = this.select(sel);
      if (error) { this.fail(conn, error); return; }
      conn.dev = dev;
      this.okay(conn);
      if (sendId) {
        const id = Buffer.alloc(8);
        id.writeBigUInt64LE(BigInt(dev.transportId));
        this.write(conn, id);
      }
    };
    let m;
    if ((m = /^host:tport:(serial:(.*)|any|usb|local)$/s.exec(req))) { switchTo({ serial: m[2] ?? null }, true); return; }
    if ((m = /^host:transport-id:(\d+)$/.exec(req))) { switchTo({ id: Number(m[1]) }, false); return; }
    if ((m = /^host:transport(?:-any|-usb|-local|:(.*))$/s.exec(req))) { switchTo({ serial: m[1] ?? null }, false); return; }
    const cmd = PER_DEVICE.find((c) => req.endsWith(':' + c));
    if (cmd) {
      const prefix = req.slice(0, -(cmd.length + 1));
      let sel = null;
      if (prefix === 'host' || prefix === 'host-usb' || prefix === 'host-local') sel = {};
      else if (prefix.startsWith('host-serial:')) sel = { serial: prefix.slice(12) };
      else if ((m = /^host-transport-id:(\d+)$/.exec(prefix))) sel = { id: Number(m[1]) };
      if (sel) {
        // get-state answers for any state; the others need a usable device.
        if (cmd === 'get-state' || cmd === 'get-serialno') {
          const found = sel.serial !== undefined ? this.devices.find((d) => d.serial === sel.serial)
            : sel.id !== undefined ? this.devices.find((d) => d.transportId === sel.id)
              : this.devices.length === 1 ? this.devices[0] : null;
          if (!found) { this.fail(conn, this.select(sel).error ?? 'no devices/emulators found'); return; }
          this.reply(conn, cmd === 'get-state' ? found.state : found.serial);
          return;
        }
        const { dev, error } = this.select(sel);
        if (error) { this.fail(conn, error); return; }
        this.reply(conn, cmd === 'features' ? this.features.join(',') : 'unknown');
        return;
      }
    }
    this.fail(conn, 'unknown host service');
  }

  /**
   * `adb shell` with no command (shell,v2,raw:): the device's sh reading stdin,
   * each line run as it arrives (variables and $? kept, as one sh), so a client
   * may keep it open and write commands one after another; `exit N`, close-stdin
   * or the client closing its side ends it with the last status.
   */
  interactive(conn, dev, out, err) {
    const session = dev.shellSession();
    let pending = '';
    let queue = Promise.resolve();
    let status = 0;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.write(conn, packet(ID_EXIT, Buffer.from([status & 0xff])));
      this.finish(conn);
    };
    const runLine = (line) => {
      queue = queue.then(async () => {
        if (ended) return;
        const plan = dev.dropPlan;
        if (plan && (!plan.match || plan.match.test(line))) { // the device goes away mid-line
          dev.dropPlan = null;
          ended = true;
          const data = Buffer.from(plan.after ?? '');
          conn.sock.write(data.length ? packet(ID_STDOUT, data) : Buffer.alloc(0), () => conn.sock.resetAndDestroy());
          if (plan.then === 'gone') this.removeDevice(dev.serial); else dev.setState(plan.then);
          return;
        }
        try {
          status = await dev.runShell(line, { out, err, stdin: Buffer.alloc(0) }, session);
        } catch (e) {
          err(`fake device: internal error: ${e.stack}\n`);
          status = 255;
        }
        if (session.exited) end();
      });
    };
    const closeStdin = () => {
      if (pending) runLine(pending);
      pending = '';
      queue = queue.then(end);
    };
    const reader = new PacketReader((id, payload) => {
      if (id === ID_STDIN) {
        pending += Buffer.from(payload).toString('utf8');
        let nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          runLine(pending.slice(0, nl));
          pending = pending.slice(nl + 1);
        }
      }
      if (id === ID_CLOSE_STDIN) closeStdin();
    });
    conn.sink = (chunk) => reader.push(chunk);
    conn.onEnd = () => { ended = true; conn.sock.destroy(); };
    if (conn.buf.length) reader.push(conn.buf);
  }

  service(conn, dev, req) {
    dev.record('service', { service: req });
    const plan = dev.dropPlan;
    if (plan && (!plan.match || plan.match.test(req))) {
      dev.dropPlan = null;
      const data = Buffer.from(plan.after ?? '');
      const head = Buffer.from('OKAY');
      const body = data.length && /^shell,[^:]*v2/.test(req) ? packet(ID_STDOUT, data) : data;
      // Reset only once the bytes reached the kernel; a reset with writes queued in node becomes a FIN.
      conn.sock.write(Buffer.concat([head, body]), () => conn.sock.resetAndDestroy());
      if (plan.then === 'gone') this.removeDevice(dev.serial); else dev.setState(plan.then);
      return;
    }
    const colon = req.indexOf(':');
    const name = colon < 0 ? req : req.slice(0, colon);
    const arg = colon < 0 ? '' : req.slice(colon + 1);
    const [svc, ...opts] = name.split(',');
    if (svc === 'shell' || svc === 'exec') {
      const v2 = svc === 'shell' && opts.includes('v2');
      // A device made with keptShell: false refuses a shell without a command.
      if (v2 && !arg && !dev.keptShell) { this.fail(conn, 'closed'); return; }
      this.okay(conn);
      const buf = (b) => (Buffer.isBuffer(b) ? b : Buffer.from(b)); // no copy of a 10 MB frame
      const out = (b) => this.write(conn, v2 ? packet(ID_STDOUT, buf(b)) : buf(b));
      const err = (b) => this.write(conn, v2 ? packet(ID_STDERR, buf(b)) : buf(b));
      if (v2 && !arg) {
        this.interactive(conn, dev, out, err);
        return;
      }
      const stdin = [];
      let stdinClosed = !v2;
      let onStdinClosed = null;
      // Commands that read stdin while they run (cat into an input node) take it from here.
      const feed = new StdinFeed();
      if (!v2) feed.close();
      if (v2) {
        const reader = new PacketReader((id, payload) => {
          if (id === ID_STDIN) { stdin.push(Buffer.from(payload)); feed.push(Buffer.from(payload)); }
          if (id === ID_CLOSE_STDIN) { stdinClosed = true; feed.close(); onStdinClosed?.(); }
        });
        conn.sink = (chunk) => reader.push(chunk);
        if (conn.buf.length) reader.push(conn.buf);
      } else {
        conn.sink = () => {};
      }
      // A command that runs until its client leaves (screenrecord) is told by this signal.
      // The client closing its side (a FIN, as adb's own client sends when it
      // stops reading) counts too: adbd then ends the service's process.
      const ac = new AbortController();
      ac.signal.addEventListener('abort', () => feed.close());
      conn.sock.once('close', () => ac.abort());
      conn.onEnd = () => ac.abort();
      const run = async () => {
        const line = arg;
        let code;
        try {
          dev.feeds.add(feed);
          code = await dev.runShell(line, { out, err, stdin: Buffer.concat(stdin), signal: ac.signal, stdinFeed: feed });
        } catch (e) {
          err(`fake device: internal error: ${e.stack}\n`);
          code = 255;
        }
        dev.feeds.delete(feed);
        if (v2) this.write(conn, packet(ID_EXIT, Buffer.from([code & 0xff])));
        this.finish(conn);
      };
      run();
      return;
    }
    if (svc === 'sync') {
      this.okay(conn);
      const session = new SyncSession(dev, (b) => this.write(conn, b), () => this.finish(conn));
      conn.sink = (chunk) => session.push(chunk);
      if (conn.buf.length) session.push(conn.buf);
      return;
    }
    this.fail(conn, 'closed');
  }
}
