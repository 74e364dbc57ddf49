// The fake device's command set: what /system/bin holds for the tools the
// tests drive (wm, getprop, input, uiautomator, screencap, am, pm, monkey,
// dumpsys, settings, a few coreutils). A fixed table; an unknown name answers
// like mksh does (exit 127). Each entry: (dev, args, io) → exit status.
import { keyChar, keyCodeFromString } from './keycodes.mjs';
import { FakeFs } from './fs.mjs';
import { screenrecord } from './screenrecord.mjs';
import { geteventP, isNode, writable } from './touch.mjs';

const enc = (s) => Buffer.from(s, 'utf8');
export const ADB_IME = 'com.android.adbkeyboard/.AdbIME';

function usage(io, text, code = 1) {
  io.err(enc(text + '\n'));
  return code;
}

/** Android's `input text` rewrite: "%s" → space (Input.sendText's escape loop). */
export function inputTextRewrite(text) {
  const buff = [...text];
  let escape = false;
  for (let i = 0; i < buff.length; i++) {
    if (escape) {
      escape = false;
      if (buff[i] === 's') { buff[i] = ' '; buff.splice(--i, 1); }
    }
    if (buff[i] === '%') escape = true;
  }
  return buff.join('');
}

// The virtual keyboard's key character map covers printable ASCII, tab and newline.
const typeable = (s) => /^[\x20-\x7e\t\n]*$/.test(s);

function javaException(io, cmd, cls, msg) {
  io.err(enc(`Exception occurred while executing '${cmd}':\n${cls}: ${msg}\n` +
    '\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:0)\n'));
  return 255;
}

function input(dev, args, io) {
  let a = [...args];
  if (a[0] === '-d') a = a.slice(2);
  const SOURCES = ['keyboard', 'mouse', 'joystick', 'touchnavigation', 'touchpad', 'trackball', 'stylus', 'dpad',
    'gamepad', 'touchscreen', 'gamepad'];
  if (SOURCES.includes(a[0])) a = a.slice(1);
  const [sub, ...rest] = a;
  const num = (s) => {
    const n = Number(s);
    return Number.isFinite(n) && s !== '' ? n : null;
  };
  switch (sub) {
    case 'text': {
      if (rest[0] === undefined) return javaException(io, 'text', 'java.lang.IllegalArgumentException', 'Argument expected after "text"');
      const text = inputTextRewrite(rest[0]); // extra arguments are ignored, as on a device
      if (!typeable(text)) {
        return javaException(io, 'text', 'java.lang.NullPointerException', 'Attempt to get length of null array');
      }
      dev.record('text', { text });
      dev.apps.type(text);
      return 0;
    }
    case 'keyevent': {
      let flags = '';
      let keys = rest;
      while (keys[0] === '--longpress' || keys[0] === '--doubletap' || keys[0] === '--delay') {
        flags = keys[0].slice(2);
        keys = keys.slice(keys[0] === '--delay' ? 2 : 1);
      }
      if (!keys.length) return javaException(io, 'keyevent', 'java.lang.IllegalArgumentException', 'Argument expected after "keyevent"');
      for (const k of keys) {
        const code = keyCodeFromString(k);
        dev.record('key', { name: k, code, flags });
        const reps = flags === 'doubletap' ? 2 : 1;
        for (let r = 0; r < reps; r++) {
          const ch = keyChar(code);
          if (ch !== null) dev.apps.type(ch);
          else dev.apps.key(code);
        }
      }
      return 0;
    }
    case 'tap': {
      const [x, y] = rest.map(num);
      if (rest.length < 2 || x === null || y === null) {
        return javaException(io, 'tap', 'java.lang.NumberFormatException', `For input string: "${rest[0] ?? ''}"`);
      }
      const { width, height } = dev.displaySize();
      const hit = dev.apps.tap(x, y, width, height);
      dev.record('tap', { x, y, hit: hit?.id || hit?.text || null });
      return 0;
    }
    case 'swipe':
    case 'draganddrop': {
      const n = rest.map(num);
      if (rest.length < 4 || n.slice(0, 4).some((v) => v === null)) {
        return javaException(io, sub, 'java.lang.NumberFormatException', `For input string: "${rest[0] ?? ''}"`);
      }
      const [x1, y1, x2, y2, ms = 300] = n;
      const longPress = sub === 'swipe' && x1 === x2 && y1 === y2 && ms >= 500;
      dev.record(longPress ? 'longpress' : sub, { x1, y1, x2, y2, ms });
      if (longPress) {
        const { width, height } = dev.displaySize();
        dev.apps.tap(x1, y1, width, height);
      }
      return 0;
    }
    case 'motionevent': {
      // Android 11+: one touch event. A DOWN then an UP where it went down
      // is a tap on what is under it.
      const action = (rest[0] ?? '').toUpperCase();
      const [x, y] = rest.slice(1).map(num);
      if (!['DOWN', 'UP', 'MOVE', 'CANCEL'].includes(action) || x === null || y === null) {
        return javaException(io, 'motionevent', 'java.lang.IllegalArgumentException', `Unknown motionevent action: ${rest[0] ?? ''}`);
      }
      dev.record('motion', { action, x, y });
      if (action === 'DOWN') dev.touchDown = { x, y };
      if (action === 'UP' && dev.touchDown) {
        if (Math.abs(dev.touchDown.x - x) < 8 && Math.abs(dev.touchDown.y - y) < 8) {
          const { width, height } = dev.displaySize();
          dev.apps.tap(x, y, width, height);
        }
        dev.touchDown = null;
      }
      return 0;
    }
    case 'press':
      dev.record('key', { name: 'DPAD_CENTER', code: 23, flags: '' });
      return 0;
    case 'roll':
      dev.record('roll', { dx: num(rest[0]), dy: num(rest[1]) });
      return 0;
    default:
      return usage(io, 'Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\nThe commands and default sources are:\n' +
        '      text <string> (Default: touchscreen)\n      keyevent [--longpress|--doubletap] <key code number or name> ...\n' +
        '      tap <x> <y> (Default: touchscreen)\n      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n' +
        '      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)', 255);
  }
}

