// Pass 1 of `sequences batch`: every row checked locally, then (unless --dry-run) sent in
// validate_only chunks of 100, at most --concurrency in flight, paced with the run's other requests.
// Answers are read in chunk order, so problems and counts do not depend on which answer came first.
import type { BatchRow } from '../api/types.js';
import type { HttpClient } from '../api/http.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import type { JournalHashing } from '../journal/hashing.js';
import { DEFAULT_CONCURRENCY } from '../util/concurrency.js';
import { tellPacer, type Pacer } from '../util/pacer.js';
import { readChunkAnswer } from './answer.js';
import type { JournalState } from './journal.js';
import type { CheckedRow } from './rows.js';
import { changedFile, rowsOf, rowsOfFile } from './source.js';
import type { CsvFile } from '../csv/reader.js';
import { addProblem, CHUNK_SIZE, type BatchOptions, type Checks } from './types.js';

export interface CheckPassInput {
  o: BatchOptions;
  definitionId: number;
  check: (line: number, values: readonly string[]) => CheckedRow;
  phones: JournalHashing;
  /** The earlier run being resumed: its created rows are skipped, its unknown ones held back. */
  state?: JournalState;
  /** No client: local checks only (--dry-run). */
  client?: HttpClient;
  pacer: Pacer;
  /** The file as prepare opened it (header read): read on from there rather than opened again. */
  file?: CsvFile;
}

interface PendingChunk {
  lines: number[];
  rows: BatchRow[];
}

const INTERRUPTED = 'Interrupted while checking the file; nothing was created.';

/** A second line with the same phone number: a warning naming the first line (the row is still valid). */
function duplicatePhone(checks: Checks, c: CheckedRow, first: number | undefined): void {
  if (first === undefined) return;
  checks.duplicatePhones.add(c.line);
  c.problems.push({
    line: c.line,
    field: 'phoneNumber',
    column: c.phoneColumn,
    code: 'duplicate_phone',
    message: `same phone number as line ${first}`,
    severity: 'warning',
    source: 'local',
  });
}

export async function checkPass(ctx: Context, p: CheckPassInput): Promise<Checks> {
  const { o, state, client, pacer } = p;
  const { postBatch } = await import('../api/sequences.js');
  const concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
  const unknown = new Set(o.resendUnknown ? [] : (state?.unknown.keys() ?? []));
  const checks: Checks = { rows: 0, invalid: new Set(), unnamedInvalid: 0, problems: [], seen: new Set(), toCreate: 0, unknown, rejected: new Set(), numbering: {}, duplicatePhones: new Set() };
  const { LineIndex } = await import('../util/lineIndex.js');
  const phoneLines = new LineIndex();
  const inFlight: Array<Promise<{ chunk: PendingChunk; result?: Awaited<ReturnType<typeof postBatch>>; error?: unknown }>> = [];
  let chunk: PendingChunk = { lines: [], rows: [] };

  const settleOldest = async () => {
    const done = await inFlight.shift()!;
    if (done.error !== undefined) {
      if (ctx.signal.aborted) throw new InterruptedError(INTERRUPTED);
      throw done.error;
    }
    pacer.succeeded();
    const answer = readChunkAnswer(done.result!, done.chunk, 'validate', checks.numbering);
    for (const problem of answer.problems) addProblem(checks, problem);
    for (const i of answer.invalid) {
      checks.invalid.add(done.chunk.lines[i]!);
      checks.toCreate--;
    }
    checks.unnamedInvalid += answer.unnamedInvalid;
  };
  const send = async () => {
    const c = chunk;
    chunk = { lines: [], rows: [] };
    if (!client) return;
    if (inFlight.length >= concurrency) await settleOldest();
    try {
      await pacer.acquire(ctx.signal);
    } catch {
      throw new InterruptedError(INTERRUPTED);
    }
    inFlight.push(
      postBatch(client, p.definitionId, c.rows, { validateOnly: true, nextActivityDate: o.nextActivity, onRetry: tellPacer(pacer, ctx.clock) }).then(
        (result) => ({ chunk: c, result }),
        (error: unknown) => ({ chunk: c, error }),
      ),
    );
  };

  const progress = await ctx.io.progress({ label: 'Checking rows', unit: 'row', verb: 'checked', bytes: p.file?.bytes });
  try {
    for await (const { line, values } of p.file ? rowsOfFile(p.file) : rowsOf(o)) {
      if (ctx.signal.aborted) throw new InterruptedError(INTERRUPTED);
      checks.rows++;
      if (state?.created.has(line)) continue; // created by an earlier run
      const c = p.check(line, values);
      const known = state?.phones.get(line);
      if (known !== undefined && (!c.phone || p.phones.hash(c.phone) !== known)) throw changedFile(o, line);
      if (unknown.has(line)) continue; // may have been created: not sent again (unless --resend-unknown)
      if (c.phone) duplicatePhone(checks, c, phoneLines.firstLineOrAdd(c.phone, line));
      for (const problem of c.problems) addProblem(checks, problem);
      if (c.problems.some((x) => x.severity === 'error')) {
        checks.invalid.add(line);
      } else {
        checks.toCreate++;
        chunk.lines.push(line);
        chunk.rows.push(c.row!);
        if (chunk.lines.length === CHUNK_SIZE) await send();
      }
      progress.update(checks.rows);
    }
    if (chunk.lines.length) await send();
    while (inFlight.length) await settleOldest();
  } finally {
    // Leaving early (an error, Ctrl-C): the requests still out end before the run reports.
    await Promise.allSettled(inFlight);
    progress.done();
  }
  // Duplicate problems (a local and a service message for the same field) are both kept: they differ.
  checks.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return checks;
}
