// What the benches ask the operating system: a free loopback port, and a
// process's time on CPU.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 at the moment of asking. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Time on CPU of every thread of pid, in seconds, to the nanosecond
 * (/proc/PID/task/TID/schedstat): the 10 ms ticks of /proc/PID/stat move a
 * run's figure in steps of 2–3 µs per call. Threads that ended are not
 * counted; glovebox's live as long as the server. */
export function schedSeconds(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e9;
}

/** User and kernel CPU of pid (every thread), in seconds, from
 * /proc/PID/stat's utime and stime (10 ms ticks: read over many calls). */
export function userSystemSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) / 100, system: Number(f[12]) / 100 };
}
