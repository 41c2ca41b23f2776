// The end of `eligibility check --csv`: one line of counts, then the exit code, decided in one place
// from what the run did (interrupted, stopped, rows left, timed out, invalid, inactive).
import type { Context } from '../context.js';
import { CliError, IncompleteError, InterruptedError, ValidationError, WaitTimeoutError, worstExit } from '../errors.js';
import { lineList } from '../journal/words.js';
import type { RowResult, SubmitSummary } from './bulk.js';
import type { WaitResult } from './bulkWait.js';

/** What the run counted as rows settled: per result, and the lines of the unknown rows. */
export interface Tally {
  rows: number;
  by: Record<RowResult, number>;
  unknownLines: number[];
}

export function newTally(): Tally {
  return { rows: 0, by: { accepted: 0, 'already-submitted': 0, invalid: 0, rejected: 0, unknown: 0, 'not-sent': 0 }, unknownLines: [] };
}

export function summarise(ctx: Context, t: Tally, summary: SubmitSummary, out: string | undefined): void {
  const n = t.by;
  const parts = [
    `${n.accepted} submitted`,
    n['already-submitted'] ? `${n['already-submitted']} already submitted earlier` : '',
    n.invalid ? `${n.invalid} invalid` : '',
    n.rejected ? `${n.rejected} rejected by the service` : '',
    n.unknown ? `${n.unknown} unknown` : '',
    n['not-sent'] ? `${n['not-sent']} not sent` : '',
    summary.throttled ? `(the service asked to slow down ${summary.throttled} time(s))` : '',
  ].filter(Boolean);
  ctx.info(`${t.rows} rows: ${parts.join(', ')}.${out ? ` Results in ${out}.` : ''}`);
}

/**
 * Throws the error that says how the run ended (nothing when every row was submitted and fine).
 * Every way it ended is a candidate; the worst exit code wins (src/errors.ts, one policy).
 */
export function finalVerdict(t: Tally, summary: SubmitSummary, wait: WaitResult | undefined, o: { out?: string; timeoutSec: number; command: string }): void {
  const n = t.by;
  const rerun =
    `To continue: ${o.command} (rows already submitted are skipped; rows whose fate is unknown are looked up ` +
    'on the service and never sent again automatically).';
  const unknownNote =
    n.unknown > 0
      ? ` ${n.unknown} row(s) may or may not have created a check (line${n.unknown === 1 ? '' : 's'} ${lineList(t.unknownLines)}): ` +
        'check them on the service (outreach eligibility list --patient ID), then run again with --resend-unknown to send those still missing.'
      : '';
  const candidates: CliError[] = [];
  if (summary.interrupted || wait?.interrupted) candidates.push(new InterruptedError(`Interrupted. ${rerun}${unknownNote}`));
  if (summary.fatal) {
    const f = summary.fatal as CliError;
    candidates.push(new CliError(`${f.message} ${rerun}${unknownNote}`, f.exitCode ?? 7, { code: f.code, hint: f.hint }));
  }
  if (n.unknown + n['not-sent'] > 0) {
    const notSent = n['not-sent'] > 0 ? `${n['not-sent']} row(s) were not sent; running again sends them.` : '';
    candidates.push(new IncompleteError(`${[notSent, unknownNote.trim()].filter(Boolean).join(' ')} ${n['not-sent'] > 0 ? rerun : ''}`.trim()));
  }
  if (wait?.timedOut) candidates.push(new WaitTimeoutError(`Gave up waiting after ${o.timeoutSec}s; some checks are not completed yet (see the status column).`));
  if (n.invalid + n.rejected > 0) {
    candidates.push(
      new ValidationError(`${n.invalid} invalid and ${n.rejected} rejected row(s) were not submitted (see the lines above${o.out ? ` and ${o.out}` : ''}).`),
    );
  }
  if (wait?.codes.some((c) => c !== 0)) {
    const also = wait.unknownStatus > 0 ? ` Also, ${wait.unknownStatus} check(s) have a status this version does not know.` : '';
    candidates.push(new ValidationError(`Some checks are not active today or not successful (--fail-inactive).${also}`));
  }
  if (wait && wait.unknownStatus > 0) {
    candidates.push(
      new CliError(`${wait.unknownStatus} check(s) have a status this version does not know; it is not waiting for them any more (see the status and error columns).`, 1, {
        code: 'unknown_status',
      }),
    );
  }
  const worst = worstExit(candidates.map((c) => c.exitCode));
  const chosen = candidates.find((c) => c.exitCode === worst);
  if (chosen) throw chosen;
}
