// Chords with super, meta and hyper reach an X program on a private desktop
// as those modifiers (src/input parses, the desktop holds the real modifier
// keys), and a terminal refuses them by name instead of dropping them.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { startDesktop } from '../lib/desktop.mjs';
import { ms, startServer, tempDir, desktopOpts as topts, terminalOpts, until } from '../lib/terminal.mjs';

/** The key presses xev reported: [{ keysym, state }] in order. */
function presses(path) {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const found = [];
  for (const m of text.matchAll(/KeyPress event[^]*?state (0x[0-9a-f]+), keycode \d+ \(keysym 0x[0-9a-f]+, ([^)]+)\)/g))
    found.push({ keysym: m[2], state: parseInt(m[1], 16) });
  return found;
}

const CONTROL = 0x4;
const MOD4 = 0x40; // where X keymaps put Super and Hyper
const MOD1_TO_5 = 0xf8;

test('ctrl+super+t, super+l, meta+x and hyper+a reach an X program with those modifiers held', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t, 'glovebox-keys-');
  const out = join(dir, 'xev.out');
  const session = await startDesktop(srv);
  await srv.ok('launch_app', { session, command: ['sh', '-c', `exec stdbuf -oL xev -event keyboard -name keyprobe > '${out}'`] });
  // xev sets no _NET_WM_PID, so window_list leaves it out: its first line says it is up.
  await until(() => existsSync(out) && /Outer window is/.test(readFileSync(out, 'utf8')), ms(15000), 'xev to start');

  const seen = async (n, what) => {
    await until(() => presses(out).filter((p) => !/^(Control|Super|Meta|Hyper|Alt|Shift)_/.test(p.keysym)).length >= n,
      ms(10000), what);
    return presses(out);
  };
  await srv.ok('press_key', { session, key: 'ctrl+super+t' });
  let p = await seen(1, 'ctrl+super+t');
  const t1 = p.find((e) => e.keysym === 't');
  assert.ok(p.some((e) => e.keysym === 'Super_L'), JSON.stringify(p));
  assert.ok(p.some((e) => e.keysym === 'Control_L'), JSON.stringify(p));
  assert.equal(t1.state & (CONTROL | MOD4), CONTROL | MOD4, `t came with ctrl and super held: ${JSON.stringify(p)}`);

  await srv.ok('press_key', { session, key: 'super+l' });
  p = await seen(2, 'super+l');
  const l = p.find((e) => e.keysym === 'l');
  assert.equal(l.state & (CONTROL | MOD4), MOD4, `l came with super alone: ${JSON.stringify(p)}`);

  await srv.ok('press_key', { session, key: 'meta+x' });
  p = await seen(3, 'meta+x');
  const xi = p.findIndex((e) => e.keysym === 'x');
  assert.equal(p[xi - 1].keysym, 'Meta_L', `meta is the Meta key, not Alt: ${JSON.stringify(p)}`);
  assert.notEqual(p[xi].state & MOD1_TO_5, 0, 'x came with a modifier held');

  await srv.ok('press_key', { session, key: 'cmd+hyper+a' });
  p = await seen(4, 'hyper+a');
  const ai = p.findIndex((e) => e.keysym === 'a');
  assert.deepEqual(p.slice(ai - 2, ai).map((e) => e.keysym), ['Super_L', 'Hyper_L']);
  assert.notEqual(p[ai].state & MOD4, 0, `a came with super and hyper held: ${JSON.stringify(p)}`);

  await srv.err('press_key', { session, key: 'ctrl+Foo' },
    /argument "key": unknown key "Foo" in "ctrl\+Foo"; valid keys: .*super .*meta, hyper/);
});

test('a terminal refuses super and hyper by name, and sends nothing', terminalOpts(), async (t) => {
  const srv = await startServer(t);
  const term = (await srv.ok('terminal_start', { command: ['cat', '-v'] })).sc.id;
  await srv.err('press_key', { session: term, key: 'ctrl+super+t' },
    /argument "key": super in "ctrl\+super\+t" is not supported by terminal sessions/);
  await srv.err('press_key', { session: term, key: 'hyper+a' }, /hyper in "hyper\+a" is not supported by terminal sessions/);
  await srv.err('press_key', { session: term, key: 'F20' }, /F20 in "F20" is not supported by terminal sessions/);
  // meta stays the terminal's alt: ESC before the key.
  await srv.ok('press_key', { session: term, key: 'meta+x' });
  await srv.ok('press_key', { session: term, key: 'Enter' });
  const shown = await srv.ok('wait_for', { session: term, text: '^[x', timeout_ms: ms(10000) });
  assert.equal(shown.sc.matched, true);
});
