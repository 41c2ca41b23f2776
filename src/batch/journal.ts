// The batch journal: an append-only NDJSON file, fsynced record by record, that says for every
// create chunk what was about to be sent (intent, BEFORE the request) and what came of it (result,
// AFTER). Whatever stops a run — Ctrl-C, a timeout, a dropped connection, a 5xx, a crash — the
// journal tells which rows were created, which were never sent and which are unknown; `--resume`
// reads it and settles the unknown ones before sending anything.
//
// Kept minimal on purpose: CSV line numbers, sequence ids and, per row, a salted hash of the E.164
// phone number (salt random per journal, stored in its first record). No names, no dates of birth,
// no phone numbers in clear: the hash is enough to recognise the row among the organisation's
// sequences (hash the sequence's phone with the same salt) and to notice a file changed since.
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, type FileHandle } from 'node:fs/promises';

export const JOURNAL_VERSION = 1;

export interface BeginRecord {
  type: 'begin';
  v: number;
  at: string;
  /** The service's clock (Date header) when the run began, if it sent one. */
  server_at?: string;
  definition_id: number;
  definition_name: string;
  csv: string;
  salt: string;
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
  /** phoneHash() of each row, in the order of `lines`. */
  phones: string[];
}
export interface CreatedRow {
  line: number;
  id: number | null;
}
export type ResultRecord =
  | { type: 'result'; chunk: number; at: string; outcome: 'created'; created: CreatedRow[]; failed: number[] }
  /** Proven not created (the service refused before acting, or the request never left). */
  | { type: 'result'; chunk: number; at: string; outcome: 'rejected'; reason: string }
  | { type: 'result'; chunk: number; at: string; outcome: 'unknown'; reason: string };
export interface SettledRecord {
  type: 'settled';
  chunk: number;
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

export type ChunkStatus = 'intent' | 'created' | 'rejected' | 'unknown' | 'settled';

export interface ChunkState {
  chunk: number;
  status: ChunkStatus;
  lines: number[];
  phones: string[];
  at: string;
}

/** What the journal says, replayed from its records. */
export interface JournalState {
  begin?: BeginRecord;
  /** Every row known to be created: CSV line → sequence id (null when the service gave none). */
  created: Map<number, number | null>;
  /** Lines of rows whose fate is unknown (chunk sent, no answer, not settled yet). */
  unknownChunks: ChunkState[];
  chunks: Map<number, ChunkState>;
  lastChunk: number;
  complete: boolean;
}

/** Salted, truncated SHA-256 of an E.164 number: recognisable with the salt, not readable. */
export function phoneHash(salt: string, e164: string): string {
  return createHash('sha256').update(`${salt}:${e164}`).digest('hex').slice(0, 20);
}

export function headersHash(headers: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(headers)).digest('hex').slice(0, 16);
}

export function newSalt(): string {
  return randomBytes(16).toString('hex');
}

/** Replays records into the state (pure). */
export function replay(records: readonly JournalRecord[]): JournalState {
  const state: JournalState = { created: new Map(), unknownChunks: [], chunks: new Map(), lastChunk: 0, complete: false };
  for (const r of records) {
    switch (r.type) {
      case 'begin':
        state.begin ??= r;
        break;
      case 'intent':
        state.chunks.set(r.chunk, { chunk: r.chunk, status: 'intent', lines: r.lines, phones: r.phones, at: r.at });
        state.lastChunk = Math.max(state.lastChunk, r.chunk);
        state.complete = false;
        break;
      case 'result': {
        const c = state.chunks.get(r.chunk);
        if (!c) break;
        c.status = r.outcome;
        if (r.outcome === 'created') for (const x of r.created) state.created.set(x.line, x.id);
        break;
      }
      case 'settled': {
        const c = state.chunks.get(r.chunk);
        if (!c) break;
        c.status = 'settled';
        for (const x of r.created) state.created.set(x.line, x.id);
        break;
      }
      case 'end':
        state.complete = r.outcome === 'complete';
        break;
      default:
        break;
    }
  }
  state.unknownChunks = [...state.chunks.values()].filter((c) => c.status === 'intent' || c.status === 'unknown');
  return state;
}

/** A journal parse problem: the file is not a journal, or is damaged before its last line. */
export class JournalError extends Error {
  override name = 'JournalError';
}

/** Reads a journal file; a torn last line (a crash mid-write) is ignored, other damage throws. */
export async function readJournal(path: string): Promise<JournalRecord[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const lines = text.split('\n');
  const records: JournalRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '') continue;
    try {
      const rec = JSON.parse(l) as JournalRecord;
      if (!rec || typeof rec !== 'object' || typeof rec.type !== 'string') throw new Error('not a record');
      records.push(rec);
    } catch {
      const isLast = lines.slice(i + 1).every((x) => x.trim() === '');
      if (isLast && !text.endsWith('\n')) break; // torn final write
      throw new JournalError(`${path}, line ${i + 1}: not a journal record (the file is damaged or not a batch journal)`);
    }
  }
  if (records.length && records[0]!.type !== 'begin') throw new JournalError(`${path}: does not start with a begin record; not a batch journal`);
  const begin = records[0] as BeginRecord | undefined;
  if (begin && begin.v !== JOURNAL_VERSION) throw new JournalError(`${path}: journal version ${begin.v} is not supported by this version of outreach`);
  return records;
}

/** An open journal: append() returns once the record is on disk (fsync). */
export class JournalWriter {
  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
  ) {}

  static async open(path: string): Promise<JournalWriter> {
    const fh = await open(path, 'a', 0o600);
    // A torn last line from a crash: start our records on a fresh line.
    const { size } = await fh.stat();
    if (size > 0) {
      const buf = Buffer.alloc(1);
      const rd = await open(path, 'r');
      try {
        await rd.read(buf, 0, 1, size - 1);
      } finally {
        await rd.close();
      }
      if (buf[0] !== 0x0a) await fh.write('\n');
    }
    return new JournalWriter(path, fh);
  }

  async append(record: JournalRecord): Promise<void> {
    await this.fh.write(`${JSON.stringify(record)}\n`);
    await this.fh.sync();
  }

  async close(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}
