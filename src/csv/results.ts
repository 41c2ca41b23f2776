// The results file of `--out`: one record per input row, written as rows settle so that a run
// stopped half-way still leaves a truthful file. `.csv` or `.ndjson`, chosen by extension.
//
// Rows are buffered up to 64 KiB and written in order; call flush() at points that must be on
// disk (e.g. after each chunk sent to the service) and close() at the end (it also fsyncs).

import { open, stat, type FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';

/** Output formats, picked from the file extension. */
export type ResultsFormat = 'csv' | 'ndjson';

/** A results file open for writing. Await write(); a failed write makes every later call fail too. */
export interface ResultsWriter {
  readonly path: string;
  readonly format: ResultsFormat;
  write(row: Readonly<Record<string, unknown>>): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The --out path has an extension we cannot write; a usage error. */
export class ResultsFileError extends Error {
  override name = 'ResultsFileError';
}

const FLUSH_AT = 64 * 1024;

/** Picks the format from the extension (.csv, .ndjson); anything else throws ResultsFileError. */
export function resultsFormatFor(path: string): ResultsFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson') return 'ndjson';
  throw new ResultsFileError(`--out must end in .csv or .ndjson (got "${ext || 'no extension'}")`);
}

/**
 * Opens a results file with the given columns, in that order. `append` continues an existing file
 * (for --resume): the CSV header is written only when the file is new or empty.
 */
export async function openResults(
  path: string,
  columns: readonly string[],
  options: { append?: boolean } = {},
): Promise<ResultsWriter> {
  const format = resultsFormatFor(path);
  if (columns.length === 0) throw new RangeError('a results file needs at least one column');
  let existing = 0;
  if (options.append) existing = await stat(path).then((s) => s.size, () => 0);
  const fh = await open(path, options.append ? 'a' : 'w');
  const writer = new FileResultsWriter(path, format, [...columns], fh);
  if (format === 'csv' && existing === 0) writer.queue(columns.map(csvField).join(',') + '\n');
  return writer;
}

class FileResultsWriter implements ResultsWriter {
  private pending: string[] = [];
  private pendingLength = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly path: string,
    readonly format: ResultsFormat,
    private readonly columns: string[],
    private readonly fh: FileHandle,
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
      this.chain = this.chain.then(() => writeAll(this.fh, data));
    }
    return this.chain;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.flush();
      await this.fh.sync();
    } finally {
      await this.fh.close();
    }
  }
}

async function writeAll(fh: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await fh.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

function csvLine(columns: string[], row: Readonly<Record<string, unknown>>): string {
  return columns.map((c) => csvField(cellText(row[c]))).join(',') + '\n';
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
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) return v.map((x) => cellText(x)).join('; ');
  return JSON.stringify(v);
}
