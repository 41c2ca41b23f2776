// Pass 2 of `sequences batch`: the valid rows in create chunks of 100, at most --concurrency in
// flight. Each chunk is journalled (intent, fsynced) before its request leaves and its result after
// the answer. The first chunk whose fate is not "answered" (unknown, rejected, interrupted) stops the
// run: no chunk starts after it, the chunks already out finish and are journalled, and the rows of
// chunks never sent stay not-sent for --resume. A create is never repeated automatically when its
// fate is unknown; the http core repeats only what the service refused before acting (429/503),
// and every refusal slows the whole run down through the shared pacer.
import type { BatchRow } from '../api/types.js';
import type { HttpClient } from '../api/http.js';
import type { Context } from '../context.js';
import { CliError, UnknownOutcomeError } from '../errors.js';
import { fateOf, type Fate } from '../api/errors.js';
import type { JournalWriter } from '../journal/file.js';
import type { JournalHashing } from '../journal/hashing.js';
import { DEFAULT_CONCURRENCY } from '../util/concurrency.js';
import { tellPacer, type Pacer } from '../util/pacer.js';
import { readChunkAnswer } from './answer.js';
import type { JournalState } from './journal.js';
import type { CheckedRow } from './rows.js';
import { changedFile, rowsOf } from './source.js';
import { addProblem, CHUNK_SIZE, type BatchOptions, type Checks, type Stop } from './types.js';
import { plural } from '../output/plural.js';

export interface CreatePassInput {
  o: BatchOptions;
  definitionId: number;
  check: (line: number, values: readonly string[]) => CheckedRow;
  phones: JournalHashing;
  checks: Checks;
  st: JournalState;
  journal: JournalWriter;
  client: HttpClient;
  nextActivity?: string;
  pacer: Pacer;
}

export interface CreateOutcome {
  stop?: Stop;
  /** Rows whose request left (answered or not). */
  sentRows: number;
}

interface Chunk {
  lines: number[];
  rows: BatchRow[];
  phones: string[];
}

