// The journal file every resumable run writes (sequences batch, eligibility bulk): append-only
// NDJSON, 0600, never through a symlink. Two rules hold for every journal:
//
// Durability: `append` returns once the record is on disk (fsync). A run appends the intent before
// it sends a request and the result after the answer, so whatever stops it (Ctrl-C, a crash, a lost
// connection) the journal says which requests may have reached the service. Concurrent appends
// share one fsync (group commit): each waits for a sync that started after its own write.
//
// Damage: a torn last line (a crash mid-write, no newline after it) is ignored — the record it
// would have been never counted. Any other line that is not a record refuses the journal (exit 2):
// guessing past damage could send a row twice.
import { writeSync } from 'node:fs';
import { readFile, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../errors.js';

export interface JournalRecord {
  type: string;
  [field: string]: unknown;
}

/** What a journal's first record says: which command wrote it, in which format version. */
export interface JournalHeader {
  type: 'begin';
  /** Absent in batch journals written before bulk eligibility shared the engine. */
  kind?: JournalKind;
  v: number;
}
export type JournalKind = 'sequences-batch' | 'eligibility-bulk';

const KIND_NAMES: Record<JournalKind, string> = {
  'sequences-batch': 'a `sequences batch` journal',
  'eligibility-bulk': 'an `eligibility check --csv` journal',
};

/** A journal's text; undefined when there is none. */
export async function readJournalText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** One line as a JSON object, or undefined (not JSON, or not an object). */
export function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a journal's records; undefined when there is none. Damage other than a torn last line is refused. */
export async function readRecords(path: string): Promise<JournalRecord[] | undefined> {
  const text = await readJournalText(path);
  return text === undefined ? undefined : recordsOf(path, text);
}

/** The records of a journal's text (see readRecords). */
export function recordsOf(path: string, text: string): JournalRecord[] {
  const lines = text.split('\n');
  const records: JournalRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '') continue;
    const rec = parseLine(l);
    if (rec && typeof rec.type === 'string') {
      records.push(rec as JournalRecord);
      continue;
    }
    const isLast = lines.slice(i + 1).every((x) => x.trim() === '');
    if (isLast && !text.endsWith('\n')) break; // torn final write
    throw damaged(path, `line ${i + 1} is not a journal record`);
  }
  return records;
}

/**
 * Checks a journal's first record: the right command's journal, in a version this one reads.
 * `legacy` names the kind assumed when the header has none.
 */
export function checkHeader(path: string, records: readonly JournalRecord[], want: JournalKind, versions: readonly number[], legacy?: JournalKind): JournalHeader {
  const first = records[0] as Partial<JournalHeader> | undefined;
  if (!first || first.type !== 'begin') throw damaged(path, 'it does not start with a begin record');
  const kind = first.kind ?? legacy;
  if (kind !== want) {
    throw new UsageError(`${path} is ${kind && kind in KIND_NAMES ? KIND_NAMES[kind] : 'not a journal of this command'}, not ${KIND_NAMES[want]}; nothing was sent.`, {
      hint: 'Give each run its own journal (--journal FILE), or move this file away.',
    });
  }
  if (typeof first.v !== 'number' || !versions.includes(first.v)) {
    throw new UsageError(`${path}: journal version ${String(first.v)} is not one this version of outreach reads (${versions.join(', ')}); nothing was sent.`, {
      hint: 'Finish that run with the version of outreach that started it.',
    });
  }
  return first as JournalHeader;
}

function damaged(path: string, what: string): UsageError {
  return new UsageError(`The journal ${path} is damaged (${what}); nothing was sent.`, {
    hint: 'It says which rows were already sent. Restore it, or check on the service which rows were\ncreated and move it away to start afresh.',
  });
}

/** An open journal: `append` returns once the record is on disk. */
export class JournalWriter {
  private syncing?: Promise<void>;
  private next?: Promise<void>;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
  ) {}

  /** Opens (creates, 0600) the journal; a symlink or non-regular file there is refused (exit 2). */
  static async open(path: string): Promise<JournalWriter> {
    const { openAppendOnly } = await import('../util/files.js');
    const fh = await openAppendOnly(path);
    try {
      // A torn last line from a crash: start our records on a fresh line (read through the same fd,
      // so no second open can be redirected).
      const { size } = await fh.stat();
      if (size > 0) {
        const buf = Buffer.alloc(1);
        await fh.read(buf, 0, 1, size - 1);
        if (buf[0] !== 0x0a) writeSync(fh.fd, '\n');
      }
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    return new JournalWriter(path, fh);
  }

  /**
   * Writes the record (one O_APPEND write, in call order) and waits until it is on disk. With
   * `sync: false` it returns once written: safe from a crash of the process, on disk with the next
   * synced record or at close. Only for a result whose loss (a power cut) leaves the row unknown,
   * which a resume settles from the service's records — never for an intent.
   */
  async append<R extends { readonly type: string }>(record: R, opts: { sync?: boolean } = {}): Promise<void> {
    if (this.closed) throw new Error(`journal ${this.path} is closed`);
    writeSync(this.fh.fd, `${JSON.stringify(record)}\n`);
    if (opts.sync !== false) await this.sync();
  }

  /** A sync that starts after the caller's write; callers arriving while one runs share the next. */
  private sync(): Promise<void> {
    if (!this.syncing) {
      this.syncing = this.fh.sync().finally(() => (this.syncing = undefined));
      return this.syncing;
    }
    this.next ??= this.syncing.then(() => {
      this.next = undefined;
      return this.sync();
    });
    return this.next;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.next?.catch(() => undefined);
    await this.syncing?.catch(() => undefined);
    await this.fh.sync().catch(() => undefined); // the results written without waiting
    await this.fh.close().catch(() => undefined);
  }
}
