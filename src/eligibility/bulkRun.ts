// `eligibility check --csv FILE`, in order: the header, the lock and journal (src/journal/), then
// the file streamed row by row — checked, submitted by `concurrency` workers (bulk.ts), written to
// the results file in file order as rows settle — then optionally the wait, the summary and the exit
// code. Memory stays flat with the number of rows, except with --wait (the submitted rows are kept
// until their checks complete) or a table on stdout (the rows are kept to size it). The results file
// gives every row back, its own columns first (csv/joined.ts): a row's values are kept only until
// it is written.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CsvRow } from '../csv/reader.js';
import type { ResultsWriter } from '../csv/results.js';
import { commandLine } from '../journal/words.js';
import { DEFAULT_CONCURRENCY } from '../util/concurrency.js';
import { checkRow, RESULT_COLUMNS, resultRecord, submitRows, type BulkRow, type SubmitSummary } from './bulk.js';
import { journalPath, openBulkJournal } from './bulkJournal.js';
import { finalVerdict, newTally, summarise } from './bulkSummary.js';
import { RowProblems } from './bulkProblems.js';
import { plural } from '../output/plural.js';
import type { WaitResult } from './bulkWait.js';
import type { FieldName } from './request.js';

export interface BulkOptions {
  csv: string;
  /** A workbook's sheet (name or 1-based number); default its first. */
  sheet?: string;
  concurrency: number;
  out?: string;
  map: string[];
  webhook?: { url?: string; secret?: string };
  /** How the secret was given, for the command that continues the run. */
  webhookSecretFlag?: string[];
  resendUnknown: boolean;
  wait?: { intervalSec: number; timeoutSec: number; failInactive: boolean };
  /** --only: the rows the results keep (bulkOnly.ts); every row is still counted. */
  only?: ReadonlySet<string>;
}

/** Rows read ahead of the oldest unsettled one at most (the results are written in file order). */
const WINDOW = 512;

