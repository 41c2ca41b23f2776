// Shared pacing of a run (bulk eligibility submissions, batch validate and create chunks): every worker asks the pacer before sending. A 429 (or 503) answer
// slows the whole run down, not just the worker that got it: everyone pauses (Retry-After when the
// service gives one, else a growing pause), and request starts are spaced by a gap that doubles on
// each refusal and shrinks again after a run of successes. Pure apart from the injected clock.
import type { Clock } from './clock.js';
import { parseRetryAfter, type AttemptFailure } from '../api/retry.js';

export interface PacerOptions {
  /** Pause after a refusal without Retry-After, doubled per consecutive refusal. */
  basePauseMs: number;
  maxPauseMs: number;
  /** Gap between request starts after the first refusal; doubles per refusal up to maxGapMs. */
  minGapMs: number;
  maxGapMs: number;
  /** Successes in a row that shrink the gap by a quarter. */
  recoverAfter: number;
}

export const DEFAULT_PACER: PacerOptions = { basePauseMs: 500, maxPauseMs: 30_000, minGapMs: 25, maxGapMs: 2_000, recoverAfter: 20 };

export class Pacer {
  private gapMs = 0;
  private nextStartAt = 0;
  private pausedUntil = 0;
  private refusalsInRow = 0;
  private successes = 0;
  /** Total refusals seen (for the summary). */
  throttled = 0;

  constructor(
    private readonly clock: Clock,
    private readonly opts: PacerOptions = DEFAULT_PACER,
  ) {}

  get currentGapMs(): number {
    return this.gapMs;
  }

  /** Waits until this worker may start a request. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const at = Math.max(this.nextStartAt, this.pausedUntil);
      if (at <= now) {
        this.nextStartAt = now + this.gapMs;
        return;
      }
      await this.clock.sleep(at - now, signal);
    }
  }

  /** The service refused (429/503): slow everyone down. */
  refused(retryAfterMs?: number): void {
    this.throttled++;
    this.successes = 0;
    // Refusals of requests that were already in flight when the run paused are the same event:
    // they do not escalate again.
    if (this.clock.now() < this.pausedUntil && retryAfterMs === undefined) return;
    this.refusalsInRow++;
    this.gapMs = Math.min(this.opts.maxGapMs, Math.max(this.opts.minGapMs, this.gapMs * 2));
    const pause =
      retryAfterMs !== undefined
        ? Math.min(retryAfterMs, this.opts.maxPauseMs)
        : Math.min(this.opts.maxPauseMs, this.opts.basePauseMs * 2 ** (this.refusalsInRow - 1));
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + pause);
  }

  /** A request went through: after enough in a row, speed up again. */
  succeeded(): void {
    this.refusalsInRow = 0;
    if (this.gapMs === 0) return;
    if (++this.successes >= this.opts.recoverAfter) {
      this.successes = 0;
      this.gapMs = this.gapMs * 0.75 < this.opts.minGapMs ? 0 : Math.round(this.gapMs * 0.75);
    }
  }
}

/**
 * An http `onRetry` hook that tells the pacer when the service refused a request (429/503) which
 * the http core is about to retry: the whole run slows down, not just that request.
 */
export function tellPacer(pacer: Pacer, clock: Clock): (failure: AttemptFailure) => void {
  return (failure) => {
    if (failure.kind === 'status' && (failure.status === 429 || failure.status === 503)) {
      pacer.refused(parseRetryAfter(failure.retryAfter, clock.now()));
    }
  };
}
