// wait_for {regex} on a desktop: the same bounded patterns as terminals
// (ignoring case), and a pattern that backtracks without end is a clear
// error naming "regex", not a silent "not matched".
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchShell, startDesktop } from '../lib/desktop.mjs';
import { ms, startServer, tempDir, desktopOpts as topts } from '../lib/terminal.mjs';

test('desktop wait_for regex: matches ignoring case; a runaway pattern is an error', topts(), async (t) => {
  const srv = await startServer(t);
  const dir = tempDir(t);
  const session = await startDesktop(srv);
  const line = `${'a'.repeat(90)}!`;
  await launchShell(srv, session, dir, 'info', `zenity --info --title Report --text 'Report ${line}'`);
  const seen = await srv.ok('wait_for', { session, regex: 'REPORT a{90}!', timeout_ms: ms(15000) });
  assert.equal(seen.sc.matched, true);
  assert.equal(seen.sc.line, `Report ${line}`);
  await srv.err('wait_for', { session, regex: '^(\\w+\\s?)*[.?]$', timeout_ms: ms(5000) }, /argument "regex": regex too complex/);
  await srv.err('wait_for', { session, regex: '[z-a]', timeout_ms: 100 }, /argument "regex": not a valid regular expression/);
});