function uiautomator(dev, args, io) {
  if (args[0] !== 'dump') {
    return usage(io, 'Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n' +
      '\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n', 0);
  }
  const opts = args.slice(1).filter((s) => s.startsWith('--'));
  const path = args.slice(1).find((s) => !s.startsWith('--')) ?? '/sdcard/window_dump.xml';
  dev.record('uiautomator', { path, compressed: opts.includes('--compressed') });
  const xml = dev.uiXml();
  if (path === '/dev/tty' || path === '/dev/stdout') {
    io.out(enc(xml + `UI hierchary dumped to: ${path}\n`)); // no newline between: Android's output, typo included
    return 0;
  }
  if (!dev.fs.write(path, enc(xml))) {
    io.err(enc(`ERROR: could not write to ${path}\n`)); // uiautomator still exits 0 here
    return 0;
  }
  io.out(enc(`UI hierchary dumped to: ${path}\n`));
  return 0;
}

async function screencap(dev, args, io) {
  let png = false;
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-p') png = true;
    else if (args[i] === '-d') i++;
    else if (args[i] === '-h') return usage(io, 'usage: screencap [-hp] [-d display-id] [FILENAME]', 0);
    else rest.push(args[i]);
  }
  const file = rest[0];
  if (file && file.endsWith('.png')) png = true; // screencap picks PNG from the file name too
  const data = png ? dev.screenshotPng() : dev.screenshotRaw();
  dev.record('screencap', { png, file: file ?? null });
  // A test's hold on the answer (dev.holdScreencap()): the pixels are taken, the reply waits.
  if (dev.screencapHold) await dev.screencapHold;
  if (file) {
    if (!dev.fs.write(file, data)) return usage(io, `Error opening file: ${file} (No such file or directory)`);
  } else {
    io.out(data);
  }
  return 0;
}

