// The rows of `eligibility check --csv` that were not submitted, as a problem report (the renderer
// of src/output/problems.ts, shared with `sequences batch`): the invalid rows with the file's line,
// column and (on a terminal) value; the rows the service rejected with its reason.
import { basename } from 'node:path';
import type { Context } from '../context.js';
import type { ProblemEntry } from '../output/problems.js';
import { plural } from '../output/plural.js';
import type { BulkRow } from './bulk.js';
import type { Tally } from './bulkSummary.js';

/** Problems kept for the report at most: memory stays flat over a file of any size; the rest are counted. */
const KEPT = 10_000;

export class RowProblems {
  private readonly invalid: ProblemEntry[] = [];
  private readonly rejected: ProblemEntry[] = [];
  private omitted = 0;
  private readonly columns: ReadonlyMap<string, string>;

  constructor(mapping: ReadonlyArray<{ field: string; column: string }>) {
    this.columns = new Map(mapping.map((m) => [m.field, m.column]));
  }

  /** Notes a settled row's problems (nothing for a row that was submitted or left for later). */
  add(row: BulkRow): void {
    if (row.result === 'invalid') {
      for (const p of row.problems) {
        this.keep(this.invalid, {
          line: row.line,
          label: this.columns.get(p.field) ?? p.field,
          message: p.message,
          severity: 'error',
          value: row.fields[p.field],
        });
      }
    } else if (row.result === 'rejected') {
      this.keep(this.rejected, { line: row.line, label: '', message: row.error ?? 'rejected (no reason given)', severity: 'error', fromService: true });
    }
  }

  private keep(list: ProblemEntry[], p: ProblemEntry): void {
    if (this.invalid.length + this.rejected.length < KEPT) list.push(p);
    else this.omitted++;
  }

  /** The report (empty when every row went through). */
  async render(ctx: Context, t: Tally, out: string | undefined): Promise<string> {
    if (!this.invalid.length && !this.rejected.length) return '';
    const { renderProblems, renderOptionsFor } = await import('../output/problems.js');
    const n = t.by;
    return renderProblems(
      {
        sections: [
          { heading: `${n.invalid} of ${plural(t.rows, 'row')} ${n.invalid === 1 ? 'is' : 'are'} invalid and ${n.invalid === 1 ? 'was' : 'were'} not sent:`, problems: this.invalid },
          { heading: `${plural(n.rejected, 'row')} ${n.rejected === 1 ? 'was' : 'were'} rejected by the service:`, problems: this.rejected },
        ],
        omitted: this.omitted,
        fullList: out ? `${out} has every row` : '--out results.csv lists every row',
        next: [],
      },
      renderOptionsFor(ctx.io, ctx.globals.format),
    );
  }

  /** What to do about them: fix the file and run the same command (rows already submitted are skipped). */
  async nextSteps(ctx: Context, file: string, command: string): Promise<string> {
    const { renderProblems, renderOptionsFor } = await import('../output/problems.js');
    const next = [`Fix those lines in ${basename(file)}, then run again (rows already submitted are skipped):`, `  ${command}`];
    return renderProblems({ sections: [], fullList: '', next }, renderOptionsFor(ctx.io, ctx.globals.format));
  }
}
