// The bulk run of `eligibility check --csv`: read and check every row, then submit the good ones
// with at most N requests in flight, paced together when the service refuses (429/503).
//
// Nothing is sent twice: a journal beside the input (`<csv>.outreach-eligibility.ndjson`) records
// "sending" before each POST and "accepted" (with the new id) as soon as the service answers, keyed
// by customer_patient_id. A re-run skips accepted rows; a row whose fate is unknown (sent, no
// answer) is looked up on the service by its patient id before it is sent again. A lock file
// (`<csv>.outreach-eligibility.lock`) stops two runs on the same file from submitting at once.
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { EligibilityCheck, EligibilityRequest, EligibilitySubmitted } from '../api/types.js';
import { ApiError, AuthError, NetworkError, UnknownOutcomeError } from '../errors.js';
import type { Clock } from './backoff.js';
import { Pacer } from './pacer.js';
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
  /** Sent but no answer recorded: when it was sent. */
  sending: Map<string, string>;
}

export async function readJournal(path: string): Promise<JournalState> {
  const state: JournalState = { accepted: new Map(), sending: new Map() };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw err;
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let e: { event?: string; key?: string; id?: number; status?: string; created_at?: string; at?: string };
    try {
      e = JSON.parse(line);
    } catch {
      continue; // a line cut off by a crash: the row's "sending" entry (if any) still stands
    }
    if (typeof e.key !== 'string') continue;
    if (e.event === 'sending') {
      if (!state.accepted.has(e.key)) state.sending.set(e.key, e.at ?? new Date(0).toISOString());
    } else if (e.event === 'accepted' && typeof e.id === 'number') {
      state.accepted.set(e.key, { id: e.id, status: e.status, created_at: e.created_at });
      state.sending.delete(e.key);
    } else if (e.event === 'not-created') {
      state.sending.delete(e.key);
    }
  }
  return state;
}

export class Journal {
  private constructor(private readonly fd: number) {}
  static async open(path: string): Promise<Journal> {
    return new Journal(openSync(path, 'a', 0o600));
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
}

export interface SubmitSummary {
  /** A failure that stopped the run (auth, service unreachable); remaining rows are not-sent. */
  fatal?: unknown;
  interrupted: boolean;
  throttled: number;
}

/** Looks up rows whose fate was unknown in an earlier run; found ones are recorded as accepted. */
export async function resolveUnknown(rows: BulkRow[], deps: SubmitDeps): Promise<void> {
  for (const row of rows) {
    const sentAt = deps.state.sending.get(row.key);
    if (sentAt === undefined || deps.state.accepted.has(row.key)) continue;
    const since = Date.parse(sentAt) - 10 * 60_000;
    const found = (await deps.lookup(row.key))
      .filter((c) => c.customer_patient_id === undefined || c.customer_patient_id === row.key)
      .filter((c) => !c.created_at || Number.isNaN(since) || Date.parse(c.created_at) >= since)
      .sort((a, b) => Number(a.id) - Number(b.id));
    const check = found[0];
    if (check) {
      deps.state.accepted.set(row.key, { id: check.id, status: check.status, created_at: check.created_at });
      await deps.journal.append({ event: 'accepted', key: row.key, id: check.id, status: check.status, created_at: check.created_at, found_by: 'lookup' });
    } else {
      await deps.journal.append({ event: 'not-created', key: row.key, at: new Date(deps.clock.now()).toISOString() });
    }
    deps.state.sending.delete(row.key);
  }
}

/** Submits the valid rows not yet accepted; fills in each row's result. */
export async function submitRows(rows: BulkRow[], deps: SubmitDeps): Promise<SubmitSummary> {
  const pacer = deps.pacer ?? new Pacer(deps.clock);
  const maxRefusals = deps.maxRefusals ?? 20;
  const summary: SubmitSummary = { interrupted: false, throttled: 0 };
  let stop = false;
  const queue: BulkRow[] = [];
  for (const row of rows) {
    if (row.result === 'invalid') continue;
    const prior = deps.state.accepted.get(row.key);
    if (prior) {
      row.result = 'already-submitted';
      row.id = prior.id;
      row.status = prior.status;
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
      for (let attempt = 1; ; attempt++) {
        try {
          await pacer.acquire(deps.signal);
        } catch {
          summary.interrupted = true;
          stop = true;
          row.result = 'not-sent';
          break;
        }
        await deps.journal.append({ event: 'sending', key: row.key, line: row.line, at: new Date(deps.clock.now()).toISOString() });
        try {
          const s = await deps.submit(body);
          pacer.succeeded();
          row.result = 'accepted';
          row.id = s.id;
          row.status = s.status;
          deps.state.accepted.set(row.key, { id: s.id, status: s.status, created_at: s.created_at });
          await deps.journal.append({ event: 'accepted', key: row.key, id: s.id, status: s.status, created_at: s.created_at });
          break;
        } catch (err) {
          if (deps.signal?.aborted) {
            // Aborted in flight: the service may have acted; a re-run looks it up first.
            summary.interrupted = true;
            stop = true;
            row.result = 'unknown';
            row.error = 'interrupted while the request was in flight';
            break;
          }
          if (err instanceof ApiError && (err.status === 429 || err.status === 503)) {
            // Refused before acting: safe to send again, after slowing everyone down.
            pacer.refused();
            summary.throttled++;
            if (attempt < maxRefusals) continue;
            row.result = 'not-sent';
            row.error = `the service kept refusing (${err.status}) after ${attempt} attempts`;
            await deps.journal.append({ event: 'not-created', key: row.key, at: new Date(deps.clock.now()).toISOString() });
            break;
          }
          if (err instanceof ApiError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 403) {
            row.result = 'rejected';
            row.error = err.message;
            await deps.journal.append({ event: 'not-created', key: row.key, at: new Date(deps.clock.now()).toISOString() });
            break;
          }
          if (err instanceof AuthError || (err instanceof ApiError && (err.status === 401 || err.status === 403))) {
            row.result = 'not-sent';
            row.error = err.message;
            await deps.journal.append({ event: 'not-created', key: row.key, at: new Date(deps.clock.now()).toISOString() });
            summary.fatal ??= err;
            stop = true;
            break;
          }
          if (err instanceof NetworkError && !(err instanceof UnknownOutcomeError)) {
            // Never reached the service.
            row.result = 'not-sent';
            row.error = err.message;
            await deps.journal.append({ event: 'not-created', key: row.key, at: new Date(deps.clock.now()).toISOString() });
            summary.fatal ??= err;
            stop = true;
            break;
          }
          // Timeout or connection lost after sending, or a 5xx: the service may have created it.
          row.result = 'unknown';
          row.error = (err as Error)?.message ?? String(err);
          break;
        }
      }
      deps.onSettled?.(row);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.concurrency, queue.length)) }, worker));
  for (const row of queue) if (!row.result) row.result = 'not-sent';
  if (deps.signal?.aborted) summary.interrupted = true;
  return summary;
}