function resolveComponent(dev, comp) {
  const [pkg, act] = comp.split('/');
  const info = dev.apps.packages.get(pkg);
  const full = act?.startsWith('.') ? pkg + act : act;
  return info && info.activity && info.activity === full ? pkg : null;
}

function am(dev, args, io) {
  const [sub, ...rest] = args;
  if (sub === 'start' || sub === 'start-activity') {
    let comp = null;
    let action = null;
    let data = null;
    for (let i = 0; i < rest.length; i++) {
      const o = rest[i];
      if (o === '-n') comp = rest[++i];
      else if (o === '-a') action = rest[++i];
      else if (o === '-d') data = rest[++i];
      else if (['-c', '-t', '-f', '--user', '--es', '--ei', '--ez'].includes(o)) i += o.startsWith('--e') ? 2 : 1;
      else if (!o.startsWith('-') && !comp && !data) data = o;
    }
    const desc = [action && `act=${action}`, data && `dat=${data}`, comp && `cmp=${comp}`].filter(Boolean).join(' ');
    io.out(enc(`Starting: Intent { ${desc} }\n`));
    dev.record('am-start', { component: comp, action, data });
    if (comp) {
      const pkg = resolveComponent(dev, comp);
      if (!pkg) {
        io.err(enc(`Error type 3\nError: Activity class {${comp}} does not exist.\n`));
        return 1;
      }
      dev.apps.launch(pkg);
      return 0;
    }
    if (action === 'android.intent.action.VIEW' && data) {
      dev.apps.openUrl(data);
      return 0;
    }
    io.err(enc(`Error: Activity not started, unable to resolve Intent { ${desc} flg=0x10000000 }\n`));
    return 1;
  }
  if (sub === 'broadcast') {
    let action = null;
    let pkg = null; // -p: only that package's receivers
    const extras = {};
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '-a') action = rest[++i];
      else if (rest[i] === '-p') pkg = rest[++i];
      else if (rest[i] === '--es') { extras[rest[i + 1]] = rest[i + 2]; i += 2; }
    }
    dev.record('am-broadcast', { action, package: pkg, args: rest });
    const has = Object.keys(extras).length ? ' (has extras)' : '';
    io.out(enc(`Broadcasting: Intent { act=${action} flg=0x400000${has} }\nBroadcast completed: result=0\n`));
    // ADBKeyBoard commits the text of ADB_INPUT_TEXT / ADB_INPUT_B64 when it is the current input method.
    if (dev.settings.secure.default_input_method === ADB_IME && (pkg === null || pkg === 'com.android.adbkeyboard') &&
      (action === 'ADB_INPUT_TEXT' || action === 'ADB_INPUT_B64')) {
      const msg = extras.msg ?? '';
      const text = action === 'ADB_INPUT_B64' ? Buffer.from(msg, 'base64').toString('utf8') : msg;
      dev.record('ime-text', { text });
      dev.apps.type(text);
    }
    return 0;
  }
  if (sub === 'force-stop' || sub === 'kill') {
    if (!rest[0]) return usage(io, `Error: no package specified`, 255);
    dev.record('am-force-stop', { package: rest[0] });
    dev.apps.forceStop(rest[0]);
    return 0;
  }
  return usage(io, 'usage: am [subcommand] [options]\nusage: am start [-D] [-N] [-W] [-P <FILE>] <INTENT>\n       am force-stop <PACKAGE>', 255);
}

