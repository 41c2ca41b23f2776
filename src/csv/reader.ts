// Streaming CSV reader for patient files.
//
// Patient exports come from EHRs and Excel, so this copes with a BOM, CRLF or lone-CR line
// endings, quoted fields holding commas and newlines, `,` `;` or tab delimiters, and
// Windows-1252 files. It streams: memory stays flat whatever the file size.
// Errors never quote cell values (they are patient data): only the file, line and counts.

import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TextDecoder } from 'node:util';
import { parse } from 'csv-parse';

/** Encodings the reader detects; UTF-16 only when the file starts with its byte-order mark. */
export type CsvEncoding = 'utf-8' | 'windows-1252' | 'utf-16le';

/** One data record: `line` is the 1-based file line where the record starts (the header is line 1). */
export interface CsvRow {
  line: number;
  values: string[];
}

/** An opened CSV file: headers read, rows still to stream (iterate `rows` once). */
export interface CsvFile {
  headers: string[];
  headerLine: number;
  delimiter: string;
  encoding: CsvEncoding;
  rows: AsyncIterable<CsvRow>;
  /** About how many bytes of the file the rows given so far took, and its size: a progress line's %. */
  bytes?: () => { read: number; size: number };
  /** A workbook's sheet read (src/csv/xlsx.ts): its name, its place in tab order, and how many there are. */
  sheet?: string;
  sheetNumber?: number;
  sheetCount?: number;
}

/** Options for openCsv: a forced delimiter or encoding; otherwise both are detected. */
export interface OpenCsvOptions {
  delimiter?: string;
  encoding?: CsvEncoding;
}

/** Why a file could not be read; lets callers choose an exit code without matching text. */
export type CsvErrorReason =
  | 'unreadable'
  | 'empty'
  | 'no_header'
  | 'encoding'
  | 'ragged_row'
  | 'unclosed_quote'
  | 'record_too_large'
  | 'malformed'
  // workbooks (src/csv/xlsx.ts) and the choice of reader (src/csv/open.ts)
  | 'not_workbook'
  | 'old_excel'
  | 'encrypted'
  | 'no_sheet'
  | 'empty_sheet'
  | 'empty_header_cell'
  | 'unnamed_column'
  | 'option';

/** A file that cannot be read as CSV. The message names the file and line, never a cell value. */
export class CsvFormatError extends Error {
  override name = 'CsvFormatError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly reason: CsvErrorReason,
    detail: string,
  ) {
    super(line === undefined ? `${file}: ${detail}` : `${file}, line ${line}: ${detail}`);
  }
}

const SAMPLE_BYTES = 64 * 1024;
// A record larger than this is almost surely an unclosed quote swallowing the rest of the file;
// failing early keeps memory bounded instead of buffering the whole file into one field.
const MAX_RECORD_CHARS = 1024 * 1024;
const DELIMITERS = [',', ';', '\t'] as const;

