import { test } from 'node:test';
import { connectClient } from '/work/wt-vncpaste/tests/e2e/lib/server.mjs';
test('x', async (t) => {
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--tools', 'all'], env: { GLOVEBOX_TOOLS: '', GLOVEBOX_OUTPUT_SCHEMAS: '' } });
  const { tools } = await srv.client.listTools();
  for (const x of tools) if (['vnc_connect', 'type_text'].includes(x.name)) console.log(Buffer.byteLength(JSON.stringify(x)), JSON.stringify(x));
  await srv.close();
});
