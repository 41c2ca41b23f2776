// The batch journal, written through the journal engine (src/journal/file.ts: append-only, each
// record fsynced, one damage rule), says for every create chunk what was about to be sent (intent, BEFORE the request) and what came of it (result,
// AFTER). Whatever stops a run — Ctrl-C, a timeout, a dropped connection, a 5xx, a crash — the
// journal tells which rows were created, which were never sent and which are unknown; `--resume`
// reads it and settles the unknown ones before sending anything.
//
// Kept minimal on purpose: CSV line numbers, sequence ids and, per row, a keyed hash of the E.164
// phone number (src/journal/hashing.ts: the key stays in the user's config dir, so the journal
// alone does not reveal the numbers). No names, no dates of birth, no phone numbers in clear: the
// hash is enough to recognise the row among the organisation's sequences and to notice a file
// changed since.
import { createHash } from 'node:crypto';
import { checkHeader, readRecords } from '../journal/file.js';

/** 2: phone hashes keyed (key_id); 1: salted only, still read so an older run can be resumed. */
export const JOURNAL_VERSION = 2;
const READABLE_VERSIONS = [1, 2];

export interface BeginRecord {
  type: 'begin';
  /** Absent in journals written before the eligibility bulk journal shared the engine. */
  kind?: 'sequences-batch';
  v: number;
  at: string;
  /** The service's clock (Date header) when the run began, if it sent one. */
  server_at?: string;
  definition_id: number;
  definition_name: string;
  csv: string;
  salt: string;
  /** Id of the journal key the phone hashes are keyed with (absent in version 1). */
  key_id?: string;
  next_activity?: string;
  /** The run's per-request timeout: a resume waits this long (+5 s) after an unknown chunk was sent. */
  request_timeout_s?: number;
  /** Hash of the header row: a resume on a different file is refused. */
  headers: string;
}
export interface IntentRecord {
  type: 'intent';
  chunk: number;
  at: string;
  lines: number[];
  /** The phone hash of each row (src/journal/hashing.ts), in the order of `lines`. */
  phones: string[];
}
export interface CreatedRow {
  line: number;
  id: number | null;
}
export type ResultRecord =
  /**
   * The service answered: `created` rows it confirmed, `failed` rows an error named, `unknown` rows
   * it neither confirmed nor named (absent in journals written before it existed: there `failed`
   * held every row not created).
   */
  | { type: 'result'; chunk: number; at: string; outcome: 'created'; created: CreatedRow[]; failed: number[]; unknown?: number[] }
  /** Proven not created (the service refused before acting, or the request never left). */
  | { type: 'result'; chunk: number; at: string; outcome: 'rejected'; reason: string }
  | { type: 'result'; chunk: number; at: string; outcome: 'unknown'; reason: string };
/** What --resume proved about unknown rows from the service's records; rows in neither list stay unknown. */
export interface SettledRecord {
  type: 'settled';
  /** The chunk settled (journals before per-row settling); absent when rows of several chunks were. */
  chunk?: number;
  at: string;
  created: CreatedRow[];
  absent: number[];
}
export interface NoteRecord {
  type: 'resume' | 'end';
  at: string;
  outcome?: string;
}
export type JournalRecord = BeginRecord | IntentRecord | ResultRecord | SettledRecord | NoteRecord;

/** A row whose creation is unknown: sent in `chunk` at `at`, not confirmed, not named, not settled. */
export interface UnknownRow {
  line: number;
  chunk: number;
  phone: string;
  at: string;
}

/** What the journal says, replayed from its records. */
export interface JournalState {
  begin?: BeginRecord;
  /** Every row known to be created: file line → sequence id (null when the service gave none). */
  created: Map<number, number | null>;
  /** Rows whose fate is unknown, by line. */
  unknown: Map<number, UnknownRow>;
  /** The phone hash of every journalled line (to notice a file edited between a run and its resume). */
  phones: Map<number, string>;
  lastChunk: number;
  complete: boolean;
}

export function headersHash(headers: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(headers)).digest('hex').slice(0, 16);
}

/** Replays records into the state (pure). A line's latest chunk decides its state. */
export function replay(records: readonly JournalRecord[]): JournalState {
  const state: JournalState = { created: new Map(), unknown: new Map(), phones: new Map(), lastChunk: 0, complete: false };
  /** line → the chunk that last carried it, while its answer is awaited. */
  const pending = new Map<number, UnknownRow>();
  const chunks = new Map<number, IntentRecord>();
  const flushPending = () => {
    for (const p of pending.values()) state.unknown.set(p.line, p);
    pending.clear();
  };
  const ofChunk = (chunk: number, lines: readonly number[]) => lines.filter((l) => (pending.get(l) ?? state.unknown.get(l))?.chunk === chunk);
  for (const r of records) {
    switch (r.type) {
      case 'begin':
        state.begin ??= r;
        break;
      case 'intent':
        chunks.set(r.chunk, r);
        r.lines.forEach((line, i) => {
          state.phones.set(line, r.phones[i]!);
          state.unknown.delete(line);
          pending.set(line, { line, chunk: r.chunk, phone: r.phones[i]!, at: r.at });
        });
        state.lastChunk = Math.max(state.lastChunk, r.chunk);
        state.complete = false;
        break;
      case 'result': {
        const c = chunks.get(r.chunk);
        if (!c) break;
        const lines = ofChunk(r.chunk, c.lines);
        const toUnknown = (l: number) => {
          const p = pending.get(l);
          if (p) state.unknown.set(l, p);
        };
        if (r.outcome === 'unknown') lines.forEach(toUnknown);
        if (r.outcome === 'created') {
          for (const x of r.created) state.created.set(x.line, x.id);
          for (const l of r.unknown ?? []) if (lines.includes(l)) toUnknown(l);
        }
        for (const l of lines) pending.delete(l);
        break;
      }
      case 'resume':
        flushPending(); // the earlier process stopped with these requests out
        break;
      case 'settled':
        flushPending();
        for (const x of r.created) {
          state.created.set(x.line, x.id);
          state.unknown.delete(x.line);
        }
        for (const l of r.absent) state.unknown.delete(l);
        break;
      case 'end':
        state.complete = r.outcome === 'complete';
        break;
      default:
        break;
    }
  }
  // An intent without a result: the run stopped while the request was out.
  flushPending();
  return state;
}

/** Reads a batch journal (undefined when there is none); damage or another command's journal is refused (exit 2). */
export async function readJournal(path: string): Promise<JournalRecord[] | undefined> {
  const records = await readRecords(path);
  if (!records?.length) return undefined;
  checkHeader(path, records, 'sequences-batch', READABLE_VERSIONS, 'sequences-batch');
  return records as unknown as JournalRecord[];
}
