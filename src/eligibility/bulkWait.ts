// `eligibility check --csv --wait`: after the submission, poll every check the run created until
// it completes (as `eligibility watch` does), then fill each row's status, outcome and coverage.
import type { HttpClient } from '../api/http.js';
import type { EligibilityCheck } from '../api/types.js';
import type { Context } from '../context.js';
import type { BulkRow } from './bulk.js';
import type { CheckResult } from './verdict.js';

export interface WaitResult {
  interrupted: boolean;
  timedOut: boolean;
  /** Exit codes of the completed checks' verdicts (3: not active with --fail-inactive). */
  codes: number[];
  /** Checks whose status this version does not know. */
  unknownStatus: number;
  /** How many checks ended with each result (the outcome breakdown of the summary). */
  results: Map<CheckResult, number>;
}

export async function waitForChecks(
  ctx: Context,
  client: HttpClient,
  rows: BulkRow[],
  o: { timeoutSec: number; intervalSec: number; concurrency: number; failInactive: boolean },
): Promise<WaitResult> {
  const result: WaitResult = { interrupted: false, timedOut: false, codes: [], unknownStatus: 0, results: new Map() };
  const ids = rows.filter((r) => r.id !== undefined).map((r) => r.id!);
  if (ids.length === 0) return result;
  const api = await import('../api/eligibility.js');
  const { watchAll, DEFAULT_BACKOFF } = await import('./backoff.js');
  const { verdictFor, pollResultFor, resultOf } = await import('./verdict.js');
  const { plural } = await import('../output/plural.js');
  const count = (r: CheckResult) => result.results.set(r, (result.results.get(r) ?? 0) + 1);
  const { fateOf } = await import('../api/errors.js');
  ctx.info(`Waiting for ${plural(ids.length, 'check')} to complete…`);
  const progress = await ctx.io.progress({ label: 'Waiting for checks', unit: 'check', verb: 'complete', total: ids.length });
  let complete = 0;
  const outcome = await watchAll<EligibilityCheck>({
    ids,
    clock: ctx.clock,
    signal: ctx.signal,
    timeoutMs: o.timeoutSec * 1000,
    backoff: { ...DEFAULT_BACKOFF, maxMs: o.intervalSec * 1000 },
    concurrency: o.concurrency,
    poll: async (id) => {
      try {
        const { check } = await api.getEligibility(client, id);
        const result = pollResultFor(check);
        if (result.done) progress.update(++complete);
        return result;
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        // Refused (429/503): wait as the service asked and poll again; other failures end that id.
        if (fateOf(error) === 'refused') return { refused: true, retryAfterMs: (error as { retryAfterMs?: number }).retryAfterMs };
        return { failed: true, error };
      }
    },
  })
    .catch((err: unknown) => {
      if (ctx.signal.aborted) return undefined;
      throw err;
    })
    .finally(() => progress.done());
  if (!outcome) return { ...result, interrupted: true };
  result.timedOut = outcome.timedOut;
  for (const row of rows) {
    if (row.id === undefined) continue;
    const st = outcome.states.get(row.id);
    row.check = st?.kind === 'done' ? resultOf(st.value) : st?.kind === 'pending' ? 'not completed yet' : 'could not be read';
    count(row.check);
    if (st?.kind === 'done') {
      row.status = st.value.status;
      row.outcome = st.value.outcome;
      row.active_today = st.value.coverage?.is_active_today;
      const v = verdictFor(st.value, o.failInactive);
      if (v.code === 1) {
        result.unknownStatus++;
        row.error = v.reason;
      } else result.codes.push(v.code);
    } else if (st?.kind === 'pending') row.status = st.status;
    else if (st?.kind === 'failed') row.error = (st.error as Error)?.message;
  }
  return result;
}
