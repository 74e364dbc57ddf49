// The fake device's files: an in-memory tree for push/pull, redirections,
// uiautomator dumps and pm install. Directories are explicit entries.
const DIRS = ['/', '/sdcard', '/sdcard/Download', '/sdcard/Pictures', '/data', '/data/local', '/data/local/tmp',
  '/system', '/system/bin', '/dev'];

export class FakeFs {
  constructor() {
    this.dirs = new Set(DIRS);
    this.files = new Map(); // path → {data, mode, mtime}
  }

  static norm(path) {
    const parts = [];
    for (const p of String(path).split('/')) {
      if (p === '' || p === '.') continue;
      if (p === '..') parts.pop(); else parts.push(p);
    }
    return '/' + parts.join('/');
  }

  parentExists(path) {
    return this.dirs.has(FakeFs.norm(path + '/..'));
  }

  read(path) {
    return this.files.get(FakeFs.norm(path))?.data ?? null;
  }

  /** Returns false when the parent directory is missing or the path is a directory. */
  write(path, data, append = false, mode = 0o100644, mtime = Math.floor(Date.now() / 1000)) {
    const p = FakeFs.norm(path);
    if (this.dirs.has(p) || !this.parentExists(p)) return false;
    const old = this.files.get(p);
    const buf = append && old ? Buffer.concat([old.data, data]) : Buffer.from(data);
    this.files.set(p, { data: buf, mode, mtime });
    return true;
  }

  mkdir(path, parents) {
    const p = FakeFs.norm(path);
    if (this.files.has(p)) return false;
    if (!this.parentExists(p)) {
      if (!parents) return false;
      this.mkdir(FakeFs.norm(p + '/..'), true);
    }
    this.dirs.add(p);
    return true;
  }

  remove(path) {
    const p = FakeFs.norm(path);
    return this.files.delete(p);
  }

  /** {mode, size, mtime} or null; mode carries the file-type bits like stat(2). */
  stat(path) {
    const p = FakeFs.norm(path);
    if (this.dirs.has(p)) return { mode: 0o40771, size: 4096, mtime: 0 };
    const f = this.files.get(p);
    return f ? { mode: f.mode, size: f.data.length, mtime: f.mtime } : null;
  }

  list(path) {
    const p = FakeFs.norm(path);
    const prefix = p === '/' ? '/' : p + '/';
    const names = new Set();
    for (const q of [...this.dirs, ...this.files.keys()]) {
      if (q !== p && q.startsWith(prefix) && !q.slice(prefix.length).includes('/')) names.add(q.slice(prefix.length));
    }
    return [...names].sort();
  }
}