function pm(dev, args, io) {
  const [sub, ...rest] = args;
  const pkgs = dev.apps.packages;
  if (sub === 'list' && rest[0] === 'packages') {
    const flags = rest.slice(1).filter((s) => s.startsWith('-'));
    const filter = rest.slice(1).find((s) => !s.startsWith('-')) ?? '';
    for (const [name, info] of pkgs) {
      if (flags.includes('-3') && info.system) continue;
      if (flags.includes('-s') && !info.system) continue;
      if (name.includes(filter)) io.out(enc(`package:${name}\n`));
    }
    return 0;
  }
  if (sub === 'list' && rest[0] === 'features') {
    io.out(enc(['android.hardware.touchscreen', 'android.hardware.wifi', 'android.software.webview', 'reqGlEsVersion=0x30000']
      .map((f) => (f.startsWith('req') ? f : `feature:${f}`) + '\n').join('')));
    return 0;
  }
  if (sub === 'query-activities') {
    // cmd package query-activities -a android.intent.action.MAIN -c android.intent.category.LAUNCHER
    const launchable = [...pkgs].filter(([name, info]) => info.activity && name !== 'com.android.systemui');
    io.out(enc(`${launchable.length} activities found:\n` + launchable.map(([name, info], i) =>
      `  Activity #${i}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n` +
      `    ActivityInfo:\n      name=${info.activity}\n      packageName=${name}\n      enabled=true exported=true directBootAware=false\n`).join('')));
    return 0;
  }
  if (sub === 'resolve-activity') {
    const name = rest.filter((a) => !a.startsWith('-')).pop();
    const info = pkgs.get(name);
    if (!info?.activity) { io.out(enc('No activity found\n')); return 0; }
    io.out(enc(`priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n${name}/${info.activity}\n`));
    return 0;
  }
  if (sub === 'path') {
    if (!pkgs.has(rest[0])) return 1;
    io.out(enc(`package:/data/app/${rest[0]}-1/base.apk\n`));
    return 0;
  }
  if (sub === 'install') {
    const path = rest.filter((s) => !s.startsWith('-')).pop();
    const data = path ? dev.fs.read(path) : null;
    dev.record('pm-install', { path: path ?? null });
    if (data === null) {
      io.err(enc(`Error: Unable to open file: ${path}\nConsider using a file under /data/local/tmp/\n` +
        `Error: Can't open file: ${path}\n\nException occurred while executing 'install':\n` +
        `java.lang.IllegalArgumentException: Error: Can't open file: ${path}\n`));
      return 1;
    }
    // A fake APK is a text file whose first line is "package=<name>" (optionally " label=<Label>").
    const m = /^package=([A-Za-z][\w.]*)(?: label=(.*))?/.exec(data.toString('latin1').split('\n')[0]);
    if (!m) {
      io.out(enc(`Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed parse during installPackageLI: ${path} (at Binary XML file line #-1): Failed to parse ${path}]\n`));
      return 1;
    }
    pkgs.set(m[1], { activity: `${m[1]}.MainActivity`, label: m[2]?.trim() || m[1].split('.').pop(), system: false });
    io.out(enc('Success\n'));
    return 0;
  }
  if (sub === 'uninstall') {
    const name = rest.filter((s) => !s.startsWith('-')).pop();
    if (!pkgs.has(name) || pkgs.get(name).system) {
      io.out(enc('Failure [DELETE_FAILED_INTERNAL_ERROR]\n'));
      return 1;
    }
    dev.apps.forceStop(name);
    pkgs.delete(name);
    io.out(enc('Success\n'));
    return 0;
  }
  if (sub === 'clear') {
    dev.apps.forceStop(rest[0]);
    io.out(enc('Success\n'));
    return 0;
  }
  return usage(io, 'usage: pm path [--user USER_ID] PACKAGE\n       pm list packages [-3] [-s] [FILTER]\n       pm install [-r] [-t] PATH', 255);
}

function monkey(dev, args, io) {
  let pkg = null;
  for (let i = 0; i < args.length; i++) if (args[i] === '-p') pkg = args[++i];
  const lines = args.map((a) => `  bash arg: ${a}\n`).join('') + `args: [${args.join(', ')}]\n` +
    args.map((a) => ` arg: "${a}"\n`).join('');
  io.out(enc(lines));
  dev.record('monkey', { package: pkg });
  if (!pkg || !dev.apps.launch(pkg)) {
    io.out(enc('** No activities found to run, monkey aborted.\n'));
    return 252;
  }
  io.out(enc(`data="${pkg}"\ndata="android.intent.category.LAUNCHER"\nEvents injected: 1\n` +
    '## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n'));
  return 0;
}

