// The submission of `eligibility check --csv` rows: at most N requests in flight, paced together
// when the service refuses (429/503), rows pulled one by one from a stream (memory stays flat).
//
// Nothing is sent twice: the journal (bulkJournal.ts) records "sending" before each POST and what
// its answer meant as soon as it comes, keyed by a hash of customer_patient_id. What a failure
// means is decided by `fateOf` (src/api/errors.ts), as for every write: refused, rejected or never
// sent → nothing was created and a re-run sends the row again; unknown (a 5xx — a gateway's 502
// included —, a timeout or a lost connection after sending, an answer without an id) → the row
// stays unknown. A re-run looks an unknown row up on the service by its patient id and settles it
// only with proof (a check for that patient created since it was sent); otherwise it is never sent
// again automatically (`--resend-unknown` does, once a person has checked).
import type { EligibilityCheck, EligibilityRequest, EligibilitySubmitted } from '../api/types.js';
import { fateOf } from '../api/errors.js';
import { readInt } from '../api/read.js';
import { ApiError, AuthError, IncompleteError } from '../errors.js';
import type { JournalRecord } from '../journal/file.js';
import type { Clock } from '../util/clock.js';
import type { LineIndex } from '../util/lineIndex.js';
import { Pacer } from '../util/pacer.js';
import { plural } from '../output/plural.js';
import type { JournalState } from './bulkJournal.js';
import type { CheckResult } from './verdict.js';
import { buildRequest, checkFields, FIELDS, type CheckFields, type FieldName } from './request.js';

export type RowResult = 'accepted' | 'already-submitted' | 'invalid' | 'rejected' | 'unknown' | 'not-sent';

export interface BulkRow {
  line: number;
  key: string;
  fields: CheckFields;
  /** The row as read, for a results file that gives it back (--out); dropped once written. */
  values?: readonly string[];
  /** With --wait: what its check came to. */
  check?: CheckResult;
  problems: Array<{ field: FieldName; message: string }>;
  result?: RowResult;
  id?: number;
  status?: string;
  outcome?: string;
  active_today?: boolean;
  error?: string;
}

export const RESULT_COLUMNS = ['line', 'customer_patient_id', 'result', 'id', 'status', 'outcome', 'active_today', 'error'] as const;

export function resultRecord(r: BulkRow): Record<string, unknown> {
  return {
    line: r.line,
    customer_patient_id: r.key || null,
    result: r.result ?? 'not-sent',
    id: r.id ?? null,
    status: r.status ?? null,
    outcome: r.outcome ?? null,
    active_today: r.active_today ?? null,
    error: r.error ?? null,
  };
}

// ---------- reading rows ----------

/** Turns a CSV record into checked fields; duplicates of a patient id within the file are problems. */
export function checkRow(
  line: number,
  values: readonly string[],
  mapping: ReadonlyArray<{ index: number; field: string }>,
  today: Date,
  seen: LineIndex,
): BulkRow {
  const raw: CheckFields = {};
  for (const m of mapping) raw[m.field as FieldName] = values[m.index] ?? '';
  const r = checkFields(raw, today, { requirePatientId: true, looseDates: true });
  const key = (raw.customerPatientId ?? '').trim();
  const row: BulkRow = { line, key, fields: r.ok ? r.fields : raw, problems: r.ok ? [] : r.problems };
  if (key) {
    const first = seen.firstLineOrAdd(key, line);
    if (first !== undefined) row.problems.push({ field: 'customerPatientId', message: `same patient id as line ${first}` });
  }
  if (row.problems.length > 0) {
    row.result = 'invalid';
    row.error = row.problems.map((p) => `${FIELDS[p.field].path} ${p.message}`).join('; ');
  }
  return row;
}

// ---------- submitting ----------

export interface SubmitDeps {
  submit(body: EligibilityRequest): Promise<EligibilitySubmitted>;
  lookup(patientId: string): Promise<EligibilityCheck[]>;
  clock: Clock;
  signal?: AbortSignal;
  journal: { append(record: JournalRecord, opts?: { sync?: boolean }): Promise<void> };
  state: JournalState;
  /** The journal key of a patient id (a keyed hash); the id itself when absent (tests). */
  keyOf?: (patientId: string) => string;
  /** Look rows left unknown by an earlier run up on the service before deciding (see resolveUnknown). */
  lookUpUnknown?: boolean;
  concurrency: number;
  webhook?: { url?: string; secret?: string };
  /** Called once for every row (invalid ones included) when its result is final, in any order. */
  onSettled?: (row: BulkRow) => void | Promise<void>;
  pacer?: Pacer;
  /** Attempts per row while the service keeps refusing (429/503). */
  maxRefusals?: number;
  /** Send rows whose earlier fate is unknown again (a person has checked): --resend-unknown. */
  resendUnknown?: boolean;
}

