// --wait: the sequences not yet ended are read again, with backoff up to --interval, until every
// one has ended or --timeout has passed. Waits on the context's clock (virtual in tests); Ctrl-C
// ends the waiting at once, and the outreach goes on in the service.
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { classify } from './classify.js';
import type { OutcomeReader, SequenceState } from './fetch.js';

export interface WaitOptions {
  timeoutSec: number;
  intervalSec: number;
}

export interface WaitOutcome {
  timedOut: boolean;
  /** Sequences still running when the wait ended. */
  running: number;
  /** Reads that failed along the way (their rows keep the state read before). */
  failedReads: number;
}

/** Still running: a person would not yet act on it (queued, in progress, or an unknown status with a next activity). */
export function isRunning(s: SequenceState): boolean {
  if (s.notFound || !s.sequence) return false;
  return classify({ batch: 'created', sequence: s.sequence, lastCall: s.lastCall }) === 'in-progress';
}

export async function waitUntilEnded(ctx: Context, reader: OutcomeReader, states: readonly SequenceState[], o: WaitOptions): Promise<WaitOutcome> {
  const { pollDelay, DEFAULT_BACKOFF } = await import('../eligibility/backoff.js');
  const { clock, signal } = ctx;
  const backoff = { ...DEFAULT_BACKOFF, maxMs: o.intervalSec * 1000 };
  const deadline = clock.now() + o.timeoutSec * 1000;
  const progress = await ctx.io.progress({ label: 'Waiting for sequences', unit: 'sequence', verb: 'ended', total: states.length });
  let failedReads = 0;
  try {
    for (let attempt = 0; ; attempt++) {
      const running = states.filter(isRunning);
      progress.update(states.length - running.length);
      if (running.length === 0) return { timedOut: false, running: 0, failedReads };
      const now = clock.now();
      if (now >= deadline) return { timedOut: true, running: running.length, failedReads };
      await clock.sleep(Math.min(pollDelay(attempt, backoff, clock.random), deadline - now), signal);
      failedReads += (await reader.read(running, { tolerant: true })).failed;
    }
  } catch (err) {
    if (signal.aborted) throw new InterruptedError();
    throw err;
  } finally {
    progress.done();
  }
}