function wm(dev, args, io) {
  const [sub, val] = args;
  if (sub === 'size') {
    if (val === 'reset') { dev.sizeOverride = null; return 0; }
    if (val) {
      const m = /^(\d+)x(\d+)$/.exec(val);
      if (!m) return usage(io, `Error: bad size ${val}`, 255);
      dev.sizeOverride = { width: Number(m[1]), height: Number(m[2]) };
      return 0;
    }
    io.out(enc(`Physical size: ${dev.width}x${dev.height}\n`));
    if (dev.sizeOverride) io.out(enc(`Override size: ${dev.sizeOverride.width}x${dev.sizeOverride.height}\n`));
    return 0;
  }
  if (sub === 'density') {
    if (val === 'reset') { dev.densityOverride = null; return 0; }
    if (val) { dev.densityOverride = Number(val); return 0; }
    io.out(enc(`Physical density: ${dev.density}\n`));
    if (dev.densityOverride) io.out(enc(`Override density: ${dev.densityOverride}\n`));
    return 0;
  }
  return usage(io, 'Window manager (window) commands:\n  size [reset|WxH|WdpxHdp]\n  density [reset|DENSITY]', 255);
}

function settings(dev, args, io) {
  const [op, ns, key, val] = args;
  if (op === 'put' && !dev.settingsWritable) {
    // MIUI without "USB debugging (Security settings)" refuses the shell user's writes.
    io.err(enc(`Exception occurred while executing 'put':\njava.lang.SecurityException: Permission denial: writing to settings requires:android.permission.WRITE_SECURE_SETTINGS\n` +
      '\tat com.android.providers.settings.SettingsProvider.enforceWritePermission(SettingsProvider.java:2316)\n'));
    return 255;
  }
  if (!['system', 'secure', 'global'].includes(ns) || !key) {
    return usage(io, 'usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value', 255);
  }
  const table = dev.settings[ns];
  if (op === 'get') { io.out(enc(`${table[key] ?? 'null'}\n`)); return 0; }
  if (op === 'put' && val !== undefined) { table[key] = val; return 0; }
  if (op === 'delete') { delete table[key]; return 0; }
  return usage(io, 'usage:  settings get namespace key', 255);
}

function dumpsys(dev, args, io) {
  const [svc, sub] = args;
  const focus = dev.apps.focusedActivity();
  const r = dev.rotation();
  const { width, height } = dev.displaySize();
  if (svc === 'window') {
    const win = `  mCurrentFocus=Window{5d1c2a7 u0 ${focus}}\n  mFocusedApp=ActivityRecord{8a3f1e2 u0 ${focus} t17}\n`;
    const disp = `  Display: mDisplayId=0 rotation=${r}\n    init=${dev.width}x${dev.height} ${dev.density}dpi cur=${width}x${height}\n` +
      `    mCurrentRotation=ROTATION_${r * 90}\n    mUserRotation=ROTATION_${r * 90}\n`;
    if (sub === 'windows') io.out(enc(`WINDOW MANAGER WINDOWS (dumpsys window windows)\n${win}`));
    else if (sub === 'displays') io.out(enc(`WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n${disp}`));
    else io.out(enc(`WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n${disp}WINDOW MANAGER WINDOWS (dumpsys window windows)\n${win}`));
    return 0;
  }
  if (svc === 'activity') {
    io.out(enc(`ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n    mResumedActivity: ActivityRecord{8a3f1e2 u0 ${focus} t17}\n`));
    return 0;
  }
  if (svc === 'input') {
    io.out(enc(`INPUT MANAGER (dumpsys input)\n    Viewport INTERNAL: displayId=0, orientation=${r}, deviceWidth=${width}, deviceHeight=${height}\n` +
      `      SurfaceOrientation: ${r}\n`));
    return 0;
  }
  if (svc === 'SurfaceFlinger' && sub === '--display-id') {
    io.out(enc('Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName="Fake display"\n'));
    return 0;
  }
  if (svc === 'display') {
    io.out(enc(`DISPLAY MANAGER (dumpsys display)\n  mViewports=[DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:4619827259835644672', physicalPort=0, orientation=${r}, deviceWidth=${width}, deviceHeight=${height}}]\n`));
    return 0;
  }
  if (svc === 'power') {
    io.out(enc(`POWER MANAGER (dumpsys power)\n  mWakefulness=${dev.apps.screenOn ? 'Awake' : 'Asleep'}\n`));
    return 0;
  }
  io.err(enc(`Can't find service: ${svc ?? ''}\n`));
  return 0;
}

