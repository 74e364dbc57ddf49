// The fake adb server's API for tests and benchmarks:
//   const adb = await startFakeAdb({ devices: [{ serial: 'emulator-5554' }], port: 0 });
//   adb.port; adb.device('emulator-5554').login; adb.device().entries('text'); await adb.close();
import { FakeAdbServer } from './server.mjs';

export { FakeAdbServer } from './server.mjs';
export { FakeDevice } from './device.mjs';

/**
 * Starts a fake adb server on 127.0.0.1. devices: FakeDevice options (serial,
 * state, width, height, density, model, …); port 0 picks a free one.
 */
export async function startFakeAdb({ devices = [{}], port = 0, version = 41 } = {}) {
  const server = new FakeAdbServer({ devices, version });
  const bound = await server.listen(port);
  return {
    port: bound,
    server,
    device: (serial) => server.device(serial),
    addDevice: (opts) => server.addDevice(opts),
    removeDevice: (serial) => server.removeDevice(serial),
    /** Every smart-socket request received, in order. */
    get requests() { return server.requests; },
    close: () => server.close(),
  };
}
