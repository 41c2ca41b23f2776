// The journal of `eligibility check --csv` (`<file>.outreach-eligibility.ndjson`), on the journal
// engine (src/journal/file.ts: each record fsynced, one damage rule, one lock). Per row, keyed by a
// keyed hash of its customer_patient_id (src/journal/hashing.ts: the journal alone does not reveal
// the ids): `sending` before the POST, then `accepted` (with the check id), `not-created` (refused,
// rejected, never sent) or `unknown` (the service may have created it).
//
// Version 1 journals (written before the engine: no begin record, patient ids in clear, lines
// `{"event": ...}`) are read with their own rule (a damaged line was skipped) and rewritten at once
// as version 2, so the ids in clear leave the disk and the run continues where it stopped.
import { basename } from 'node:path';
import type { Context } from '../context.js';
import { checkHeader, JournalWriter, parseLine, readJournalText, recordsOf, type JournalRecord } from '../journal/file.js';
import { journalHashing, type HashParams, type JournalHashing } from '../journal/hashing.js';

export const BULK_JOURNAL_VERSION = 2;

export function journalPath(csvPath: string): string {
  return `${csvPath}.outreach-eligibility.ndjson`;
}

export interface BulkBegin extends HashParams {
  type: 'begin';
  kind: 'eligibility-bulk';
  v: number;
  at: string;
  csv: string;
  /** The run's per-request timeout: a resume waits this long (+5 s) before trusting absence. */
  request_timeout_s?: number;
}

export interface JournalState {
  /** Journal key (hashed patient id) → the check the service created. */
  accepted: Map<string, { id: number; status?: string; created_at?: string }>;
  /** Sent, and nothing yet says whether a check was created: when it was (first) sent, and why unknown. */
  unknown: Map<string, { at: string; reason?: string }>;
  /** When the last request of the earlier runs was sent (the quiet period starts there). */
  lastSentAt?: number;
  requestTimeoutS?: number;
}

/** Replays the row records (pure). A resend keeps the first time the row was sent: a check created by that attempt is proof too. */
export function replay(records: Iterable<JournalRecord>): JournalState {
  const state: JournalState = { accepted: new Map(), unknown: new Map() };
  const epoch = new Date(0).toISOString();
  for (const r of records) {
    if (r.type === 'begin') state.requestTimeoutS = typeof r.request_timeout_s === 'number' ? r.request_timeout_s : undefined;
    const key = r.key;
    if (typeof key !== 'string') continue;
    const at = typeof r.at === 'string' ? r.at : epoch;
    if (r.type === 'sending') {
      state.lastSentAt = Math.max(state.lastSentAt ?? 0, Date.parse(at) || 0);
      // A "sending" with no answer after it (a crash, Ctrl-C) is unknown too.
      if (!state.accepted.has(key)) state.unknown.set(key, { at: state.unknown.get(key)?.at ?? at });
    } else if (r.type === 'unknown') {
      if (!state.accepted.has(key)) state.unknown.set(key, { at: state.unknown.get(key)?.at ?? at, reason: typeof r.reason === 'string' ? r.reason : undefined });
    } else if (r.type === 'accepted' && typeof r.id === 'number') {
      state.accepted.set(key, { id: r.id, status: r.status as string | undefined, created_at: r.created_at as string | undefined });
      state.unknown.delete(key);
    } else if (r.type === 'not-created') {
      state.unknown.delete(key);
    }
  }
  return state;
}

/** An open bulk journal: the engine's writer plus the key of each row. */
export interface BulkJournal {
  state: JournalState;
  /** The journal key of a customer_patient_id. */
  keyOf(patientId: string): string;
  append(record: JournalRecord, opts?: { sync?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the journal of `csvPath` for a run (read, replayed, appended to); a new journal starts with
 * its begin record, an old-format one is rewritten first. Call with the journal's lock held.
 */
export async function openBulkJournal(ctx: Context, csvPath: string): Promise<BulkJournal> {
  const path = journalPath(csvPath);
  const { configDir } = await import('../config/profiles.js');
  // Read once: the old format is told apart from the current one by its first line.
  const text = await readJournalText(path);
  const legacy = text === undefined ? undefined : legacyRecords(text);
  let state: JournalState;
  let hashing: JournalHashing;
  let fresh = false; // no journal yet: it starts with its begin record
  if (legacy) {
    hashing = journalHashing(undefined, configDir(ctx.env), path);
    state = await rewriteLegacy(ctx, path, csvPath, legacy, hashing);
  } else {
    const records = text === undefined ? undefined : recordsOf(path, text);
    if (records?.length) {
      const begin = checkHeader(path, records, 'eligibility-bulk', [BULK_JOURNAL_VERSION]) as unknown as BulkBegin;
      hashing = journalHashing(begin, configDir(ctx.env), path);
      state = replay(records);
    } else {
      hashing = journalHashing(undefined, configDir(ctx.env), path);
      state = replay([]);
      fresh = true;
    }
  }
  const writer = await JournalWriter.open(path);
  if (fresh) await writer.append(beginRecord(ctx, csvPath, hashing));
  else await writer.append({ type: 'resume', at: ctx.now().toISOString() });
  return { state, keyOf: (id) => hashing.hash(id), append: (r, opts) => writer.append(r, opts), close: () => writer.close() };
}

function beginRecord(ctx: Context, csvPath: string, hashing: JournalHashing): BulkBegin {
  return {
    type: 'begin',
    kind: 'eligibility-bulk',
    v: BULK_JOURNAL_VERSION,
    at: ctx.now().toISOString(),
    csv: basename(csvPath),
    ...hashing.params(),
    request_timeout_s: ctx.globals.requestTimeoutSec,
  };
}

/** The records of a version 1 journal (no begin record, `event` lines), or undefined when it is not one. */
function legacyRecords(text: string): JournalRecord[] | undefined {
  const lines = text.split('\n').filter((l) => l.trim());
  const first = lines.length ? parseLine(lines[0]!) : undefined;
  if (!first || typeof first.event !== 'string' || 'type' in first) return undefined;
  // Version 1's own rule: a line it cannot read (cut off by a crash) is skipped.
  return lines.flatMap((l) => {
    const e = parseLine(l);
    return e && typeof e.event === 'string' ? [{ ...e, type: e.event } as JournalRecord] : [];
  });
}

/** Writes the version 1 state as a version 2 journal (keys hashed), replacing the old file atomically. */
async function rewriteLegacy(ctx: Context, path: string, csvPath: string, records: JournalRecord[], hashing: JournalHashing): Promise<JournalState> {
  const old = replay(records);
  const begin = beginRecord(ctx, csvPath, hashing);
  const at = ctx.now().toISOString();
  const lines: JournalRecord[] = [
    { ...begin, request_timeout_s: undefined, migrated_from: 1, at },
    ...[...old.accepted].map(([key, a]) => ({ type: 'accepted', key: hashing.hash(key), id: a.id, status: a.status, created_at: a.created_at, at })),
    ...[...old.unknown].map(([key, u]) => ({ type: 'unknown', key: hashing.hash(key), at: u.at, reason: u.reason })),
  ];
  const { writeFileAtomic } = await import('../util/files.js');
  await writeFileAtomic(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  ctx.info(`Rewrote ${path} in the current journal format (patient ids are no longer kept in clear).`);
  const state = replay(lines);
  // Version 1 did not record the request timeout: the quiet period assumes the default.
  state.lastSentAt = old.lastSentAt;
  return state;
}