/** Opens a CSV file: detects encoding and delimiter, reads the header, and returns a row stream. */
export async function openCsv(path: string, options: OpenCsvOptions = {}): Promise<CsvFile> {
  const sniffed = await sniff(path, options.encoding);
  // Excel's "sep=;" first line names the delimiter; it is not the header.
  const sepLine = /^"?sep=(.)"?$/i.exec(sniffed.firstLine.trim());
  const delimiter = options.delimiter ?? sepLine?.[1] ?? detectDelimiter(sniffed.firstLine);
  if (delimiter.length === 0) throw new CsvFormatError(path, undefined, 'malformed', 'the delimiter is empty');

  const source = createReadStream(path, { start: sniffed.bomLength });
  const decoder = new DecodeLines(sniffed.encoding, path);
  const parser = parse({
    delimiter,
    info: true,
    relax_column_count: true, // we report ragged rows ourselves, with the line, without the values
    relax_quotes: true, // a stray quote inside an unquoted field is kept as text, as Excel does
    skip_empty_lines: true,
    record_delimiter: '\n', // DecodeLines turns CRLF and lone CR into LF
    max_record_size: MAX_RECORD_CHARS,
  });
  // pipeline wires errors and teardown (an early `break` by the consumer destroys the file stream).
  // Its errors surface through the parser's iterator below; the catch only avoids an unhandled rejection.
  pipeline(source, decoder, parser).catch(() => {});

  const records = parser[Symbol.asyncIterator]() as AsyncIterator<{ record: string[]; info: { lines: number; bytes: number } }>;
  let lastEndLine = 0; // end line of the last complete record, to place parse errors
  let parsedBytes = 0; // of the text up to the last record returned (CRLF counted as LF): a progress %

  async function next(): Promise<CsvRow | undefined> {
    for (;;) {
      let step: IteratorResult<{ record: string[]; info: { lines: number; bytes: number } }>;
      try {
        step = await records.next();
      } catch (err) {
        throw toCsvError(err, path, lastEndLine);
      }
      if (step.done) return undefined;
      const { record, info } = step.value;
      lastEndLine = info.lines;
      parsedBytes = info.bytes;
      if (record.every((v) => v.trim() === '')) continue; // blank rows like ",,," are ignored
      return { line: info.lines - countNewlines(record), values: record };
    }
  }

  if (sepLine) await next();
  const header = await next();
  if (!header) {
    parser.destroy();
    throw new CsvFormatError(path, undefined, 'empty', 'the file has no rows (not even a header)');
  }
  const headers = header.values.map((h) => h.trim());
  if (headers.every((h) => h === '')) {
    parser.destroy();
    throw new CsvFormatError(path, header.line, 'no_header', 'the header row has no column names');
  }

  let consumed = false;
  const rows: AsyncIterable<CsvRow> = {
    [Symbol.asyncIterator]() {
      if (consumed) throw new Error('openCsv rows can be iterated only once');
      consumed = true;
      return {
        async next(): Promise<IteratorResult<CsvRow>> {
          const row = await next();
          if (!row) return { done: true, value: undefined };
          return { done: false, value: fitToHeader(row, headers.length, path) };
        },
        async return(): Promise<IteratorResult<CsvRow>> {
          parser.destroy();
          return { done: true, value: undefined };
        },
      };
    },
  };

  const bytes = () => ({ read: sniffed.bomLength + parsedBytes, size: sniffed.size });
  return { headers, headerLine: header.line, delimiter, encoding: sniffed.encoding, rows, bytes };
}

// Trailing empty fields beyond the header (a stray comma from Excel) are dropped because no data
// moves; any other mismatch could shift a value into the wrong column, so it is an error.
function fitToHeader(row: CsvRow, width: number, file: string): CsvRow {
  const n = row.values.length;
  if (n === width) return row;
  if (n > width && row.values.slice(width).every((v) => v.trim() === '')) {
    return { line: row.line, values: row.values.slice(0, width) };
  }
  throw new CsvFormatError(
    file,
    row.line,
    'ragged_row',
    `the row has ${n} field${n === 1 ? '' : 's'} but the header has ${width} columns (a missing or extra delimiter, or an unquoted value containing one)`,
  );
}

function countNewlines(values: string[]): number {
  let n = 0;
  for (const v of values) {
    for (let i = v.indexOf('\n'); i !== -1; i = v.indexOf('\n', i + 1)) n++;
  }
  return n;
}

function toCsvError(err: unknown, file: string, lastEndLine: number): Error {
  if (err instanceof CsvFormatError) return err;
  const e = err as { code?: string; lines?: number };
  const near = lastEndLine + 1;
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new CsvFormatError(file, near, 'unclosed_quote', 'a quoted field starting on or after this line is never closed');
    case 'CSV_MAX_RECORD_SIZE':
      return new CsvFormatError(file, near, 'record_too_large', 'a record starting on or after this line is larger than 1 MB (probably an unclosed quote)');
    case 'ENOENT':
    case 'EACCES':
    case 'EISDIR':
      return new CsvFormatError(file, undefined, 'unreadable', `cannot read the file (${e.code})`);
    default:
      if (typeof e.code === 'string' && e.code.startsWith('CSV_')) {
        return new CsvFormatError(file, near, 'malformed', `malformed CSV on or after this line (${e.code})`);
      }
      return err instanceof Error ? err : new Error(String(err));
  }
}

