// The fake device's apps: a launcher, a login app (username, password, Sign in
// → "Welcome, <name>"), a browser that shows the URL it was opened with, a
// settings screen, and (device option `game`) a game whose words are only
// pixels: one SurfaceView without text, as games and canvases show. Holds the UI state; builds the node tree that both the
// uiautomator dump and the screen renderer read, so the two always agree.

export const LAUNCHER = 'com.google.android.apps.nexuslauncher';
export const LOGIN = 'com.example.login';
export const BROWSER = 'com.android.chrome';
export const SETTINGS = 'com.android.settings';
export const GAME = 'com.example.game';

/** Installed packages → their launcher activity (what `am start -n` / monkey accept). */
export function defaultPackages() {
  return new Map([
    [LAUNCHER, { activity: `${LAUNCHER}.NexusLauncherActivity`, label: 'Launcher', system: true }],
    [LOGIN, { activity: `${LOGIN}.MainActivity`, label: 'Login', system: false }],
    [BROWSER, { activity: 'com.google.android.apps.chrome.Main', label: 'Chrome', system: true }],
    [SETTINGS, { activity: `${SETTINGS}.Settings`, label: 'Settings', system: true }],
    ['com.android.systemui', { activity: null, label: 'System UI', system: true }],
  ]);
}

/** The game's entry, for devices made with `game: true`. */
export function gamePackage() {
  return [GAME, { activity: `${GAME}.GameActivity`, label: 'Game', system: false }];
}

function node(props, children = []) {
  return {
    cls: 'android.widget.FrameLayout', kind: 'group', text: '', id: '', desc: '',
    clickable: false, focusable: false, focused: false, password: false, enabled: true,
    checkable: false, checked: false, scrollable: false, selected: false, ...props, children,
  };
}

export class FakeApps {
  constructor(packages) {
    this.packages = packages;
    this.foreground = LAUNCHER; // package on screen
    this.history = []; // packages under the foreground one, for BACK
    this.login = { username: '', password: '', focus: null, error: '', signedInAs: null };
    this.url = '';
    this.screenOn = true;
    this.game = { level: 0 }; // 0: the title screen; each tap one step on
  }

  /** What the game paints (never in the uiautomator tree): words Tesseract reads in the 5×7 font. */
  gameLines() {
    return [['PRESS START'], ['GET READY']][this.game.level] ?? ['GAME OVER', 'HIGH SCORE'];
  }

  /** Starts a package (bringing it to front); returns false when not installed. */
  launch(pkg) {
    if (!this.packages.has(pkg) || !this.packages.get(pkg).activity) return false;
    if (pkg === LAUNCHER) {
      this.history = [];
    } else if (this.foreground !== pkg) {
      this.history.push(this.foreground);
    }
    this.foreground = pkg;
    return true;
  }

  forceStop(pkg) {
    if (pkg === LOGIN) this.login = { username: '', password: '', focus: null, error: '', signedInAs: null };
    if (pkg === BROWSER) this.url = '';
    if (pkg === GAME) this.game = { level: 0 };
    this.history = this.history.filter((p) => p !== pkg);
    if (this.foreground === pkg) this.foreground = this.history.pop() ?? LAUNCHER;
  }

  openUrl(url) {
    this.url = url;
    this.launch(BROWSER);
  }

  focusedActivity() {
    return `${this.foreground}/${this.packages.get(this.foreground)?.activity ?? ''}`;
  }

  /** Keycodes the app reacts to; everything else is only logged by the device. */
  key(code) {
    const l = this.login;
    if (code === 3) { this.launch(LAUNCHER); return; } // HOME
    if (code === 4) { // BACK
      if (this.foreground === LOGIN && l.signedInAs) { l.signedInAs = null; return; }
      this.foreground = this.history.pop() ?? LAUNCHER;
      return;
    }
    if (code === 26) { this.screenOn = !this.screenOn; return; } // POWER
    if (this.foreground !== LOGIN || l.signedInAs || !l.focus) return;
    if (code === 67) l[l.focus] = l[l.focus].slice(0, -1); // DEL
    else if (code === 61) l.focus = l.focus === 'username' ? 'password' : 'username'; // TAB
    else if (code === 66) { // ENTER: next field, then submit
      if (l.focus === 'username') l.focus = 'password';
      else this.signIn();
    }
  }

  /** Characters typed into the focused field (already mapped to key events). */
  type(text) {
    const l = this.login;
    for (const ch of text) {
      if (ch === '\n') this.key(66);
      else if (this.foreground === LOGIN && !l.signedInAs && l.focus) l[l.focus] += ch;
    }
  }

  signIn() {
    const l = this.login;
    if (!l.username) {
      l.error = 'Enter a username';
      return;
    }
    l.error = '';
    l.signedInAs = l.username;
    l.focus = null;
  }

