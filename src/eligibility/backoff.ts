// Polling schedule and the watch loop of `eligibility watch` / `--wait`. Pure: the clock, sleep
// and randomness are injected so tests run without real waiting.

export interface BackoffOptions {
  /** First delay (about 1 s). */
  initialMs: number;
  /** Upper bound (the --interval). */
  maxMs: number;
  /** Growth per poll. */
  factor: number;
  /** Relative jitter: the delay is scaled by a random factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 10_000, factor: 1.5, jitter: 0.2 };

/** Delay before poll number `attempt + 1` (attempt 0 is the wait after the first poll). Never above maxMs. */
export function pollDelay(attempt: number, opts: BackoffOptions, random: () => number): number {
  const initial = Math.min(opts.initialMs, opts.maxMs);
  const base = Math.min(opts.maxMs, initial * opts.factor ** Math.max(0, attempt));
  const scale = 1 + opts.jitter * (2 * random() - 1);
  return Math.max(1, Math.min(opts.maxMs, Math.round(base * scale)));
}

import type { Clock } from '../util/clock.js';
export { realClock, type Clock } from '../util/clock.js';

/**
 * What one poll of one id gave: done (with a result), still pending (with a status), a failure, or
 * refused by the service (429/503 after the http core's own retries): the id stays pending and the
 * next round waits at least `retryAfterMs` when the service said so.
 */
export type PollResult<T> =
  | { done: true; value: T }
  | { done: false; status: string }
  | { failed: true; error: unknown }
  | { refused: true; retryAfterMs?: number };

export interface WatchOptions<T> {
  ids: readonly number[];
  poll: (id: number) => Promise<PollResult<T>>;
  timeoutMs: number;
  backoff: BackoffOptions;
  clock: Clock;
  signal?: AbortSignal;
  /** Called after each round with the status of every id (for a live status line). */
  onRound?: (state: ReadonlyMap<number, WatchState<T>>, elapsedMs: number, nextDelayMs: number | undefined) => void;
  /** How many ids are polled at once within a round (default 8). */
  concurrency?: number;
}

export type WatchState<T> =
  | { kind: 'pending'; status: string }
  | { kind: 'done'; value: T }
  | { kind: 'failed'; error: unknown };

export interface WatchOutcome<T> {
  states: Map<number, WatchState<T>>;
  timedOut: boolean;
  rounds: number;
}

/**
 * Polls every id once per round (one request per check per poll) until each is done or failed,
 * or until timeoutMs has passed (then `timedOut`). Rounds start right away and then back off.
 */
export async function watchAll<T>(opts: WatchOptions<T>): Promise<WatchOutcome<T>> {
  const { clock } = opts;
  const started = clock.now();
  const deadline = started + opts.timeoutMs;
  const states = new Map<number, WatchState<T>>();
  for (const id of opts.ids) states.set(id, { kind: 'pending', status: 'unknown' });
  let rounds = 0;
  for (let attempt = 0; ; attempt++) {
    const pending = [...states].filter(([, s]) => s.kind === 'pending').map(([id]) => id);
    let retryAfterMs = 0;
    await forEachLimited(pending, opts.concurrency ?? 8, async (id) => {
      const r = await opts.poll(id);
      if ('refused' in r) retryAfterMs = Math.max(retryAfterMs, r.retryAfterMs ?? 0);
      else if ('failed' in r) states.set(id, { kind: 'failed', error: r.error });
      else if (r.done) states.set(id, { kind: 'done', value: r.value });
      else states.set(id, { kind: 'pending', status: r.status });
    });
    rounds++;
    const stillPending = [...states.values()].some((s) => s.kind === 'pending');
    const now = clock.now();
    if (!stillPending) {
      opts.onRound?.(states, now - started, undefined);
      return { states, timedOut: false, rounds };
    }
    if (now >= deadline) {
      opts.onRound?.(states, now - started, undefined);
      return { states, timedOut: true, rounds };
    }
    // A refusal's Retry-After slows every id down, not only the one refused.
    const delay = Math.min(Math.max(pollDelay(attempt, opts.backoff, clock.random), retryAfterMs), deadline - now);
    opts.onRound?.(states, now - started, delay);
    await clock.sleep(delay, opts.signal);
  }
}

/** Runs fn over items with at most `limit` at once. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  });
  await Promise.all(workers);
}