interface Sniffed {
  size: number;
  encoding: CsvEncoding;
  bomLength: number;
  firstLine: string;
}

// One pass over the bytes before parsing: BOM, encoding, and the header line for the delimiter.
// The whole file is validated as UTF-8 (streaming, cheap next to parsing), so a Windows-1252 byte
// far down the file cannot make us switch encodings half-way through.
async function sniff(path: string, forced: CsvEncoding | undefined): Promise<Sniffed> {
  let head: Buffer;
  let size: number;
  try {
    const info = await stat(path);
    size = info.size;
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(SAMPLE_BYTES, info.size));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      head = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw toCsvError(err, path, 0);
  }

  let bomLength = 0;
  let encoding: CsvEncoding | undefined = forced;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
    bomLength = 3;
    encoding ??= 'utf-8';
  } else if (head[0] === 0xff && head[1] === 0xfe) {
    bomLength = 2;
    encoding ??= 'utf-16le';
  } else if (head[0] === 0xfe && head[1] === 0xff) {
    throw new CsvFormatError(path, undefined, 'encoding', 'the file is UTF-16 big-endian; save it as "CSV UTF-8"');
  }
  if (head.length <= bomLength) throw new CsvFormatError(path, undefined, 'empty', 'the file is empty');

  encoding ??= (await isValidUtf8(path, bomLength)) ? 'utf-8' : 'windows-1252';

  const text = new TextDecoder(encoding).decode(head.subarray(bomLength), { stream: true });
  const firstLine = text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  return { size, encoding, bomLength, firstLine };
}

async function isValidUtf8(path: string, start: number): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const stream = createReadStream(path, { start });
  try {
    for await (const chunk of stream) decoder.decode(chunk as Buffer, { stream: true });
    decoder.decode();
    return true;
  } catch (err) {
    if (err instanceof TypeError) return false; // TextDecoder's "not valid" error
    throw toCsvError(err, path, 0);
  } finally {
    stream.destroy();
  }
}

/** Counts the delimiter candidates outside quotes in the header line; the most frequent wins. */
export function detectDelimiter(headerLine: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best = ',';
  let bestCount = 0;
  for (const d of DELIMITERS) {
    const c = counts.get(d) ?? 0;
    if (c > bestCount) {
      best = d;
      bestCount = c;
    }
  }
  return best;
}

// Bytes in, text out, with every line ending turned into LF. csv-parse then counts lines
// correctly (it miscounts CRLF inside quoted fields) and mixed endings in one file still split.
// A CRLF inside a quoted value therefore reads as LF.
class DecodeLines extends Transform {
  private readonly decoder: TextDecoder;
  private pendingCR = false;

  constructor(
    encoding: CsvEncoding,
    private readonly file: string,
  ) {
    super({ decodeStrings: true, readableObjectMode: false });
    // fatal for UTF-8: the file changing under us after sniffing must fail, not garble names.
    this.decoder = new TextDecoder(encoding, { fatal: encoding === 'utf-8', ignoreBOM: true });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.emit_(this.decoder.decode(chunk, { stream: true }));
      done();
    } catch {
      done(new CsvFormatError(this.file, undefined, 'encoding', 'the file is not valid UTF-8 (it changed while being read?)'));
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      this.emit_(this.decoder.decode());
      if (this.pendingCR) this.push('\n');
      done();
    } catch {
      done(new CsvFormatError(this.file, undefined, 'encoding', 'the file is not valid UTF-8'));
    }
  }

  private emit_(text: string): void {
    if (text.length === 0) return;
    let s = this.pendingCR ? '\r' + text : text;
    // A CR at the end of a chunk may be the first half of a CRLF: hold it for the next chunk.
    this.pendingCR = s.endsWith('\r');
    if (this.pendingCR) s = s.slice(0, -1);
    if (s.length > 0) this.push(s.replace(/\r\n?/g, '\n'));
  }
}