export async function runBulkCheck(ctx: Context, o: BulkOptions): Promise<void> {
  const [{ CsvFormatError }, { openPatientFile, sheetNote }, headers, results, { FIELDS }, { joinedColumns, joinedRecord }, { keepsRow }] = await Promise.all([
    import('../csv/reader.js'),
    import('../csv/open.js'),
    import('../csv/headers.js'),
    import('../csv/results.js'),
    import('./request.js'),
    import('../csv/joined.js'),
    import('./bulkOnly.js'),
  ]);
  if (o.out !== undefined) await results.checkResultsPath(o.out);

  // 1. The header.
  let file;
  try {
    file = await openPatientFile(o.csv, { sheet: o.sheet });
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
  const note = sheetNote(file, o.sheet);
  if (note) ctx.info(note);
  let match: ReturnType<typeof headers.matchHeaders>;
  try {
    match = headers.matchHeaders(file.headers, headers.ELIGIBILITY_TARGETS, headers.parseMapOptions(o.map));
  } catch (err) {
    if (err instanceof headers.MapOptionError) throw new UsageError(err.message);
    throw err;
  }
  const problem = headers.headerProblemsError(o.csv, file.headerLine, match, {
    missing: true,
    describe: (f) => `${f} (${FIELDS[f as FieldName]?.path ?? f})`,
    fields: headers.ELIGIBILITY_TARGETS.map((t) => t.field),
  });
  if (problem) throw new UsageError(problem.message, { hint: problem.hint });

  // 2. The lock, then the journal: two runs on the same file cannot both submit. A symlink or a
  // FIFO at the journal is refused before anything is read or sent.
  const jPath = journalPath(o.csv);
  const { checkWritablePath } = await import('../util/files.js');
  await checkWritablePath(jPath);
  const { lockJournal } = await import('../journal/lock.js');
  const lock = await lockJournal(`${jPath}.lock`, jPath, ctx.warn);
  ctx.handlesInterrupt = true;
  let out: ResultsWriter | undefined;
  let complete = false;
  let journal: Awaited<ReturnType<typeof openBulkJournal>> | undefined;
  try {
    // The results file is a temporary file beside --out, renamed once every row is in it: a run
    // that fails part-way (the file is damaged on line 5,000) keeps an earlier results file. A
    // symlink or an unwritable --out stops the run here, before the journal is even opened.
    // The results file gives each row back: the input's own columns first, then ours.
    const joined = joinedColumns(file.headers, RESULT_COLUMNS);
    if (o.out !== undefined) out = await results.openResults(o.out, joined.columns);
    const outRecord = (row: BulkRow) => {
      const record = joinedRecord(joined, row.values ?? [], resultRecord(row), RESULT_COLUMNS);
      row.values = undefined; // written: the row's patient data leaves memory
      return record;
    };
    const kept = (row: BulkRow) => keepsRow(o.only, row);
    journal = await openBulkJournal(ctx, o.csv);
    if (journal.state.unknown.size > 0) {
      ctx.info(`Looking up ${plural(journal.state.unknown.size, 'row')} whose earlier submission's fate is unknown…`);
    }
    if (o.resendUnknown && journal.state.unknown.size > 0 && journal.state.lastSentAt) {
      // Rows left unknown are sent again when the service shows no check for them: that absence
      // counts only once no request of the earlier run can still arrive.
      const { waitUntilQuiet } = await import('../journal/quiet.js');
      await waitUntilQuiet(ctx, journal.state.lastSentAt, journal.state.requestTimeoutS, 'looking up the rows whose fate is unknown');
    }

    // 3. Stream, check, submit; settle in file order.
    const client = await ctx.client({ bulk: true });
    const api = await import('../api/eligibility.js');
    const tally = newTally();
    const problems = new RowProblems(match.mapping);
    const keep: BulkRow[] | undefined = o.wait || (!out && !(ctx.globals.quiet && !ctx.globals.formatExplicit) && ctx.globals.format !== 'ndjson') ? [] : undefined;
    // Rows streamed to a terminal's stdout would be cut by a progress line redrawn on stderr.
    const progress = await ctx.io.progress({ label: 'Submitting checks', unit: 'row', verb: 'done', bytes: file.bytes, rowsOnScreen: !keep && !out && ctx.io.isStdoutTTY });
    const order = new InOrder<BulkRow>(async (row) => {
      tally.rows++;
      tally.by[row.result ?? 'not-sent']++;
      if (row.result === 'unknown') tally.unknownLines.push(row.line);
      problems.add(row);
      progress.update(tally.rows);
      if (keep) keep.push(row);
      else if (!kept(row)) row.values = undefined;
      else if (out) await out.write(outRecord(row));
      else if (ctx.globals.format === 'ndjson') ctx.io.out(`${JSON.stringify(resultRecord(row))}\n`);
      else if (row.id !== undefined) ctx.io.out(`${row.id}\n`); // -q: the ids only
    });
    const { LineIndex } = await import('../util/lineIndex.js');
    const seen = new LineIndex();
    const today = ctx.now();
    let index = 0;
    async function* checked(rows: AsyncIterable<CsvRow>): AsyncGenerator<BulkRow & { seq: number }> {
      try {
        for await (const r of rows) {
          await order.room(WINDOW);
          const row = checkRow(r.line, r.values, match.mapping, today, seen);
          if (out) row.values = r.values;
          yield Object.assign(row, { seq: index++ });
        }
      } catch (err) {
        if (err instanceof CsvFormatError) throw new UsageError(err.message);
        throw err;
      }
    }
    let summary: SubmitSummary;
    try {
      summary = await submitRows(checked(file.rows), {
        submit: async (body) => (await api.submitEligibility(client, body, { maxRetries: 0 })).submitted,
        lookup: async (key) => (await api.listEligibility(client, { patient: key, limit: 1000 })).checks,
        clock: ctx.clock,
        signal: ctx.signal,
        journal,
        state: journal.state,
        keyOf: (id) => journal!.keyOf(id),
        lookUpUnknown: true,
        concurrency: o.concurrency,
        webhook: o.webhook,
        onSettled: (row) => order.settle((row as BulkRow & { seq: number }).seq, row),
        resendUnknown: o.resendUnknown,
      });
    } finally {
      progress.done();
    }
    if (!ctx.globals.quiet) ctx.io.err(await problems.render(ctx, tally, o.out));

    // 4. Optionally wait for the submitted checks.
    let wait: WaitResult | undefined;
    if (o.wait && keep && !summary.interrupted && !summary.fatal) {
      const { waitForChecks } = await import('./bulkWait.js');
      wait = await waitForChecks(ctx, client, keep, { ...o.wait, concurrency: o.concurrency });
    }

    // 5. The rows kept (--wait, or a table on stdout), those --only asks for.
    const shown = keep?.filter(kept);
    if (shown && out) for (const r of shown) await out.write(outRecord(r));
    else if (shown && ctx.globals.quiet && !ctx.globals.formatExplicit) {
      for (const r of shown) if (r.id !== undefined) ctx.io.out(`${r.id}\n`);
    } else if (shown) {
      const records = shown.map(resultRecord);
      const { writeList } = await import('../output/writer.js');
      await writeList(
        ctx,
        records,
        RESULT_COLUMNS.map((c) => ({ header: c.toUpperCase().replace(/_/g, ' '), key: c, value: (r: Record<string, unknown>) => r[c], kind: c === 'active_today' ? ('bool' as const) : undefined })),
        records,
      );
    }
    if (out) {
      await out.close();
      out = undefined;
    }
    complete = true;
    summarise(ctx, tally, summary, wait, { out: o.out, wait: Boolean(o.wait) });
    if (!ctx.globals.quiet && tally.by.invalid + tally.by.rejected > 0) ctx.io.err(await problems.nextSteps(ctx, o.csv, continueCommand(o)));
    finalVerdict(tally, summary, wait, { out: o.out, timeoutSec: o.wait?.timeoutSec ?? 0, command: continueCommand(o) });
  } finally {
    if (out && !complete) await out.abort().catch(() => undefined);
    await journal?.close().catch(() => undefined);
    await lock.release().catch(() => undefined);
  }
}

/** The command that continues this run: the same one (rows already submitted are skipped). */
function continueCommand(o: BulkOptions): string {
  const args = ['outreach', 'eligibility', 'check', '--csv', o.csv];
  if (o.sheet !== undefined) args.push('--sheet', o.sheet);
  for (const m of o.map) args.push('--map', m);
  if (o.concurrency !== DEFAULT_CONCURRENCY) args.push('--concurrency', String(o.concurrency));
  if (o.out) args.push('--out', o.out);
  if (o.webhook?.url) args.push('--webhook-url', o.webhook.url, ...(o.webhookSecretFlag ?? []));
  if (o.wait) args.push('--wait', ...(o.wait.failInactive ? ['--fail-inactive'] : []));
  if (o.only) args.push('--only', [...o.only].join(','));
  return commandLine(args);
}

/**
 * Hands items to `emit` in sequence order although they settle in any order; `room(n)` waits while
 * more than n items are held back (a slow row holds the ones after it, so reading pauses).
 */
class InOrder<T> {
  private next = 0;
  private readonly held = new Map<number, T>();
  private emitting: Promise<void> = Promise.resolve();
  private waiters: Array<() => void> = [];

  constructor(private readonly emit: (item: T) => Promise<void>) {}

  settle(seq: number, item: T): Promise<void> {
    this.held.set(seq, item);
    this.emitting = this.emitting.then(async () => {
      for (let x = this.held.get(this.next); x !== undefined; x = this.held.get(this.next)) {
        this.held.delete(this.next++);
        await this.emit(x);
      }
      const w = this.waiters;
      this.waiters = [];
      w.forEach((f) => f());
    });
    return this.emitting;
  }

  async room(max: number): Promise<void> {
    while (this.held.size > max) await new Promise<void>((r) => this.waiters.push(r));
  }
}