export async function createPass(ctx: Context, p: CreatePassInput): Promise<CreateOutcome> {
  const { o, checks, st, journal, pacer } = p;
  const { postBatch } = await import('../api/sequences.js');
  const concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
  const now = () => ctx.now().toISOString();
  const inFlight = new Set<Promise<void>>();
  let stop: Stop | undefined;
  let failure: { error: unknown } | undefined; // the journal could not be written: nothing more may be sent
  let sentRows = 0;
  let done = 0;

  // The first stop explains the run; an interruption (exit 130) wins over any other.
  const stopWith = (s: Stop) => {
    if (!stop || (s.kind === 'interrupted' && stop.kind !== 'interrupted')) stop = s;
  };

  const send = async (n: number, c: Chunk): Promise<void> => {
    const range = `lines ${c.lines[0]}-${c.lines[c.lines.length - 1]}`;
    let result;
    try {
      result = await postBatch(p.client, p.definitionId, c.rows, {
        validateOnly: false,
        nextActivityDate: p.nextActivity,
        onRetry: tellPacer(pacer, ctx.clock),
      });
    } catch (err) {
      const aborted = ctx.signal.aborted;
      const fate = fateOf(err, { aborted });
      const reason = failureReason(err, fate, aborted);
      const outcome = fate === 'unknown' ? 'unknown' : 'rejected';
      await journal.append({ type: 'result', chunk: n, at: now(), outcome, reason });
      if (outcome === 'unknown') {
        c.lines.forEach((l) => checks.unknown.add(l));
        sentRows += c.lines.length;
      }
      stopWith({
        kind: aborted ? 'interrupted' : outcome,
        reason: `${aborted ? 'Interrupted while sending' : 'Stopped at'} chunk ${n} (${range}): ${reason}`,
        error: err instanceof CliError ? err : undefined,
      });
      return;
    }
    pacer.succeeded();
    const answer = readChunkAnswer(result, c, 'create', checks.numbering);
    for (const problem of answer.problems) addProblem(checks, problem);
    const created = [...answer.created].map(([i, id]) => ({ line: c.lines[i]!, id }));
    const failed = [...answer.invalid].map((i) => c.lines[i]!);
    const unknownLines = answer.unknown.map((i) => c.lines[i]!);
    await journal.append({ type: 'result', chunk: n, at: now(), outcome: 'created', created, failed, unknown: unknownLines });
    for (const x of created) {
      st.created.set(x.line, x.id);
      checks.unknown.delete(x.line);
    }
    for (const l of failed) {
      checks.rejected.add(l);
      checks.unknown.delete(l);
    }
    for (const l of unknownLines) checks.unknown.add(l);
    sentRows += c.lines.length;
    done += c.lines.length;
    progress.update(done);
    if (unknownLines.length) {
      stopWith({
        kind: 'unknown',
        reason:
          `Stopped at chunk ${n} (${range}): the service's answer confirms ${created.length} of its ${plural(c.lines.length, 'row')} created` +
          `${failed.length ? ` and names ${failed.length} as rejected` : ''} but says nothing of the other ${unknownLines.length} ` +
          `(created_count ${result.createdCount ?? 'missing'}, ${result.created ? `${result.created.length} created entries` : 'no list of created rows'})`,
      });
    }
  };

  /** Starts a chunk once a slot is free: journalled before its request leaves. */
  const launch = async (c: Chunk): Promise<void> => {
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (stop || failure) return;
    if (ctx.signal.aborted) return stopWith({ kind: 'interrupted', reason: 'Interrupted' });
    try {
      await pacer.acquire(ctx.signal);
    } catch {
      return stopWith({ kind: 'interrupted', reason: 'Interrupted' });
    }
    if (stop || failure) return; // a chunk out meanwhile failed: nothing more starts
    const n = ++st.lastChunk;
    await journal.append({ type: 'intent', chunk: n, at: now(), lines: c.lines, phones: c.phones });
    const task: Promise<void> = send(n, c)
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  let chunk: Chunk = { lines: [], rows: [], phones: [] };
  const progress = await ctx.io.progress({ label: 'Creating sequences', unit: 'row', verb: 'created', total: checks.toCreate });
  try {
    for await (const { line, values } of rowsOf(o, st.begin?.headers)) {
      if (stop || failure) break;
      if (checks.invalid.has(line) || st.created.has(line) || checks.unknown.has(line)) continue;
      const c = p.check(line, values);
      if (!c.row || !c.phone) throw changedFile(o, line);
      chunk.lines.push(line);
      chunk.rows.push(c.row);
      chunk.phones.push(p.phones.hash(c.phone));
      if (chunk.lines.length === CHUNK_SIZE) {
        const full = chunk;
        chunk = { lines: [], rows: [], phones: [] };
        await launch(full);
      }
    }
    if (chunk.lines.length && !stop && !failure) await launch(chunk);
  } finally {
    // Whatever ends the loop, every request already out is answered and journalled first.
    await Promise.allSettled([...inFlight]);
    while (inFlight.size) await Promise.allSettled([...inFlight]);
    progress.done();
  }
  if (failure) throw failure.error;
  return { stop, sentRows };
}

/** Why a create request failed, in words that match its fate. */
export function failureReason(err: unknown, fate: Fate, aborted: boolean): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (aborted && fate === 'unknown') return 'the request was cut off by the interruption; the service may or may not have created the rows';
  switch (fate) {
    case 'unknown':
      // UnknownOutcomeError already says the service may or may not have acted.
      return err instanceof UnknownOutcomeError ? msg : `${msg.replace(/\.$/, '')}; the service may or may not have created the rows.`;
    case 'refused':
      return `the service refused the chunk before acting (${msg}); nothing of it was created`;
    case 'rejected':
      return `the service rejected the chunk: ${msg}`;
    case 'not-sent':
      return `${msg} (the request did not reach the service)`;
  }
}