export interface SubmitSummary {
  /** A failure that stopped the run (auth, service unreachable); remaining rows are not-sent. */
  fatal?: unknown;
  interrupted: boolean;
  throttled: number;
}

/** Unknown fates in a row after which a bulk run stops sending. */
const MAX_UNKNOWN_IN_A_ROW = 3;

/** How far a check's created_at may be before the time we sent it (the two clocks differ). */
const CLOCK_SKEW_MS = 10 * 60_000;

/**
 * Looks up one row whose fate was unknown in an earlier run. A check for the same patient id created
 * since the row was sent is proof: the row is recorded as accepted. Without proof (none found, or
 * the records lack customer_patient_id or created_at) the row stays unknown.
 */
async function resolveOne(row: BulkRow, deps: SubmitDeps): Promise<void> {
  const key = keyOf(deps, row);
  const prior = deps.state.unknown.get(key);
  if (prior === undefined || deps.state.accepted.has(key)) return;
  const since = Date.parse(prior.at) - CLOCK_SKEW_MS;
  const found = (await deps.lookup(row.key))
    .map((c) => ({ c, id: readInt(c.id) }))
    .filter(({ c, id }) => id !== undefined && c.customer_patient_id === row.key)
    .filter(({ c }) => typeof c.created_at === 'string' && !Number.isNaN(since) && Date.parse(c.created_at) >= since)
    .sort((a, b) => a.id! - b.id!);
  const first = found[0];
  if (!first) return;
  const { c: check, id } = first;
  deps.state.accepted.set(key, { id: id!, status: check.status, created_at: check.created_at });
  deps.state.unknown.delete(key);
  await deps.journal.append({ type: 'accepted', key, id, status: check.status, created_at: check.created_at, found_by: 'lookup', at: isoNow(deps) });
}

/** Looks up every row of `rows` left unknown by an earlier run (see resolveOne). */
export async function resolveUnknown(rows: BulkRow[], deps: SubmitDeps): Promise<void> {
  for (const row of rows) if (row.result !== 'invalid') await resolveOne(row, deps);
}

function keyOf(deps: SubmitDeps, row: BulkRow): string {
  return deps.keyOf ? deps.keyOf(row.key) : row.key;
}

function isoNow(deps: SubmitDeps): string {
  return new Date(deps.clock.now()).toISOString();
}

function isAuthFailure(err: unknown): boolean {
  return err instanceof AuthError || (err instanceof ApiError && (err.status === 401 || err.status === 403));
}

/**
 * Submits the valid rows not yet accepted, pulled one at a time from `rows` by `concurrency`
 * workers; fills in each row's result and hands every row (invalid ones too) to `onSettled`. Once
 * the run stops (auth failure, unreachable service, unknown fates in a row, Ctrl-C) the remaining
 * rows are still read and settled as not sent, so every row of the file gets a result.
 */
