// The quiet period: before a resumed run trusts that a row it sent earlier is absent from the
// service, no request of that earlier run may plausibly still arrive. A request cut off on our
// side (Ctrl-C, a timeout, a lost connection) can still be on its way through a proxy or a queue;
// it gives up at the run's request timeout, so absence is trusted only once that timeout plus a
// margin has passed since the request was sent. Used by batch and bulk resumes alike.
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';

/** Margin on top of the request timeout (clock resolution, a server finishing its work). */
export const QUIET_MARGIN_S = 5;
const DEFAULT_TIMEOUT_S = 30;

export function quietPeriodMs(requestTimeoutS: number | undefined): number {
  return ((requestTimeoutS ?? DEFAULT_TIMEOUT_S) + QUIET_MARGIN_S) * 1000;
}

/**
 * Waits until the quiet period after `lastSentAtMs` is over (at once if it is). `what` says what is
 * waited for, e.g. "checking the unknown rows".
 */
export async function waitUntilQuiet(ctx: Context, lastSentAtMs: number, requestTimeoutS: number | undefined, what: string): Promise<void> {
  const quiet = quietPeriodMs(requestTimeoutS);
  const wait = lastSentAtMs + quiet - ctx.clock.now();
  if (!(wait > 0)) return;
  ctx.info(`Waiting ${Math.ceil(wait / 1000)} s before ${what}: a request sent ${Math.round(quiet / 1000)} s ago or less may still reach the service.`);
  try {
    await ctx.clock.sleep(wait, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw new InterruptedError(`Interrupted before ${what}; nothing was sent.`);
    throw err;
  }
}
