// The bulk run of `eligibility check --csv`: read and check every row, then submit the good ones
// with at most N requests in flight, paced together when the service refuses (429/503).
//
// Nothing is sent twice: a journal beside the input (`<csv>.outreach-eligibility.ndjson`) records
// "sending" before each POST and what its answer meant as soon as it comes, keyed by
// customer_patient_id. What a failure means is decided by `fateOf` (src/api/errors.ts), as for every
// write: refused, rejected or never sent → nothing was created and a re-run sends the row again;
// unknown (a 5xx — a gateway's 502 included —, a timeout or a lost connection after sending, an
// answer without an id) → the row stays unknown. A re-run looks an unknown row up on the service by
// its patient id and settles it only with proof (a check for that patient created since it was
// sent); otherwise it is never sent again automatically (`--resend-unknown` does, once a person has
// checked). A lock file (`<csv>.outreach-eligibility.lock`) stops two runs on the same file at once.
import { closeSync, fsyncSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { EligibilityCheck, EligibilityRequest, EligibilitySubmitted } from '../api/types.js';
import { fateOf } from '../api/errors.js';
import { readInt } from '../api/read.js';
import { ApiError, AuthError, IncompleteError } from '../errors.js';
import { openAppendOnlySync } from '../util/files.js';
import type { Clock } from './backoff.js';
import { Pacer } from '../util/pacer.js';
import { buildRequest, checkFields, FIELDS, type CheckFields, type FieldName } from './request.js';

export type RowResult = 'accepted' | 'already-submitted' | 'invalid' | 'rejected' | 'unknown' | 'not-sent';

export interface BulkRow {
  line: number;
  key: string;
  fields: CheckFields;
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

export function journalPath(csvPath: string): string {
  return `${csvPath}.outreach-eligibility.ndjson`;
}
export function lockPath(csvPath: string): string {
  return `${csvPath}.outreach-eligibility.lock`;
}

// ---------- journal ----------

export interface JournalState {
  accepted: Map<string, { id: number; status?: string; created_at?: string }>;
  /** Sent, and nothing yet says whether a check was created: when it was (last) sent, and why unknown. */
  unknown: Map<string, { at: string; reason?: string }>;
}

export async function readJournal(path: string): Promise<JournalState> {
  const state: JournalState = { accepted: new Map(), unknown: new Map() };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw err;
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let e: { event?: string; key?: string; id?: number; status?: string; created_at?: string; at?: string; reason?: string };
    try {
      e = JSON.parse(line);
    } catch {
      continue; // a line cut off by a crash: the row's "sending" entry (if any) still stands
    }
    if (typeof e.key !== 'string') continue;
    if (e.event === 'sending') {
      // A "sending" with no answer after it (a crash, Ctrl-C) is unknown too.
      // A resend keeps the first time it was sent: a check created by that attempt is proof too.
      if (!state.accepted.has(e.key)) state.unknown.set(e.key, { at: state.unknown.get(e.key)?.at ?? e.at ?? new Date(0).toISOString() });
    } else if (e.event === 'unknown') {
      const prior = state.unknown.get(e.key);
      if (!state.accepted.has(e.key)) state.unknown.set(e.key, { at: prior?.at ?? e.at ?? new Date(0).toISOString(), reason: e.reason });
    } else if (e.event === 'accepted' && typeof e.id === 'number') {
      state.accepted.set(e.key, { id: e.id, status: e.status, created_at: e.created_at });
      state.unknown.delete(e.key);
    } else if (e.event === 'not-created') {
      state.unknown.delete(e.key);
    }
  }
  return state;
}

export class Journal {
  private constructor(private readonly fd: number) {}
  /**
   * Opens (creates, 0600) the journal for appending. A symlink (dangling too), a FIFO, a device or
   * any other non-regular file at the path is refused with exit 2: nothing is appended to it.
   */
  static async open(path: string): Promise<Journal> {
    return new Journal(openAppendOnlySync(path));
  }
  /**
   * One line, written synchronously (O_APPEND): it is in the file before the request it announces
   * leaves, and a small synchronous write is cheaper than a thread-pool round trip.
   */
  async append(entry: Record<string, unknown>): Promise<void> {
    writeSync(this.fd, JSON.stringify(entry) + '\n');
  }
  async close(): Promise<void> {
    try {
      fsyncSync(this.fd);
    } catch {
      /* best effort */
    }
    closeSync(this.fd);
  }
}

// ---------- reading rows ----------

/** Turns a CSV record into checked fields; duplicates of a patient id within the file are problems. */
export function checkRow(
  line: number,
  values: readonly string[],
  mapping: ReadonlyArray<{ index: number; field: string }>,
  today: Date,
  seen: Map<string, number>,
): BulkRow {
  const raw: CheckFields = {};
  for (const m of mapping) raw[m.field as FieldName] = values[m.index] ?? '';
  const r = checkFields(raw, today, { requirePatientId: true, looseDates: true });
  const key = (raw.customerPatientId ?? '').trim();
  const row: BulkRow = { line, key, fields: r.ok ? r.fields : raw, problems: r.ok ? [] : r.problems };
  if (key) {
    const first = seen.get(key);
    if (first !== undefined) row.problems.push({ field: 'customerPatientId', message: `repeats the patient id of line ${first}` });
    else seen.set(key, line);
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
  journal: Journal;
  state: JournalState;
  concurrency: number;
  webhook?: { url?: string; secret?: string };
  /** Called after each row settles. */
  onSettled?: (row: BulkRow) => void;
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
 * Looks up rows whose fate was unknown in an earlier run. A check for the same patient id created
 * since the row was sent is proof: the row is recorded as accepted. Without proof (none found, or
 * the records lack customer_patient_id or created_at) the row stays unknown.
 */
export async function resolveUnknown(rows: BulkRow[], deps: SubmitDeps): Promise<void> {
  for (const row of rows) {
    const prior = deps.state.unknown.get(row.key);
    if (prior === undefined || deps.state.accepted.has(row.key)) continue;
    const since = Date.parse(prior.at) - CLOCK_SKEW_MS;
    const found = (await deps.lookup(row.key))
      .map((c) => ({ c, id: readInt(c.id) }))
      .filter(({ c, id }) => id !== undefined && c.customer_patient_id === row.key)
      .filter(({ c }) => typeof c.created_at === 'string' && !Number.isNaN(since) && Date.parse(c.created_at) >= since)
      .sort((a, b) => a.id! - b.id!);
    const first = found[0];
    if (!first) continue;
    const { c: check, id } = first;
    deps.state.accepted.set(row.key, { id: id!, status: check.status, created_at: check.created_at });
    deps.state.unknown.delete(row.key);
    await deps.journal.append({ event: 'accepted', key: row.key, id, status: check.status, created_at: check.created_at, found_by: 'lookup' });
  }
}

function isAuthFailure(err: unknown): boolean {
  return err instanceof AuthError || (err instanceof ApiError && (err.status === 401 || err.status === 403));
}

/** Submits the valid rows not yet accepted; fills in each row's result. */
export async function submitRows(rows: BulkRow[], deps: SubmitDeps): Promise<SubmitSummary> {
  const pacer = deps.pacer ?? new Pacer(deps.clock);
  const maxRefusals = deps.maxRefusals ?? 20;
  const summary: SubmitSummary = { interrupted: false, throttled: 0 };
  let stop = false;
  let unknownInARow = 0;
  const queue: BulkRow[] = [];
  for (const row of rows) {
    if (row.result === 'invalid') continue;
    const prior = deps.state.accepted.get(row.key);
    const unknown = deps.state.unknown.get(row.key);
    if (prior) {
      row.result = 'already-submitted';
      row.id = prior.id;
      row.status = prior.status;
      deps.onSettled?.(row);
    } else if (unknown && !deps.resendUnknown) {
      // Never sent again by itself: it may exist already.
      row.result = 'unknown';
      row.error =
        `sent at ${unknown.at}${unknown.reason ? `, answered: ${unknown.reason}` : ' with no answer'}; the service may or may not have ` +
        `created the check and its records show none for this patient since; not sent again (check, then use --resend-unknown)`;
      deps.onSettled?.(row);
    } else queue.push(row);
  }
  let next = 0;
  const worker = async () => {
    while (!stop && next < queue.length) {
      if (deps.signal?.aborted) {
        summary.interrupted = true;
        stop = true;
        break;
      }
      const row = queue[next++]!;
      const body = buildRequest(row.fields, deps.webhook);
      const resend = deps.state.unknown.has(row.key);
      for (let attempt = 1; ; attempt++) {
        try {
          await pacer.acquire(deps.signal);
        } catch {
          summary.interrupted = true;
          stop = true;
          row.result = resend ? 'unknown' : 'not-sent';
          break;
        }
        const at = new Date(deps.clock.now()).toISOString();
        await deps.journal.append({ event: 'sending', key: row.key, line: row.line, at, ...(resend ? { resend: true } : {}) });
        try {
          const s = await deps.submit(body);
          pacer.succeeded();
          row.result = 'accepted';
            unknownInARow = 0;
          row.id = s.id;
          row.status = s.status;
          row.error = undefined;
          deps.state.accepted.set(row.key, { id: s.id, status: s.status, created_at: s.created_at });
          deps.state.unknown.delete(row.key);
          await deps.journal.append({ event: 'accepted', key: row.key, id: s.id, status: s.status, created_at: s.created_at });
          break;
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
            deps.state.unknown.delete(row.key);
            await deps.journal.append({ event: 'not-created', key: row.key, at: new Date(deps.clock.now()).toISOString() });
          };
          if (isAuthFailure(err)) {
            row.result = 'not-sent';
            row.error = message;
            await notCreated();
            summary.fatal ??= err;
            stop = true;
            break;
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
            row.error = `the service refused it ${attempt} time(s) before acting (last: ${message}); nothing was created and a re-run sends it`;
            break;
          }
          if (fate === 'rejected') {
            row.result = 'rejected';
            row.error = message;
            await notCreated();
            break;
          }
          if (fate === 'not-sent') {
            row.result = 'not-sent';
            row.error = message;
            await notCreated();
            if (!aborted) summary.fatal ??= err;
            stop = true;
            break;
          }
          // Unknown: a 5xx, a timeout or a lost connection after sending, an answer without an id,
          // Ctrl-C while in flight. The service may have created it.
          const reason = aborted ? 'interrupted while the request was in flight' : message;
          row.result = 'unknown';
          row.error = `the service may or may not have created the check: ${reason}`;
          deps.state.unknown.set(row.key, { at: deps.state.unknown.get(row.key)?.at ?? at, reason });
          await deps.journal.append({ event: 'unknown', key: row.key, at: new Date(deps.clock.now()).toISOString(), reason });
          // A service failing request after request would turn every row unknown, each to be checked
          // by hand: after a few in a row, stop sending (the rest stay not-sent, a re-run sends them).
          if (!aborted && ++unknownInARow >= MAX_UNKNOWN_IN_A_ROW && !stop) {
            stop = true;
            summary.fatal ??= new IncompleteError(
              `Stopped sending after ${unknownInARow} submissions in a row whose fate is unknown (last: ${message}); the service seems to be failing.`,
            );
          }
          break;
        }
      }
      deps.onSettled?.(row);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.concurrency, queue.length)) }, worker));
  for (const row of queue) if (!row.result) row.result = deps.state.unknown.has(row.key) ? 'unknown' : 'not-sent';
  if (deps.signal?.aborted) summary.interrupted = true;
  return summary;
}
