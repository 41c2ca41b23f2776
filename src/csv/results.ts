// The results file of `--out` (and of `--rejects`): one record per row. `.csv`, `.ndjson` or
// `.xlsx`, chosen by extension.
//
// Written safely (src/util/files.ts): into a temporary file beside the target (0600: results hold
// patient identifiers), renamed over the target at close(); abort() drops it and keeps the old file.
// A symlink at the target is refused (exit 2). Rows are buffered up to 64 KiB and written in order;
// flush() pushes them to the temporary file, close() fsyncs and renames. CSV and XLSX cells go
// through spreadsheetCell (src/output/safe.ts) so that none runs as a formula; NDJSON is left as it
// is. XLSX is streamed by resultsXlsx.ts (exceljs, loaded only for a .xlsx path).

import { extname } from 'node:path';
import { spreadsheetCell } from '../output/safe.js';
import { openAtomic, type AtomicFile } from '../util/files.js';

/** Output formats, picked from the file extension. */
export type ResultsFormat = 'csv' | 'ndjson' | 'xlsx';

export const RESULTS_FORMATS: readonly ResultsFormat[] = ['csv', 'ndjson', 'xlsx'];

/** A results file open for writing. Await write(); a failed write makes every later call fail too. */
export interface ResultsWriter {
  readonly path: string;
  readonly format: ResultsFormat;
  write(row: Readonly<Record<string, unknown>>): Promise<void>;
  /** Writes the buffered rows to the temporary file (not yet visible at `path`). */
  flush(): Promise<void>;
  /** Writes what is buffered, fsyncs and renames over `path`. Idempotent. */
  close(): Promise<void>;
  /** Drops what was written: `path` keeps its old content (or stays absent). Idempotent; never throws. */
  abort(): Promise<void>;
}

/** The --out path has an extension we cannot write; a usage error. */
export class ResultsFileError extends Error {
  override name = 'ResultsFileError';
}

const FLUSH_AT = 64 * 1024;

/**
 * Picks the format from the extension (.csv, .ndjson, .xlsx) among those the caller `allowed`;
 * anything else throws ResultsFileError naming `flag` and the extensions it takes.
 */