export async function submitRows(rows: Iterable<BulkRow> | AsyncIterable<BulkRow>, deps: SubmitDeps): Promise<SubmitSummary> {
  const pacer = deps.pacer ?? new Pacer(deps.clock);
  const maxRefusals = deps.maxRefusals ?? 20;
  const summary: SubmitSummary = { interrupted: false, throttled: 0 };
  let stop = false;
  let unknownInARow = 0;
  const source: AsyncIterator<BulkRow> | Iterator<BulkRow> =
    Symbol.asyncIterator in rows ? (rows as AsyncIterable<BulkRow>)[Symbol.asyncIterator]() : (rows as Iterable<BulkRow>)[Symbol.iterator]();
  let exhausted = false;
  // Workers share one reader: calls are serialised so each row is read exactly once, in file order.
  let reading: Promise<unknown> = Promise.resolve();
  const nextRow = (): Promise<BulkRow | undefined> => {
    const got = reading.then(async () => {
      if (exhausted) return undefined;
      const r = await source.next();
      if (r.done) exhausted = true;
      return r.done ? undefined : r.value;
    });
    reading = got.catch(() => undefined);
    return got;
  };

  /** What becomes of one row before any request: settled now, or to be sent. */
  const decide = async (row: BulkRow): Promise<'send' | 'settled'> => {
    if (row.result === 'invalid') return 'settled';
    const key = keyOf(deps, row);
    if (deps.lookUpUnknown && deps.state.unknown.has(key) && !stop) await resolveOne(row, deps);
    const prior = deps.state.accepted.get(key);
    const unknown = deps.state.unknown.get(key);
    if (prior) {
      row.result = 'already-submitted';
      row.id = prior.id;
      row.status = prior.status;
      return 'settled';
    }
    if (unknown && !deps.resendUnknown) {
      // Never sent again by itself: it may exist already.
      row.result = 'unknown';
      row.error =
        `sent at ${unknown.at}${unknown.reason ? `, answered: ${unknown.reason}` : ' with no answer'}; the service may or may not have ` +
        `created the check and its records show none for this patient since; not sent again (check, then use --resend-unknown)`;
      return 'settled';
    }
    if (stop || deps.signal?.aborted) {
      if (deps.signal?.aborted) summary.interrupted = true;
      row.result = unknown ? 'unknown' : 'not-sent';
      return 'settled';
    }
    return 'send';
  };

  const send = async (row: BulkRow): Promise<void> => {
    const key = keyOf(deps, row);
    const body = buildRequest(row.fields, deps.webhook);
    const resend = deps.state.unknown.has(key);
    for (let attempt = 1; ; attempt++) {
      try {
        await pacer.acquire(deps.signal);
      } catch {
        summary.interrupted = true;
        stop = true;
        row.result = resend ? 'unknown' : 'not-sent';
        return;
      }
      const at = isoNow(deps);
      await deps.journal.append({ type: 'sending', key, line: row.line, at, ...(resend ? { resend: true } : {}) });
      try {
        const s = await deps.submit(body);
        pacer.succeeded();
        row.result = 'accepted';
        unknownInARow = 0;
        row.id = s.id;
        row.status = s.status;
        row.error = undefined;
        // Not kept in memory (the file's patient ids are unique, `seen` sees to that): the state
        // holds only what earlier runs left, so memory stays flat over a million rows.
        deps.state.unknown.delete(key);
        // The answer is on disk with the next row's intent: if a power cut lost it, the row would
        // read as unknown and a re-run would find its check on the service.
        await deps.journal.append({ type: 'accepted', key, id: s.id, status: s.status, created_at: s.created_at, at: isoNow(deps) }, { sync: false });
        return;
      } catch (err) {
        const aborted = Boolean(deps.signal?.aborted);
        if (aborted) {
          summary.interrupted = true;
          stop = true;
        }
        const message = (err as Error)?.message ?? String(err);
        const notCreated = async () => {
          // A resent row's earlier attempt stays unknown: this answer says nothing about it.
          if (resend) return;
          deps.state.unknown.delete(key);
          await deps.journal.append({ type: 'not-created', key, at: isoNow(deps) });
        };
        if (isAuthFailure(err)) {
          row.result = 'not-sent';
          row.error = message;
          await notCreated();
          summary.fatal ??= err;
          stop = true;
          return;
        }
        const fate = fateOf(err, { aborted });
        if (fate === 'refused') {
          // Refused before acting: safe to send again, after slowing everyone down for as long as
          // the service asked (Retry-After).
          pacer.refused(err instanceof ApiError ? err.retryAfterMs : undefined);
          summary.throttled++;
          await notCreated();
          if (attempt < maxRefusals && !aborted) continue;
          row.result = 'not-sent';
          row.error = `the service refused it ${plural(attempt, 'time')} before acting (last: ${message}); nothing was created and a re-run sends it`;
          return;
        }
        if (fate === 'rejected') {
          row.result = 'rejected';
          row.error = message;
          await notCreated();
          return;
        }
        if (fate === 'not-sent') {
          row.result = 'not-sent';
          row.error = message;
          await notCreated();
          if (!aborted) summary.fatal ??= err;
          stop = true;
          return;
        }
        // Unknown: a 5xx, a timeout or a lost connection after sending, an answer without an id,
        // Ctrl-C while in flight. The service may have created it.
        const reason = aborted ? 'interrupted while the request was in flight' : message;
        row.result = 'unknown';
        row.error = `the service may or may not have created the check: ${reason}`;
        deps.state.unknown.set(key, { at: deps.state.unknown.get(key)?.at ?? at, reason });
        await deps.journal.append({ type: 'unknown', key, at: isoNow(deps), reason });
        // A service failing request after request would turn every row unknown, each to be checked
        // by hand: after a few in a row, stop sending (the rest stay not-sent, a re-run sends them).
        if (!aborted && ++unknownInARow >= MAX_UNKNOWN_IN_A_ROW && !stop) {
          stop = true;
          summary.fatal ??= new IncompleteError(
            `Stopped sending after ${unknownInARow} submissions in a row whose fate is unknown (last: ${message}); the service seems to be failing.`,
          );
        }
        return;
      }
    }
  };

  const worker = async () => {
    try {
      for (let row = await nextRow(); row; row = await nextRow()) {
        if ((await decide(row)) === 'send') await send(row);
        await deps.onSettled?.(row);
      }
    } catch (err) {
      stop = true; // the journal or the results cannot be written: the other workers send nothing more
      throw err;
    }
  };
  // Every worker ends before the run does (none may append to a journal the caller then closes).
  const ended = await Promise.allSettled(Array.from({ length: Math.max(1, deps.concurrency) }, worker));
  const failed = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failed) throw failed.reason;
  if (deps.signal?.aborted) summary.interrupted = true;
  return summary;
}
