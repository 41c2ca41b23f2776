// Time as a command sees it: `now`, `sleep` and randomness come from here (through ctx.clock), so
// tests can run backoffs, quiet periods and watch intervals on virtual time.
import { sleep } from './deadline.js';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after ms, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep,
  random: Math.random,
};
