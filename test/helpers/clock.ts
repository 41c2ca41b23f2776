// A virtual clock for in-process runs: waits (backoffs, quiet periods, poll intervals, pacing) run
// `speed` times faster than real time, so they cost next to nothing. Time still passes as it really
// does, and every sleep moves the clock forward by what it would have waited: `now()` is the real
// time plus the waiting skipped so far, so it starts at the real time, never goes back, and stays
// near the clocks of the servers a test runs.
//
// Why not instant: the servers a run talks to (the sandbox's eligibility worker, a proxy holding a
// request) work on real time. A wait that took no real time at all could use up a whole
// `--timeout 300` in a burst of polls before a 300 ms check completes on a busy machine; at 100×, a
// 300 s timeout still leaves those servers 3 s. A test whose point is real-world timing (a request
// of another process still on its way) runs on real time instead (runCli's `realTime`).
import type { Clock } from '../../src/util/clock.js';

export function virtualClock(opts: { speed?: number } = {}): Clock {
  const speed = opts.speed ?? 100;
  let offset = 0;
  const now = () => Date.now() + offset;
  return {
    now,
    random: Math.random,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const at = now() + Math.max(0, ms);
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          offset = Math.max(offset, at - Date.now());
          resolve();
        };
        // Under a millisecond: the next turn of the event loop (setTimeout would round up to 1 ms).
        const real = Math.max(0, ms) / speed;
        const timer = real < 1 ? setImmediate(wake) : setTimeout(wake, real);
        const onAbort = () => {
          if (real < 1) clearImmediate(timer as NodeJS.Immediate);
          else clearTimeout(timer as NodeJS.Timeout);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