  /** The tree on screen for a display of width×height (rotation already applied). */
  tree(width, height) {
    const u = Math.round(width / 18); // one layout unit: 60 px on a 1080-wide screen
    const bar = node({ kind: 'statusbar', cls: 'android.widget.TextView', pkg: 'com.android.systemui',
      id: 'com.android.systemui:id/clock', text: '12:00', bounds: [[0, 0], [width, Math.round(u * 1.2)]] });
    const content = [];
    const row = (i, h = 2) => [[u, u * 3 + i * u * 3], [width - u, u * 3 + i * u * 3 + u * h]];
    const pkg = this.foreground;
    if (pkg === LAUNCHER) {
      let i = 0;
      for (const [name, info] of this.packages) {
        if (!info.activity || name === LAUNCHER) continue;
        const x = u + (i % 4) * u * 4;
        const y = u * 3 + Math.floor(i / 4) * u * 5;
        content.push(node({ kind: 'icon', cls: 'android.widget.TextView', text: info.label, desc: info.label,
          clickable: true, focusable: true, bounds: [[x, y], [x + u * 3, y + u * 4]], onTap: () => this.launch(name) }));
        i++;
      }
    } else if (pkg === LOGIN && this.login.signedInAs !== null) {
      content.push(node({ kind: 'text', cls: 'android.widget.TextView', id: `${LOGIN}:id/welcome`,
        text: `Welcome, ${this.login.signedInAs}`, bounds: row(0) }));
      content.push(node({ kind: 'button', cls: 'android.widget.Button', id: `${LOGIN}:id/sign_out`, text: 'Sign out',
        clickable: true, focusable: true, bounds: row(1),
        onTap: () => { this.login = { username: '', password: '', focus: null, error: '', signedInAs: null }; } }));
    } else if (pkg === LOGIN) {
      const l = this.login;
      const field = (name, i, hint, password) => node({ kind: 'field', cls: 'android.widget.EditText',
        id: `${LOGIN}:id/${name}`, hint, password,
        // Android 8+ exposes the hint as the text of an empty field, and masks passwords.
        text: l[name] ? (password ? '\u2022'.repeat([...l[name]].length) : l[name]) : hint,
        clickable: true, focusable: true, focused: l.focus === name, bounds: row(i),
        onTap: () => { l.focus = name; } });
      content.push(node({ kind: 'text', cls: 'android.widget.TextView', id: `${LOGIN}:id/title`, text: 'Sign in to Example',
        bounds: row(0) }));
      content.push(field('username', 1, 'Username', false));
      content.push(field('password', 2, 'Password', true));
      content.push(node({ kind: 'button', cls: 'android.widget.Button', id: `${LOGIN}:id/sign_in`, text: 'Sign in',
        clickable: true, focusable: true, bounds: row(3), onTap: () => this.signIn() }));
      if (l.error) {
        content.push(node({ kind: 'text', cls: 'android.widget.TextView', id: `${LOGIN}:id/error`, text: l.error,
          bounds: row(4) }));
      }
    } else if (pkg === BROWSER) {
      content.push(node({ kind: 'field', cls: 'android.widget.EditText', id: `${BROWSER}:id/url_bar`,
        text: this.url || 'Search or type web address', clickable: true, focusable: true, bounds: row(0) }));
    } else if (pkg === GAME) {
      content.push(node({ kind: 'canvas', cls: 'android.view.SurfaceView', paint: this.gameLines(), clickable: true,
        focusable: true, bounds: [[0, bar.bounds[1][1]], [width, height]], onTap: () => { this.game.level++; } }));
    } else if (pkg === SETTINGS) {
      content.push(node({ kind: 'text', cls: 'android.widget.TextView', text: 'Settings', bounds: row(0) }));
      content.push(node({ kind: 'text', cls: 'android.widget.TextView', text: 'Display', clickable: true,
        bounds: row(1) }));
    }
    for (const c of content) c.pkg = pkg;
    const appRoot = node({ pkg, id: 'android:id/content', bounds: [[0, bar.bounds[1][1]], [width, height]] }, content);
    return node({ pkg, bounds: [[0, 0], [width, height]] }, [bar, appRoot]);
  }

  /** A tap at x, y: the deepest clickable node under the point acts. */
  tap(x, y, width, height) {
    let hit = null;
    const walk = (n) => {
      const [[x0, y0], [x1, y1]] = n.bounds;
      if (x < x0 || x >= x1 || y < y0 || y >= y1) return;
      if (n.clickable) hit = n;
      for (const c of n.children) walk(c);
    };
    walk(this.tree(width, height));
    if (hit?.onTap) hit.onTap();
    return hit;
  }
}