function printf(dev, args, io) {
  let i = 1;
  const fmt = (args[0] ?? '').replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\\\/g, '\\');
  io.out(enc(fmt.replace(/%([sd%])/g, (m, c) => (c === '%' ? '%' : args[i++] ?? ''))));
  return 0;
}

/** content insert|query --uri content://settings/<ns> --bind name:s:KEY --bind value:i:VAL — settings only. */
function content(dev, args, io) {
  const [op] = args;
  const uri = args[args.indexOf('--uri') + 1] ?? '';
  const m = /^content:\/\/settings\/(system|secure|global)$/.exec(uri);
  if (!m) { io.err(enc(`Error while accessing provider:${uri.replace(/^content:\/\//, '')}\n`)); return 1; }
  const binds = {};
  args.forEach((a, i) => {
    if (a !== '--bind') return;
    const b = /^(\w+):[a-z]:(.*)$/s.exec(args[i + 1] ?? '');
    if (b) binds[b[1]] = b[2];
  });
  if (op === 'insert' && binds.name !== undefined) { dev.settings[m[1]][binds.name] = binds.value ?? ''; return 0; }
  return usage(io, 'usage: adb shell content [subcommand] [options]', 1);
}

function ps(dev, args, io) {
  const running = [dev.apps.foreground, ...dev.apps.history].filter((p, i, a) => a.indexOf(p) === i);
  io.out(enc('USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n' +
    'root             1     0 10904924 12345 0                   0 S init\n' +
    'system        1234   312 14567890 98765 0                   0 S system_server\n' +
    running.map((p, i) => `u0_a${150 + i}       ${4321 + i}   312 14567890 98765 0                   0 S ${p}\n`).join('')));
  return 0;
}

// Android 12+: `svc wifi|data` are a script over `cmd wifi` and `cmd phone`; a
// device without telephony has no phone service.
function svc(dev, args, io) {
  const [what, state] = args;
  if ((what === 'wifi' || what === 'data') && (state === 'enable' || state === 'disable')) {
    if (what === 'data' && !dev.telephony) {
      io.err(enc(`cmd: Can't find service: phone\n`));
      return 20;
    }
    dev.settings.global[what === 'wifi' ? 'wifi_on' : 'mobile_data'] = state === 'enable' ? '1' : '0';
    dev.record('svc', { what, state });
    return 0;
  }
  io.out(enc('Available commands:\n    help     Show information about the subcommands\n    power    Control the power manager\n' +
    '    data     Control mobile data connectivity\n    wifi     Control the Wi-Fi manager\n'));
  return 0;
}

