// `sequences outcomes`: the order of the work.
//   source   the batch's journal and results file: what it did with each row     (source.ts)
//   input    the patient file, checked to be the one uploaded                      (input.ts)
//   read     each created row's sequence and last call, --concurrency at once        (fetch.ts)
//   wait     with --wait, the sequences not yet ended, until they end or --timeout  (wait.ts)
//   write    the records to --out and stdout, then the summary                       (records.ts, summary.ts)
// Nothing is written when Ctrl-C stops it: the outreach goes on in the service.
import type { Context } from '../context.js';
import { InterruptedError, WaitTimeoutError } from '../errors.js';
import { commandLine } from '../journal/words.js';
import { plural } from '../output/plural.js';
import type { OutcomeResult } from './classify.js';
import type { SequenceState } from './fetch.js';
import type { InputFile } from './input.js';
import { allColumns, recordOf, recordsFor, resultOf, tableColumns, type OutcomeRow, type Records } from './records.js';
import type { WaitOutcome } from './wait.js';

export interface OutcomesOptions {
  file: string;
  from?: string;
  sheet?: string;
  delimiter?: string;
  map: string[];
  country: string;
  out?: string;
  only?: Set<OutcomeResult>;
  wait?: { timeoutSec: number; intervalSec: number };
  concurrency: number;
}

export async function runOutcomes(o: OutcomesOptions, ctx: Context): Promise<void> {
  // A symlink or an unwritable place at --out stops the run before anything is read.
  if (o.out) await (await import('../util/files.js')).checkWritablePath(o.out);
  const { locateBatch, readFates } = await import('./source.js');
  const fates = await readFates(await locateBatch(o.file, o.from));
  if (!fates.begin && fates.created.size > 0) {
    // Without the journal's phone hashes only the line numbers tie a row to its sequence.
    await ctx.warn(`no journal of the upload beside ${fates.source.results}: rows are matched to their sequences by line number only; use the file exactly as it was uploaded.`);
  }
  const { readInput } = await import('./input.js');
  const input = await readInput(ctx, o, fates);
  const rows: OutcomeRow[] = input.rows.map((r) => {
    if (!fates.created.has(r.line)) return { ...r, batch: fates.statuses.get(r.line) ?? 'not-created' };
    const id = fates.created.get(r.line);
    return { ...r, batch: 'created', ...(id === null || id === undefined ? {} : { state: { id } }) };
  });
  const noId = rows.filter((r) => r.batch === 'created' && !r.state).length;
  if (noId) await ctx.warn(`${plural(noId, 'row')} ${noId === 1 ? 'was' : 'were'} created without the service giving a sequence id; ${noId === 1 ? 'its' : 'their'} outcome cannot be read (result "other").`);

  const states = rows.flatMap((r) => (r.state ? [r.state] : []));
  const waited = states.length ? await readSequences(ctx, o, states) : undefined;
  if (ctx.signal.aborted) throw new InterruptedError();

  const recs = recordsFor(input.headers);
  const kept = o.only ? rows.filter((r) => o.only!.has(resultOf(r))) : rows;
  const records = kept.map((r) => recordOf(recs, r));
  if (o.out) await (await import('../csv/results.js')).writeResultsFile(o.out, recs.columns, records);
  await printRecords(ctx, records, recs, input.people, o);
  const { printSummary } = await import('./summary.js');
  await printSummary(
    ctx,
    rows.map((r) => ({ created: r.batch === 'created', result: resultOf(r), outcome: r.state?.sequence?.outcome })),
    { filtered: Boolean(o.only), command: (extra) => outcomesCommand(o, extra) },
  );
  if (o.out) ctx.info(`${plural(records.length, 'row')} written to ${o.out}.`);
  if (waited?.timedOut) {
    throw new WaitTimeoutError(
      `Gave up waiting after ${o.wait!.timeoutSec}s: ${waited.running} of ${plural(states.length, 'sequence')} had not ended` +
        `${o.out ? `; ${o.out} holds their state as last read` : ''}.`,
      { hint: `The outreach goes on in the service. Look again later: ${outcomesCommand(o, o.out ? ['--out', o.out] : [])}`, details: { running: waited.running, sequences: states.length } },
    );
  }
}

/** Reads every sequence, then waits with --wait. */
async function readSequences(ctx: Context, o: OutcomesOptions, states: SequenceState[]): Promise<WaitOutcome | undefined> {
  const client = await ctx.client({ bulk: states.length > 50 });
  const { OutcomeReader } = await import('./fetch.js');
  const reader = new OutcomeReader(ctx, client, o.concurrency);
  // Ctrl-C stops the reading, not the outreach: main says so after "Interrupted.".
  ctx.interruptNote = `The outreach goes on in the service; nothing was written. Look again with: ${outcomesCommand(o, o.wait ? ['--wait'] : [])}`;
  let waited: WaitOutcome | undefined;
  try {
    const progress = await ctx.io.progress({ label: 'Reading sequences', unit: 'sequence', verb: 'read', total: states.length });
    let read = 0;
    try {
      await reader.read(states, { onRead: () => progress.update(++read) });
    } finally {
      progress.done();
    }
    if (o.wait) {
      const { waitUntilEnded, isRunning } = await import('./wait.js');
      const running = states.filter(isRunning).length;
      if (running) ctx.info(`Waiting for ${running} of ${plural(states.length, 'sequence')} to end (at most ${o.wait.timeoutSec}s)…`);
      waited = await waitUntilEnded(ctx, reader, states, o.wait);
      if (waited.failedReads) await ctx.warn(`${plural(waited.failedReads, 'read')} of a sequence failed while waiting; those rows show the state read before.`);
    }
  } finally {
    ctx.interruptNote = undefined;
  }
  if (reader.unreadCalls.size) await ctx.warn(`the record of ${plural(reader.unreadCalls.size, 'last call')} could not be read; ${reader.unreadCalls.size === 1 ? 'its' : 'their'} last_call columns are empty.`);
  if (reader.throttled) ctx.info(`The service asked to slow down ${plural(reader.throttled, 'time')}.`);
  return waited;
}

/** stdout: -o json|ndjson|csv|tsv the records; a table on a terminal (the list of whom to call) unless --out. */
async function printRecords(ctx: Context, records: Record<string, unknown>[], recs: Records, people: InputFile['people'], o: OutcomesOptions): Promise<void> {
  const { globals } = ctx;
  if (!globals.formatExplicit) {
    if (o.out) return;
    if (globals.quiet) {
      // The essential result: the lines kept.
      for (const r of records) ctx.io.out(`${String(r[recs.ours('line')])}\n`);
      return;
    }
  }
  const { writeList } = await import('../output/writer.js');
  await writeList(ctx, records, globals.format === 'table' ? tableColumns(recs, people) : allColumns(recs));
}

/** This command line with `extra` arguments (the file, --from and how the file is read kept). */
export function outcomesCommand(o: OutcomesOptions, extra: string[]): string {
  const args = ['outreach', 'sequences', 'outcomes', o.file];
  if (o.from) args.push('--from', o.from);
  if (o.sheet) args.push('--sheet', o.sheet);
  if (o.delimiter) args.push('--delimiter', o.delimiter === '\t' ? 'tab' : o.delimiter);
  for (const m of o.map) args.push('--map', m);
  if (o.country !== 'US') args.push('--country', o.country);
  return commandLine([...args, ...extra]);
}
