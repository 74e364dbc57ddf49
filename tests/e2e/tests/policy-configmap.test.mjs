// A policy mounted from a Kubernetes ConfigMap (deploy/kubernetes/): the
// kubelet never writes policy.json itself. The file is a symbolic link
// policy.json -> ..data/policy.json, ..data a link to a timestamped folder,
// and an update writes a new folder, points ..data_tmp at it and renames
// ..data_tmp over ..data. glovebox watches the policy's folder, so it must
// take that rename as a change of the policy: a narrower policy then
// applies at once, as when the file is edited in place.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectClient, ms, sleep } from '../lib/server.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gb-configmap-'));
const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(tmp, 'no-config') };

/** Writes the ConfigMap's next version the way the kubelet's atomic writer does. */
function kubeletWrite(dir, version, doc) {
  const folder = `..2026_11_25_05_00_0${version}.000000001`;
  mkdirSync(join(dir, folder));
  writeFileSync(join(dir, folder, 'policy.json'), JSON.stringify(doc));
  symlinkSync(folder, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  return folder;
}

test('a policy mounted from a ConfigMap is re-read when the kubelet swaps ..data: a narrower one applies at once', async (t) => {
  const dir = join(tmp, 'policy');
  mkdirSync(dir);
  const first = kubeletWrite(dir, 1, { allow: ['terminal_start', 'session_stop', 'press_key'] });
  symlinkSync('..data/policy.json', join(dir, 'policy.json'));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', join(dir, 'policy.json'), '--data-dir', mkdtempSync(join(tmp, 'data-'))], env });
  const policy = async () => (await srv.client.callTool({ name: 'status', arguments: {} })).structuredContent.policy;
  assert.ok((await policy()).allow.includes('press_key'));

  kubeletWrite(dir, 2, { allow: ['terminal_start', 'session_stop'] });
  rmSync(join(dir, first), { recursive: true });
  const end = Date.now() + ms(5000);
  let allow;
  while ((allow = (await policy()).allow).includes('press_key')) {
    assert.ok(Date.now() < end, `the ConfigMap's narrower policy did not apply within 5 s: allow is ${JSON.stringify(allow)}`);
    await sleep(50);
  }
  const refused = await srv.client.callTool({ name: 'press_key', arguments: { key: 'Enter' } });
  assert.ok(refused.isError);
  assert.match(refused.content[0].text, /press_key is not in "allow"/);
  await srv.close();
});
