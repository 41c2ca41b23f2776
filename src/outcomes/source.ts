// Which batch uploaded the file, and what it did with each row. Two records of a `sequences batch`
// run exist: its journal (`<out or file>.journal.ndjson`: created rows with their sequence ids,
// unknown rows, a keyed hash of each sent row's phone) and, when it was given --out, its results
// file (line, status, sequence_id, messages: the status of the rows never created). Either finds
// the other: `results.csv` ↔ `results.csv.journal.ndjson`. The journal is the truth about what
// was created; the results file only adds why the other rows were not.
import { open, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseLine } from '../journal/file.js';
import type { BeginRecord } from '../batch/journal.js';
import type { NoSequence } from './classify.js';

export const JOURNAL_SUFFIX = '.journal.ndjson';

export interface BatchSource {
  journal?: string;
  results?: string;
}

/** What the batch did with each row of the file. */
export interface BatchFates {
  source: BatchSource;
  /** The journal's first record (its header hash and phone hashing), when a journal was read. */
  begin?: BeginRecord;
  /** Every row created: line → sequence id (null when the service gave none). */
  created: Map<number, number | null>;
  /** Rows the batch names without a sequence: line → why (invalid, skipped, not-sent, unknown). */
  statuses: Map<number, NoSequence>;
  /** The phone hash of every line the journal sent (the file must still hold the same numbers). */
  phones: Map<number, string>;
  /** Every line the results file lists (without a journal, each must be in the file). */
  resultLines: Set<number>;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds the batch's journal and results file. Without --from, the journal `sequences batch` writes
 * beside the file when it was not given --out. A usage error says where it looked.
 */
export async function locateBatch(file: string, from?: string): Promise<BatchSource> {
  if (from === undefined) {
    const journal = `${file}${JOURNAL_SUFFIX}`;
    if (await isFile(journal)) return { journal };
    throw new UsageError(`Found no record of a batch upload of ${file}: there is no ${journal}.`, {
      hint: `If the upload was given --out, give that results file: outreach sequences outcomes ${file} --from results.csv`,
    });
  }
  if (!(await isFile(from))) throw new UsageError(`--from ${from}: no such file.`);
  if ((await kindOf(from)) === 'journal') {
    // `<results>.journal.ndjson` sits beside its results file; a journal of a batch without --out
    // sits beside the patient file itself, which is no results file.
    const results = from.endsWith(JOURNAL_SUFFIX) ? from.slice(0, -JOURNAL_SUFFIX.length) : undefined;
    const found = results !== undefined && resolve(results) !== resolve(file) && (await isFile(results));
    return { journal: from, ...(found ? { results } : {}) };
  }
  const journal = `${from}${JOURNAL_SUFFIX}`;
  return { results: from, ...((await isFile(journal)) ? { journal } : {}) };
}

/** A journal or a results file, by its name or else by its first line. */
async function kindOf(path: string): Promise<'journal' | 'results'> {
  if (path.toLowerCase().endsWith(JOURNAL_SUFFIX)) return 'journal';
  if (['.csv', '.tsv', '.txt', '.xlsx'].includes(extname(path).toLowerCase())) return 'results';
  const first = parseLine((await firstLine(path)) ?? '');
  if (first?.type === 'begin') return 'journal';
  if (first && 'line' in first) return 'results';
  throw new UsageError(`--from ${path} is neither the results file (--out) of a sequences batch nor its journal.`);
}

async function firstLine(path: string): Promise<string | undefined> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8').split('\n').find((l) => l.trim() !== '');
  } finally {
    await fh.close();
  }
}

const BATCH_WORDS = new Set<string>(['invalid', 'skipped', 'not-sent', 'unknown']);

/** Reads what the journal and the results file say. Damage is a usage error naming the file. */
export async function readFates(source: BatchSource): Promise<BatchFates> {
  const fates: BatchFates = { source, created: new Map(), statuses: new Map(), phones: new Map(), resultLines: new Set() };
  const listed = source.results ? await readResults(source.results) : [];
  for (const r of listed) fates.resultLines.add(r.line);
  const { readJournal, replay } = await import('../batch/journal.js');
  // An empty journal says nothing: the results file, when there is one, then speaks alone.
  const records = source.journal ? await readJournal(source.journal) : undefined;
  if (source.journal && (records || !source.results)) {
    const state = replay(records ?? []);
    fates.begin = state.begin;
    fates.created = state.created;
    fates.phones = state.phones;
    for (const line of state.unknown.keys()) fates.statuses.set(line, 'unknown');
    // The results file says why the other rows were not created; never that a row was.
    for (const r of listed) {
      if (!fates.created.has(r.line) && !fates.statuses.has(r.line) && BATCH_WORDS.has(r.status)) fates.statuses.set(r.line, r.status as NoSequence);
    }
    return fates;
  }
  for (const r of listed) {
    if (r.status === 'created') fates.created.set(r.line, r.sequenceId ?? null);
    else if (BATCH_WORDS.has(r.status)) fates.statuses.set(r.line, r.status as NoSequence);
  }
  return fates;
}

interface ResultLine {
  line: number;
  status: string;
  sequenceId?: number;
}

/** The rows of a results file (.csv, .xlsx or .ndjson) written by `sequences batch --out`. */
async function readResults(path: string): Promise<ResultLine[]> {
  const { readInt } = await import('../api/read.js');
  const out: ResultLine[] = [];
  const add = (at: string, line: unknown, status: unknown, id: unknown) => {
    const n = readInt(line);
    if (n === undefined || n < 1) throw new UsageError(`${at}: the line column does not hold a line number; is this the results file of a sequences batch?`);
    const sequenceId = readInt(id);
    out.push({ line: n, status: String(status ?? '').trim().toLowerCase(), ...(sequenceId !== undefined ? { sequenceId } : {}) });
  };
  if (extname(path).toLowerCase() === '.ndjson') {
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines.forEach((text, i) => {
      if (text.trim() === '') return;
      const rec = parseLine(text);
      if (!rec || !('line' in rec)) throw new UsageError(`${path}, line ${i + 1}: not a row of a results file of a sequences batch.`);
      add(`${path}, line ${i + 1}`, rec.line, rec.status, rec.sequence_id);
    });
    return out;
  }
  const [{ openPatientFile }, { CsvFormatError }] = await Promise.all([import('../csv/open.js'), import('../csv/reader.js')]);
  try {
    const csv = await openPatientFile(path);
    const col = (name: string) => csv.headers.findIndex((h) => h.trim().toLowerCase() === name);
    const [line, status, id] = [col('line'), col('status'), col('sequence_id')];
    if (line === -1 || status === -1) {
      await csv.rows[Symbol.asyncIterator]().return?.();
      throw new UsageError(`${path} has no line and status columns: it is not the results file (--out) of a sequences batch.`);
    }
    for await (const row of csv.rows) add(`${path}, line ${row.line}`, row.values[line], row.values[status], id === -1 ? undefined : row.values[id]);
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
  return out;
}
