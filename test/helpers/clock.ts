// A virtual clock for in-process runs: waits (backoffs, quiet periods, poll intervals, pacing) cost
// no real time. Time still passes as it really does, and every sleep moves the clock forward by what
// it would have waited: `now()` is the real time plus the sum of the skipped waits, so it starts at
// the real time, never goes back, and stays near the clocks of the servers a test runs.
//
// Sleeps wake in the order of their end times, one per turn of the event loop (setImmediate), so
// concurrent waiters see the order real time would give them, and socket I/O runs in between.
import type { Clock } from '../../src/util/clock.js';

export interface VirtualClock extends Clock {
  /** Milliseconds of waiting skipped so far. */
  skippedMs(): number;
}

interface Sleeper {
  at: number;
  seq: number;
  wake(): void;
}

export function virtualClock(): VirtualClock {
  let offset = 0;
  let seq = 0;
  const sleepers: Sleeper[] = [];
  let scheduled = false;
  const now = () => Date.now() + offset;

  const schedule = () => {
    if (scheduled || sleepers.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = sleepers.shift();
      if (next) {
        offset = Math.max(offset, next.at - Date.now());
        next.wake();
      }
      schedule();
    });
  };

  return {
    now,
    random: Math.random,
    skippedMs: () => offset,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const sleeper: Sleeper = {
          at: now() + Math.max(0, ms),
          seq: seq++,
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const i = sleepers.indexOf(sleeper);
          if (i >= 0) sleepers.splice(i, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
        schedule();
      });
    },
  };
}
