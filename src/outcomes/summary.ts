// The end of `sequences outcomes` on stderr: one plain line of counts always (not with -q); on a
// terminal also a bar chart of the results, one of the service's outcomes, and the command that
// writes the list of whom to call by hand.
import stringWidth from 'string-width';
import type { Context } from '../context.js';
import { plural } from '../output/plural.js';
import { terminalSafe } from '../output/safe.js';
import { barChart, type Bar } from './chart.js';
import { NO_SEQUENCE, RESULTS, TO_CALL, type OutcomeResult } from './classify.js';

export interface SummaryRow {
  created: boolean;
  result: OutcomeResult;
  /** The sequence's outcome, as the service words it. */
  outcome?: unknown;
}

/** "40 rows: 36 sequences, 3 invalid, 1 skipped · 30 ended, 6 in progress" */
export function countsLine(rows: readonly SummaryRow[]): string {
  const count = (r: OutcomeResult) => rows.filter((x) => x.result === r).length;
  const sequences = rows.filter((r) => r.created);
  const without = NO_SEQUENCE.filter((s) => s !== 'not-found' && count(s) > 0).map((s) => `${count(s).toLocaleString('en-US')} ${s}`);
  let line = `${plural(rows.length, 'row')}: ${[plural(sequences.length, 'sequence'), ...without].join(', ')}`;
  if (sequences.length > 0) {
    const running = sequences.filter((r) => r.result === 'in-progress').length;
    const gone = sequences.filter((r) => r.result === 'not-found').length;
    const ended = sequences.length - running - gone;
    const parts = [`${ended.toLocaleString('en-US')} ended`, `${running.toLocaleString('en-US')} in progress`];
    if (gone) parts.push(`${gone.toLocaleString('en-US')} not found`);
    line += ` · ${parts.join(', ')}`;
  }
  return line;
}

/** The results present, in RESULTS order, and the service's outcomes of the sequences (most first). */
export function summaryBars(rows: readonly SummaryRow[], maxOutcomes = 8): { results: Bar[]; outcomes: Bar[] } {
  const results = RESULTS.map((r) => ({ label: r, count: rows.filter((x) => x.result === r).length })).filter((b) => b.count > 0);
  const byOutcome = new Map<string, number>();
  for (const r of rows) {
    if (!r.created || r.outcome === undefined || r.outcome === null || r.outcome === '') continue;
    const k = typeof r.outcome === 'string' ? r.outcome : JSON.stringify(r.outcome);
    byOutcome.set(k, (byOutcome.get(k) ?? 0) + 1);
  }
  const sorted = [...byOutcome].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label, count]) => ({ label, count }));
  const outcomes = sorted.length > maxOutcomes ? [...sorted.slice(0, maxOutcomes - 1), { label: `(${sorted.length - maxOutcomes + 1} others)`, count: sorted.slice(maxOutcomes - 1).reduce((n, b) => n + b.count, 0) }] : sorted;
  return { results, outcomes };
}

export interface SummaryOptions {
  /** This command with more arguments, quoted (the one that lists whom to call); absent: not printed. */
  command?: (extra: string[]) => string;
  /** --only was given: the person already chose what to see. */
  filtered: boolean;
}

export async function printSummary(ctx: Context, rows: readonly SummaryRow[], o: SummaryOptions): Promise<void> {
  if (ctx.globals.quiet) return;
  const counts = countsLine(rows);
  if (!ctx.io.isStderrTTY) {
    ctx.info(`${counts}.`);
    return;
  }
  const chalk = await ctx.io.chalkErr();
  const { styleResult } = await import('./records.js');
  const width = Math.min(80, (ctx.io.stderr as { columns?: number }).columns || ctx.io.columns);
  const { results, outcomes } = summaryBars(rows);
  const lines = [counts];
  // Both charts share one label column, so their bars line up.
  const labelWidth = Math.max(...[...results, ...outcomes].map((b) => stringWidth(terminalSafe(b.label))));
  if (results.length) lines.push('', ...barChart(results, { title: ['Result', 'Rows'], total: rows.length, width, labelWidth, style: (label, bar) => styleResult(bar, chalk, label) }));
  const sequences = rows.filter((r) => r.created).length;
  if (outcomes.length) lines.push('', ...barChart(outcomes, { title: ['Outcome (service)', 'Rows'], total: sequences, width, labelWidth }));
  const toCall = TO_CALL.filter((r) => rows.some((x) => x.result === r));
  if (toCall.length && !o.filtered && o.command) {
    // The command on lines of its own, broken only between arguments (` \`): it pastes whole.
    const { wrapCommand } = await import('../output/problems.js');
    lines.push('', 'To call by hand:', ...wrapCommand(`  ${terminalSafe(o.command(['--only', toCall.join(','), '--out', 'to-call.csv']))}`, width));
  }
  ctx.io.err(`${lines.join('\n')}\n`);
}