// `cmd connectivity airplane-mode [enable|disable]` exists from Android 11 (SDK 30);
// before, ConnectivityService's shell answers the base ShellCommand's "Unknown command".
function connectivity(dev, args, io) {
  const [sub, state] = args;
  if (sub !== 'airplane-mode' || Number(dev.props['ro.build.version.sdk']) < 30) {
    io.out(enc(`Unknown command: ${sub ?? ''}\n`));
    return 255;
  }
  if (state === undefined) { io.out(enc(dev.settings.global.airplane_mode_on === '1' ? 'enabled\n' : 'disabled\n')); return 0; }
  if (state !== 'enable' && state !== 'disable') { io.err(enc(`Unsupported argument: ${state}\n`)); return 255; }
  dev.settings.global.airplane_mode_on = state === 'enable' ? '1' : '0';
  dev.record('airplane', { state });
  return 0;
}

// `ime`: input methods by id; ADBKeyBoard is com.android.adbkeyboard/.AdbIME.
function ime(dev, args, io) {
  const [sub, id] = args;
  const known = dev.inputMethods;
  if (sub === 'list') { io.out(enc(known.map((m) => m + '\n').join(''))); return 0; }
  if (sub === 'enable' || sub === 'set') {
    if (!known.includes(id)) {
      io.err(enc(`Unknown input method ${id} cannot be ${sub === 'set' ? 'selected' : 'enabled'} for user #0\n`));
      return 255;
    }
    if (sub === 'set') dev.settings.secure.default_input_method = id;
    io.out(enc(sub === 'set' ? `Input method ${id} selected for user #0\n` : `Input method ${id}: now enabled for user #0\n`));
    return 0;
  }
  return usage(io, 'ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>', 255);
}

// test -w/-e/-f/-d PATH (input nodes and the fake files), -n/-z STR, A = B.
function testCmd(dev, args) {
  if (args.length === 2) {
    const [op, p] = args;
    if (op === '-n') return p !== '' ? 0 : 1;
    if (op === '-z') return p === '' ? 0 : 1;
    if (p.startsWith('/dev/input/')) {
      if (op === '-w') return writable(dev, p) ? 0 : 1;
      if (op === '-e' || op === '-r') return isNode(dev, p) ? 0 : 1;
      return 1;
    }
    const st = dev.fs.stat(p);
    if (op === '-e' || op === '-r' || op === '-w') return st ? 0 : 1;
    if (op === '-f') return st && !(st.mode & 0o40000) ? 0 : 1;
    if (op === '-d') return st && st.mode & 0o40000 ? 0 : 1;
    return 2;
  }
  if (args.length === 3 && (args[1] === '=' || args[1] === '!=')) return (args[0] === args[2]) === (args[1] === '=') ? 0 : 1;
  if (args.length === 1) return args[0] !== '' ? 0 : 1;
  return 2;
}

