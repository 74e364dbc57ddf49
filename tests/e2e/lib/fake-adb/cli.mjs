#!/usr/bin/env node
// Runs the fake adb server for manual use and benchmarks:
//   node tests/e2e/lib/fake-adb/cli.mjs --port 5038 [--size 1080x2400] [--density 440]
//        [--serial emulator-5554] [--offline SERIAL] [--unauthorized SERIAL] [--game]
//        [--touchscreen] [--abi x86_64|x86|arm64-v8a|armeabi-v7a]
//   adb -P 5038 devices -l
import { parseArgs } from 'node:util';
import { startFakeAdb } from './index.mjs';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5038' },
    size: { type: 'string', default: '1080x2400' },
    density: { type: 'string', default: '440' },
    serial: { type: 'string', default: 'emulator-5554' },
    offline: { type: 'string', multiple: true, default: [] },
    unauthorized: { type: 'string', multiple: true, default: [] },
    game: { type: 'boolean', default: false },
    touchscreen: { type: 'boolean', default: false },
    abi: { type: 'string', default: 'x86_64' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('usage: cli.mjs [--port N] [--size WxH] [--density DPI] [--serial S] [--offline S]... [--unauthorized S]... [--game] [--touchscreen] [--abi ABI]');
  process.exit(0);
}
const m = /^(\d+)x(\d+)$/.exec(values.size);
if (!m) {
  console.error(`--size: expected WIDTHxHEIGHT such as 1080x2400, got ${JSON.stringify(values.size)}`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port: expected a TCP port 0-65535, got ${JSON.stringify(values.port)}`);
  process.exit(2);
}
const devices = [{ serial: values.serial, width: Number(m[1]), height: Number(m[2]), density: Number(values.density), game: values.game, touchscreen: values.touchscreen, abi: values.abi },
  ...values.offline.map((serial) => ({ serial, state: 'offline' })),
  ...values.unauthorized.map((serial) => ({ serial, state: 'unauthorized' }))];
const adb = await startFakeAdb({ devices, port });
console.log(`fake adb server on 127.0.0.1:${adb.port} (adb -P ${adb.port} devices -l); Ctrl-C stops it`);
const stop = async () => { await adb.close(); process.exit(0); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
