// One fake device: identity and connection state, screen geometry, settings,
// files, the apps, and the log of everything received. The server asks it to
// run shell command lines; tests read and change it through its setters.
import { FakeApps, defaultPackages, gamePackage } from './app.mjs';
import { ADB_IME, execCommand } from './commands.mjs';

const LATIN_IME = 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME';
import { FakeFs } from './fs.mjs';
import { encodePng } from './png.mjs';
import { renderScreen } from './render.mjs';
import { runScript } from './sh.mjs';
import { TouchWriter, isNode, writable } from './touch.mjs';
import { dumpXml } from './uixml.mjs';

export class FakeDevice {
  /**
   * opts: serial, state ('device' | 'offline' | 'unauthorized'), model, product, device,
   * width, height, density, release, sdk, rawHeader (16: Android 9+, 12: older),
   * settingsWritable, telephony, adbKeyboard (true | 'selected'), keptShell, screenrecord, game (installs com.example.game,
   * whose words are only in the pixels).
   */
  constructor(opts = {}) {
    this.serial = opts.serial ?? 'emulator-5554';
    this.state = opts.state ?? 'device';
    this.model = opts.model ?? 'Pixel_7';
    this.product = opts.product ?? 'panther';
    this.deviceName = opts.device ?? 'panther';
    this.width = opts.width ?? 1080;
    this.height = opts.height ?? 2400;
    this.density = opts.density ?? 440;
    this.rawHeader = opts.rawHeader ?? 16;
    this.sizeOverride = null;
    this.densityOverride = null;
    this.transportId = 0; // set by the server
    this.props = {
      'ro.product.model': this.model.replace(/_/g, ' '),
      'ro.product.name': this.product,
      'ro.product.device': this.deviceName,
      'ro.product.manufacturer': opts.manufacturer ?? 'Google',
      'ro.product.cpu.abi': opts.abi ?? 'x86_64',
      'ro.build.version.release': opts.release ?? '13',
      'ro.build.version.sdk': String(opts.sdk ?? 33),
      'ro.serialno': this.serial,
      'ro.sf.lcd_density': String(this.density),
      'ro.build.characteristics': 'phone',
    };
    this.settings = {
      system: { user_rotation: '0', accelerometer_rotation: '0' },
      secure: { default_input_method: LATIN_IME },
      global: { wifi_on: '1', mobile_data: '1', airplane_mode_on: '0' },
    };
    /** false: `settings put` is refused as on MIUI without "USB debugging (Security settings)". */
    this.settingsWritable = opts.settingsWritable ?? true;
    /** false: no phone service (a tablet or TV): `svc data` fails. */
    this.telephony = opts.telephony ?? true;
    /** Installed input methods; adbKeyboard: true adds ADBKeyBoard (selected with adbKeyboard: 'selected'). */
    this.inputMethods = [LATIN_IME, ...(opts.adbKeyboard ? [ADB_IME] : [])];
    if (opts.adbKeyboard === 'selected') this.settings.secure.default_input_method = ADB_IME;
    /** false: `shell,v2,raw:` with no command is refused (FAIL closed), as by a server or adbd that will not keep one. */
    this.keptShell = opts.keptShell ?? true;
    /**
     * screenrecord: true (h264 to stdout, through ffmpeg), 'old' (before Android 5: no --output-format),
     * 'fails' (the encoder refuses), 'fails-latin1' (the same, its words with a Latin-1 byte), 'sized-fails' (it refuses any --size), false (no screenrecord at all).
     */
    this.screenrecord = opts.screenrecord ?? true;
    /** Seconds after which every screenrecord ends, whatever its --time-limit (null: as asked). */
    this.screenrecordLimit = opts.screenrecordLimit ?? null;
    /** ms between the two halves of each write of screenrecord's encoder (0: none). */
    this.screenrecordGapMs = opts.screenrecordGapMs ?? 0;
    /** {width, height}: the running screenrecords send their next pictures at that size, in
     * the same stream (new parameter sets: an encoder reconfigured mid-stream); null: as asked. */
    this.screenrecordResize = null;
    /** The pids of the ffmpeg encoders of this device's screenrecords still running. */
    this.encoders = new Set();
    /**
     * touchscreen: true (a panel at /dev/input/event1 the shell user may write: touch events),
     * 'readonly' (listed by getevent, not writable: clients fall back), false (none, the default).
     */
    this.touchscreen = opts.touchscreen ?? false;
    /** The stdin of the running one-shot services (server.mjs); those copied into an input node have .touch. */
    this.feeds = new Set();
    this.fs = new FakeFs();
    const packages = defaultPackages();
    if (opts.game) packages.set(...gamePackage());
    this.apps = new FakeApps(packages);
    /** Every service request and every simple command, in order: {kind, ...}. */
    this.log = [];
    this.uiXmlOverride = null;
    this.dropPlan = null;
    this.failPlan = null;
    this.cache = { key: null, png: null, raw: null };
  }

  record(kind, fields = {}) {
    this.log.push({ kind, time: Date.now(), ...fields });
  }

  /** Entries of one kind, e.g. dev.entries('text') → every `input text` typed. */
  entries(kind) {
    return this.log.filter((e) => e.kind === kind);
  }

