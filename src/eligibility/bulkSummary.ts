// The end of `eligibility check --csv`: one line of counts, then the exit code, decided in one place
// from what the run did (interrupted, stopped, rows left, timed out, invalid, inactive).
import type { Context } from '../context.js';
import { CliError, IncompleteError, InterruptedError, ValidationError, WaitTimeoutError, worstExit } from '../errors.js';
import { lineList } from '../journal/words.js';
import type { RowResult, SubmitSummary } from './bulk.js';
import type { WaitResult } from './bulkWait.js';
import { plural } from '../output/plural.js';
import { renderOptionsFor, wrapLine } from '../output/problems.js';
import { CHECK_RESULTS } from './verdict.js';

/** What the run counted as rows settled: per result, and the lines of the unknown rows. */
export interface Tally {
  rows: number;
  by: Record<RowResult, number>;
  unknownLines: number[];
}

export function newTally(): Tally {
  return { rows: 0, by: { accepted: 0, 'already-submitted': 0, invalid: 0, rejected: 0, unknown: 0, 'not-sent': 0 }, unknownLines: [] };
}

/**
 * The outcome breakdown that ends a run: what this run submitted and what the journal already had,
 * what was not sent and why, then (with --wait) each check's result as the service gave it. Counts
 * only what the service said: without --wait nothing is claimed about results.
 */
export function summarise(ctx: Context, t: Tally, summary: SubmitSummary, wait: WaitResult | undefined, o: { out?: string; wait: boolean }): void {
  const n = t.by;
  const already = n['already-submitted'];
  const parts = [
    `${n.accepted.toLocaleString('en-US')} submitted${already ? ` (${already.toLocaleString('en-US')} already in the journal)` : ''}`,
    n.invalid ? `${n.invalid.toLocaleString('en-US')} invalid` : '',
    n.rejected ? `${n.rejected.toLocaleString('en-US')} rejected by the service` : '',
    n.unknown ? `${n.unknown.toLocaleString('en-US')} unknown` : '',
    n['not-sent'] ? `${n['not-sent'].toLocaleString('en-US')} not sent` : '',
  ].filter(Boolean);
  const lines = [`${plural(t.rows, 'row')}: ${parts.join(', ')}.${summary.throttled ? ` The service asked to slow down ${plural(summary.throttled, 'time')}.` : ''}`];
  const checks = n.accepted + already;
  if (wait && wait.results.size) {
    const total = [...wait.results.values()].reduce((a, b) => a + b, 0);
    const by = CHECK_RESULTS.filter((r) => wait.results.get(r)).map((r) => `${wait.results.get(r)!.toLocaleString('en-US')} ${r}`);
    lines.push(`Results of ${plural(total, 'check')}: ${by.join(', ')}.`);
  } else if (!o.wait && checks > 0 && !ctx.globals.quiet) {
    lines.push(`The ${checks === 1 ? 'check runs' : 'checks run'} on the service: --wait shows the results here, or see them with outreach eligibility list.`);
  }
  if (o.out) lines.push(`Results in ${o.out}.`);
  const { width } = renderOptionsFor(ctx.io, ctx.globals.format);
  ctx.info(lines.flatMap((l) => wrapLine(l, width, '  ')).join('\n'));
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
      ? ` ${plural(n.unknown, 'row')} may or may not have created a check (line${n.unknown === 1 ? '' : 's'} ${lineList(t.unknownLines)}): ` +
        'check them on the service (outreach eligibility list --patient ID), then run again with --resend-unknown to send those still missing.'
      : '';
  const candidates: CliError[] = [];
  // Ctrl-C while waiting stops only the waiting: the checks submitted go on in the service.
  const goesOn = wait?.interrupted && !summary.interrupted ? 'The checks go on in the service. ' : '';
  if (summary.interrupted || wait?.interrupted) candidates.push(new InterruptedError(`Interrupted. ${goesOn}${rerun}${unknownNote}`));
  if (summary.fatal) {
    const f = summary.fatal as CliError;
    candidates.push(new CliError(`${f.message} ${rerun}${unknownNote}`, f.exitCode ?? 7, { code: f.code, hint: f.hint }));
  }
  if (n.unknown + n['not-sent'] > 0) {
    const notSent = n['not-sent'] > 0 ? `${plural(n['not-sent'], 'row')} ${n['not-sent'] === 1 ? 'was' : 'were'} not sent; running again sends ${n['not-sent'] === 1 ? 'it' : 'them'}.` : '';
    candidates.push(new IncompleteError(`${[notSent, unknownNote.trim()].filter(Boolean).join(' ')} ${n['not-sent'] > 0 ? rerun : ''}`.trim()));
  }
  if (wait?.timedOut) candidates.push(new WaitTimeoutError(`Gave up waiting after ${o.timeoutSec}s; some checks are not completed yet (see the status column).`));
  if (n.invalid + n.rejected > 0) {
    candidates.push(
      new ValidationError(`${notSubmitted(n.invalid, n.rejected)} (listed above).`),
    );
  }
  if (wait?.codes.some((c) => c !== 0)) {
    const also = wait.unknownStatus > 0 ? ` Also, ${plural(wait.unknownStatus, 'check')} ${wait.unknownStatus === 1 ? 'has' : 'have'} a status this version does not know.` : '';
    candidates.push(new ValidationError(`Some checks are not active today or not successful (--fail-inactive).${also}`));
  }
  if (wait && wait.unknownStatus > 0) {
    candidates.push(
      new CliError(`${plural(wait.unknownStatus, 'check')} ${wait.unknownStatus === 1 ? 'has' : 'have'} a status this version does not know; it is not waiting for ${wait.unknownStatus === 1 ? 'it' : 'them'} any more (see the status and error columns).`, 1, {
        code: 'unknown_status',
      }),
    );
  }
  const worst = worstExit(candidates.map((c) => c.exitCode));
  const chosen = candidates.find((c) => c.exitCode === worst);
  if (chosen) throw chosen;
}

/** "4 rows were not submitted: 3 invalid, 1 rejected" */
function notSubmitted(invalid: number, rejected: number): string {
  const total = invalid + rejected;
  const why = [invalid ? `${invalid} invalid` : '', rejected ? `${rejected} rejected by the service` : ''].filter(Boolean).join(', ');
  return `${plural(total, 'row')} ${total === 1 ? 'was' : 'were'} not submitted: ${why}`;
}