export function resultsFormatFor(path: string, allowed: readonly ResultsFormat[] = RESULTS_FORMATS, flag = '--out'): ResultsFormat {
  const ext = extname(path).toLowerCase();
  const format = allowed.find((f) => `.${f}` === ext);
  if (format) return format;
  const names = allowed.map((f) => `.${f}`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
  throw new ResultsFileError(`${flag} must end in ${list} (got "${ext || 'no extension'}")`);
}

/** resultsFormatFor for a flag the user gave: a wrong extension is a usage error (exit 2). */
export async function checkResultsPath(path: string, allowed: readonly ResultsFormat[] = RESULTS_FORMATS, flag = '--out'): Promise<ResultsFormat> {
  try {
    return resultsFormatFor(path, allowed, flag);
  } catch (err) {
    if (!(err instanceof ResultsFileError)) throw err;
    const { UsageError } = await import('../errors.js');
    throw new UsageError(err.message);
  }
}

export interface OpenResultsOptions {
  /** Continue an existing file (CSV and NDJSON only; see openResults). */
  append?: boolean;
  /** XLSX: the name of the one sheet (default "Results"). */
  sheet?: string;
  /** The formats the caller takes (default: all); others throw ResultsFileError. */
  allowed?: readonly ResultsFormat[];
  /** The option named in errors (default --out). */
  flag?: string;
}

/**
 * Opens a results file with the given columns, in that order. `append` continues an existing file
 * (for --resume): its content is copied into the temporary file first, and the CSV header is
 * written only when the file is new or empty; a workbook cannot be continued (ResultsFileError).
 * A symlink or non-regular file at `path` is refused with a usage error (exit 2) and nothing is
 * written.
 */
export async function openResults(path: string, columns: readonly string[], options: OpenResultsOptions = {}): Promise<ResultsWriter> {
  const flag = options.flag ?? '--out';
  const format = resultsFormatFor(path, options.allowed, flag);
  if (columns.length === 0) throw new RangeError('a results file needs at least one column');
  if (format === 'xlsx') {
    // A zip cannot be appended to; a caller that needs to continue a file writes CSV or NDJSON.
    if (options.append) throw new ResultsFileError(`${flag} ${path}: an .xlsx file cannot be continued by a later run; use .csv or .ndjson`);
    const { openXlsxResults } = await import('./resultsXlsx.js');
    return openXlsxResults(path, columns, options.sheet);
  }
  const file = await openAtomic(path, { copyExisting: Boolean(options.append) });
  const writer = new FileResultsWriter(path, format, [...columns], file);
  // The header may hold the input file's own column names: made inert like any cell.
  if (format === 'csv' && file.copiedBytes === 0) writer.queue(columns.map((c) => csvField(spreadsheetCell(c))).join(',') + '\n');
  return writer;
}

/**
 * Writes a whole results file: every record or none. A bad extension is a usage error (exit 2); a
 * failure part-way (the input changed, the disk filled) keeps the file that was there rather than
 * replace it with a partial one. Returns how many records were written.
 */
export async function writeResultsFile(
  path: string,
  columns: readonly string[],
  records: Iterable<Readonly<Record<string, unknown>>> | AsyncIterable<Readonly<Record<string, unknown>>>,
  options: OpenResultsOptions = {},
): Promise<number> {
  let out: ResultsWriter;
  try {
    out = await openResults(path, columns, options);
  } catch (err) {
    if (!(err instanceof ResultsFileError)) throw err;
    const { UsageError } = await import('../errors.js');
    throw new UsageError(err.message);
  }
  let written = 0;
  let complete = false;
  try {
    for await (const record of records) {
      await out.write(record);
      written++;
    }
    complete = true;
  } finally {
    if (complete) await out.close();
    else await out.abort();
  }
  return written;
}

class FileResultsWriter implements ResultsWriter {
  private pending: string[] = [];
  private pendingLength = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private aborted = false;
  private closing?: Promise<void>;

  constructor(
    readonly path: string,
    readonly format: ResultsFormat,
    private readonly columns: string[],
    private readonly file: AtomicFile,
  ) {}

  write(row: Readonly<Record<string, unknown>>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('results file already closed'));
    this.queue(this.format === 'csv' ? csvLine(this.columns, row) : ndjsonLine(this.columns, row));
    return this.pendingLength >= FLUSH_AT ? this.flush() : this.chain;
  }

  queue(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
  }

  flush(): Promise<void> {
    if (this.pending.length > 0) {
      const data = Buffer.from(this.pending.join(''), 'utf8');
      this.pending = [];
      this.pendingLength = 0;
      this.chain = this.chain.then(() => this.file.write(data));
    }
    return this.chain;
  }

  close(): Promise<void> {
    // One closing for every caller (a finally and an error path may both close).
    this.closing ??= this.finish();
    return this.closing;
  }

  private async finish(): Promise<void> {
    if (this.aborted) return;
    this.closed = true;
    try {
      await this.flush();
    } catch (err) {
      await this.file.abort(); // a failed write: the old file stays rather than a partial one
      throw err;
    }
    await this.file.close();
  }

  async abort(): Promise<void> {
    if (this.closing) return; // already committed (or committing): nothing to take back
    this.aborted = true;
    this.closed = true;
    this.pending = [];
    this.pendingLength = 0;
    await this.chain.catch(() => undefined);
    await this.file.abort();
  }
}

// Every data cell is made spreadsheet-safe (a formula gets a leading ').
function csvLine(columns: string[], row: Readonly<Record<string, unknown>>): string {
  return columns.map((c) => csvField(spreadsheetCell(cellText(row[c])))).join(',') + '\n';
}

function ndjsonLine(columns: string[], row: Readonly<Record<string, unknown>>): string {
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = row[c] === undefined ? null : row[c];
  return JSON.stringify(out) + '\n';
}

/** Quotes a CSV field when needed (RFC 4180): delimiter, quote, line break, or edge spaces. */
export function csvField(text: string): string {
  if (/[",\r\n]/.test(text) || text !== text.trim()) return '"' + text.replaceAll('"', '""') + '"';
  return text;
}

// Lists of messages read best as "a; b" in a spreadsheet cell; other objects as JSON.
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) return v.map((x) => cellText(x)).join('; ');
  return JSON.stringify(v);
}