  rotation() {
    return Number(this.settings.system.user_rotation) & 3;
  }

  /** The display as apps see it now: the override size, rotated. */
  displaySize() {
    const base = this.sizeOverride ?? { width: this.width, height: this.height };
    return this.rotation() & 1 ? { width: base.height, height: base.width } : base;
  }

  tree() {
    const { width, height } = this.displaySize();
    return this.apps.tree(width, height);
  }

  uiXml() {
    return this.uiXmlOverride ?? dumpXml(this.tree(), this.rotation());
  }

  frame() {
    const { width, height } = this.displaySize();
    // What only the pixels show (the game's words) is part of the key too.
    const key = this.uiXml() + width + 'x' + height + this.apps.screenOn + JSON.stringify(this.apps.game);
    if (this.cache.key !== key) {
      const px = renderScreen(width, height, this.densityOverride ?? this.density, this.tree());
      if (!this.apps.screenOn) px.fill(0);
      this.cache = { key, px, width, height, png: null, raw: null };
    }
    return this.cache;
  }

  screenshotPng() {
    const f = this.frame();
    f.png ??= encodePng(f.width, f.height, f.px);
    return f.png;
  }

  /** screencap without -p: width, height, format 1 (RGBA_8888)[, colour space 1 = sRGB], pixels. */
  screenshotRaw() {
    const f = this.frame();
    if (f.raw && f.raw.length === this.rawHeader + f.px.length) return f.raw;
    const head = Buffer.alloc(this.rawHeader);
    head.writeUInt32LE(f.width, 0);
    head.writeUInt32LE(f.height, 4);
    head.writeUInt32LE(1, 8);
    if (this.rawHeader >= 16) head.writeUInt32LE(1, 12);
    f.raw = Buffer.concat([head, f.px]);
    return f.raw;
  }

  /** The state of one sh that runs line after line (adb shell reading stdin): its variables and $?. */
  shellSession() {
    return { env: this.shellEnv(), exited: false };
  }

  shellEnv() {
    return { __fs: this.fs, __dev: this, HOME: '/', PATH: '/product/bin:/apex/com.android.runtime/bin:/system/bin', USER: 'shell' };
  }

  /** Runs a shell command line (in session's sh when given); io = {out, err, stdin}. Returns the exit status. */
  async runShell(line, io, session = null) {
    const expansions = [];
    const env = session ? session.env : this.shellEnv();
    if (session) io = { ...io, exited: () => { session.exited = true; } };
    const entry = { kind: 'shell', time: Date.now(), line, expansions, argv: [] };
    this.log.push(entry);
    const code = await runScript(line, io, (argv, cio) => {
      entry.argv.push(argv);
      const plan = this.failPlan;
      if (plan && plan.match.test(argv.join(' '))) {
        this.failPlan = null;
        cio.err(Buffer.from(plan.stderr));
        return plan.status;
      }
      return execCommand(this, argv, cio);
    }, env, expansions);
    entry.exit = code;
    return code;
  }

  /** A redirection into an input node: {write} or {error} (the errno text sh prints). */
  openInputNode(path) {
    if (!isNode(this, path)) return { error: 'No such file or directory' };
    if (!writable(this, path)) return { error: 'Permission denied' };
    const w = new TouchWriter(this);
    return { write: (b) => w.write(Buffer.from(b)) };
  }

  /** The `cat > /dev/input/event1` streams running now. */
  touchStreams() {
    return [...this.feeds].filter((f) => f.touch).length;
  }

  // ---- setters for tests ----

  /** Kills every `cat` writing to an input node (the service ends with status 137). */
  killTouchStreams() {
    for (const f of this.feeds) if (f.touch) f.kill();
  }

  setState(state) { this.state = state; }

  /** Makes the next simple command matching `match` (its words joined by spaces) fail: stderr, status. */
  failNextCommand({ match, stderr = '', status = 1 }) {
    this.failPlan = { match, stderr, status };
  }

  /**
   * Makes the next service call whose text matches `match` (default: any) drop the connection;
   * or the next line written to a kept shell (adb shell reading stdin) that matches.
   */
  dropNextCall({ match = null, after = '', then = 'offline' } = {}) {
    this.dropPlan = { match, after, then };
  }

  /** Holds every screencap's answer (its pixels already taken) until the returned release() is called. */
  holdScreencap() {
    let release;
    this.screencapHold = new Promise((r) => { release = r; });
    return () => { this.screencapHold = null; release(); };
  }

  /**
   * Holds screenrecord's frames: each change is taken but not encoded until
   * let go — release(n) lets the next n go, in order; done() ends the hold.
   */
  holdScreenrecord() {
    const hold = { release: 0 };
    this.screenrecordHold = hold;
    return { release: (n = 1) => { hold.release += n; }, done: () => { this.screenrecordHold = null; } };
  }

  /** Replaces the uiautomator XML (e.g. malformed) until set back to null. */
  setUiXml(xml) { this.uiXmlOverride = xml; }

  /** The login app's state: {username, password, focus, error, signedInAs}. */
  get login() { return this.apps.login; }

  get foreground() { return this.apps.foreground; }
}
