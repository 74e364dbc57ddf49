// The command line: version, help, usage errors, `glovebox tools` and
// `glovebox doctor`, run against the production binary.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { KNOWN, RawServer, assertNoSanitizerReport, connectClient, opts, runCli } from '../lib/server.mjs';

const KINDS = ['terminal', 'desktop', 'vnc', 'webdriver', 'android'];

/** Runs glovebox and asserts no sanitizer report on stderr. */
async function glovebox(...argv) {
  const r = await runCli(argv);
  assertNoSanitizerReport(r.stderr, `glovebox ${argv.join(' ')}`);
  assert.equal(r.signal, null, `glovebox ${argv.join(' ')} was killed by ${r.signal}`);
  return r;
}

describe('glovebox command line', () => {
  test('--version prints "glovebox <semver>" and exits 0', opts(), async () => {
    for (const flag of ['--version', '-V', 'version']) {
      const r = await glovebox(flag);
      assert.equal(r.code, 0, `${flag}: ${r.stderr}`);
      assert.match(r.stdout, /^glovebox \d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?\n$/);
    }
  });

  test('--help and each command\'s --help print Usage and exit 0', opts(), async () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['serve', '--help'], ['doctor', '--help'], ['tools', '--help'], ['stop', '--help'], ['resume', '--help']]) {
      const r = await glovebox(...argv);
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /Usage:/, `${argv.join(' ')} prints Usage`);
    }
    const top = await glovebox('--help');
    for (const cmd of ['serve', 'tools', 'doctor', 'stop', 'resume']) assert.match(top.stdout, new RegExp(`\\b${cmd}\\b`));
    const serve = await glovebox('serve', '--help');
    for (const opt of ['--max-message', '--page-size']) assert.ok(serve.stdout.includes(opt), `serve --help mentions ${opt}`);
  });

  test('no command, or an unknown one, is a usage error (exit 2)', opts(), async () => {
    const none = await glovebox();
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage:/);
    const unknown = await glovebox('frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /frobnicate/);
  });

  test('serve with a bad option is a usage error (exit 2) with a message', opts(), async () => {
    const cases = [
      [['serve', '--bogus'], /--bogus/],
      [['serve', '--max-message', 'abc'], /--max-message.*abc/],
      [['serve', '--max-message', '10'], /--max-message/],
      [['serve', '--max-message'], /--max-message needs a value/],
      [['serve', '--page-size', '0'], /--page-size/],
      [['serve', '--log-level', 'chatty'], /--log-level/],
      [['doctor', '--bogus'], /--bogus/],
      [['tools', '--bogus'], /--bogus/],
    ];
    for (const [argv, message] of cases) {
      const r = await glovebox(...argv);
      assert.equal(r.code, 2, `${argv.join(' ')} exits 2 (got ${r.code})`);
      assert.match(r.stderr, message, `${argv.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '', `${argv.join(' ')} prints nothing on stdout (the MCP channel)`);
    }
  });

  test('`glovebox tools` prints the same tools as tools/list, and no test fixtures', opts(), async (t) => {
    const r = await glovebox('tools');
    assert.equal(r.code, 0, r.stderr);
    const printed = JSON.parse(r.stdout);
    assert.ok(Array.isArray(printed) && printed.length > 0);
    const names = printed.map((x) => x.name);
    assert.equal(names.filter((n) => n.startsWith('fixture_')).length, 0, `fixture tools in ${names}`);
    for (const name of ['status', 'session_list', 'session_stop']) assert.ok(names.includes(name), `${name} printed`);

    // The SDK client against the same production binary sees the same names in the same order.
    const srv = await connectClient(t, { bin: 'glovebox' });
    const listed = await srv.client.listTools();
    assert.deepEqual(names, listed.tools.map((x) => x.name));
    await srv.close();

    // And byte for byte the same definitions as a raw 2025-11-25 tools/list.
    const s = RawServer.start(t, { bin: 'glovebox' });
    await s.initialize('2025-11-25');
    const raw = await s.request(2, 'tools/list');
    assert.deepEqual(printed, raw.result.tools);
    await s.close();
  });

  test('`glovebox doctor` exits 0 or 1 and reports every kind of session', opts(), async () => {
    const r = await glovebox('doctor');
    assert.ok([0, 1].includes(r.code), `doctor exited ${r.code}: ${r.stderr}`);
    for (const kind of KINDS) assert.match(r.stdout, new RegExp(`^${kind}\\b`, 'm'), `doctor reports ${kind}`);
  });

  test('`glovebox doctor --json` prints parseable JSON describing every kind', opts(), async () => {
    const r = await glovebox('doctor', '--json');
    assert.ok([0, 1].includes(r.code), `doctor --json exited ${r.code}: ${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.ok(Array.isArray(report));
    assert.deepEqual(report.map((b) => b.kind).sort(), [...KINDS].sort());
    for (const b of report) {
      assert.equal(typeof b.implemented, 'boolean');
      assert.ok(Array.isArray(b.missing));
      for (const m of b.missing) {
        assert.equal(typeof m.what, 'string');
        assert.equal(typeof m.package, 'string');
      }
    }
    const plain = await glovebox('doctor');
    assert.equal(plain.code, r.code, 'doctor and doctor --json agree on the exit status');
  });
});