const COMMANDS = {
  content, ps, svc, ime,
  input, uiautomator, screencap, screenrecord, am, pm, monkey, wm, settings, dumpsys, printf,
  echo: (dev, args, io) => {
    const n = args[0] === '-n';
    io.out(enc((n ? args.slice(1) : args).join(' ') + (n ? '' : '\n')));
    return 0;
  },
  true: () => 0,
  getevent: (dev, args, io) => {
    if (!args.includes('-p')) return usage(io, 'fake device: only getevent -p is faked');
    io.out(enc(geteventP(dev)));
    return 0;
  },
  test: (dev, args) => testCmd(dev, args),
  '[': (dev, args) => (args[args.length - 1] === ']' ? testCmd(dev, args.slice(0, -1)) : 2),
  false: () => 1,
  sleep: async (dev, args) => { await new Promise((r) => setTimeout(r, Number(args[0] ?? 0) * 1000)); return 0; },
  id: (dev, args, io) => { io.out(enc('uid=2000(shell) gid=2000(shell) groups=2000(shell) context=u:r:shell:s0\n')); return 0; },
  whoami: (dev, args, io) => { io.out(enc('shell\n')); return 0; },
  pwd: (dev, args, io) => { io.out(enc('/\n')); return 0; },
  getprop: (dev, args, io) => {
    if (args[0] !== undefined) { io.out(enc(`${dev.props[args[0]] ?? ''}\n`)); return 0; }
    io.out(enc(Object.entries(dev.props).map(([k, v]) => `[${k}]: [${v}]\n`).join('')));
    return 0;
  },
  cat: async (dev, args, io) => {
    if (!args.length && io.stdinFeed) { // copying stdin into an input node as it comes
      io.stdinFeed.touch = true;
      try {
        for await (const chunk of io.stdinFeed) io.out(chunk);
      } catch {
        return 137; // killed
      }
      return 0;
    }
    if (!args.length) { io.out(io.stdin); return 0; }
    let code = 0;
    for (const p of args) {
      const d = dev.fs.read(p);
      if (d === null) { io.err(enc(`cat: ${p}: No such file or directory\n`)); code = 1; } else io.out(d);
    }
    return code;
  },
  rm: (dev, args, io) => {
    const force = args.some((a) => /^-[rf]*f/.test(a));
    let code = 0;
    for (const p of args.filter((a) => !a.startsWith('-'))) {
      if (!dev.fs.remove(p) && !force) { io.err(enc(`rm: ${p}: No such file or directory\n`)); code = 1; }
    }
    return code;
  },
  mv: (dev, args, io) => {
    const [from, to] = args.filter((a) => !a.startsWith('-'));
    const data = from === undefined ? null : dev.fs.read(from);
    if (data === null || !dev.fs.write(to, data)) { io.err(enc(`mv: bad '${from}': No such file or directory\n`)); return 1; }
    dev.fs.remove(from);
    return 0;
  },
  mkdir: (dev, args, io) => {
    const parents = args.includes('-p');
    for (const p of args.filter((a) => !a.startsWith('-'))) {
      if (!dev.fs.mkdir(p, parents) && !parents) { io.err(enc(`mkdir: '${p}': No such file or directory\n`)); return 1; }
    }
    return 0;
  },
  ls: (dev, args, io) => {
    const paths = args.filter((a) => !a.startsWith('-'));
    let code = 0;
    for (const p of paths.length ? paths : ['/']) {
      const st = dev.fs.stat(p);
      if (!st) { io.err(enc(`ls: ${p}: No such file or directory\n`)); code = 1; continue; }
      io.out(enc(st.mode & 0o40000 ? dev.fs.list(p).map((n) => n + '\n').join('') : FakeFs.norm(p) + '\n'));
    }
    return code;
  },
  grep: (dev, args, io) => {
    const pat = args.filter((a) => !a.startsWith('-'))[0] ?? '';
    const lines = io.stdin.toString('utf8').split('\n').filter((l) => l.includes(pat));
    if (!lines.length) return 1;
    io.out(enc(lines.join('\n') + '\n'));
    return 0;
  },
  cmd: (dev, args, io) => {
    if (args[0] === 'connectivity') return connectivity(dev, args.slice(1), io);
    const map = { package: 'pm', activity: 'am', window: 'wm', input: 'input', settings: 'settings' };
    if (args[0] === 'display' && args[1] === 'get-displays') {
      const { width, height } = dev.displaySize();
      io.out(enc(`Displays:\n  Display id 0: DisplayInfo{"Built-in Screen", displayId 0, state ON, type INTERNAL, uniqueId "local:4619827259835644672", app ${width} x ${height}}\n`));
      return 0;
    }
    const name = map[args[0]];
    if (!name) { io.err(enc(`cmd: Can't find service: ${args[0] ?? ''}\n`)); return 20; }
    return COMMANDS[name](dev, args.slice(1), io);
  },
};

/** Runs one simple command (argv already expanded) on the device. */
export async function execCommand(dev, argv, io) {
  const name = argv[0].startsWith('/system/bin/') ? argv[0].slice(12) : argv[0];
  const fn = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : null;
  if (!fn) {
    io.err(enc(`/system/bin/sh: ${argv[0]}: inaccessible or not found\n`));
    return 127;
  }
  return fn(dev, argv.slice(1), io);
}
