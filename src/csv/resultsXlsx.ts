// The .xlsx form of a results file (see results.ts): one sheet, a header row, then one row per
// write(), streamed by exceljs's WorkbookWriter into the same atomic temporary file as CSV (0600,
// renamed over the target at close, symlink refused). Rows are committed as they are written, so
// memory stays flat for any number of rows.
//
// Every cell is text except the numbers and booleans we produce ourselves (line numbers, ids):
// a phone number or a member id with leading zeros stays exactly as written, never turned into a
// number by Excel. Text goes through spreadsheetCell, so that no cell runs as a formula when a
// person edits it.
import { Writable } from 'node:stream';
import { UsageError } from '../errors.js';
import { spreadsheetCell } from '../output/safe.js';
import { FileWriteError, openAtomic, type AtomicFile } from '../util/files.js';
import { cellText, type ResultsWriter } from './results.js';

type Workbook = import('exceljs').stream.xlsx.WorkbookWriter;
type Worksheet = import('exceljs').Worksheet;
type CellValue = string | number | boolean | null;

/** Excel refuses (or "repairs") a cell longer than this. */
const MAX_CELL_CHARS = 32_767;
/** Rows written between looks at how far behind the zip stream is. */
const ROWS_PER_DRAIN = 64;

/** Opens a workbook results file with one sheet named `sheetName`, its first row `columns`. */
export async function openXlsxResults(path: string, columns: readonly string[], sheetName = 'Results'): Promise<ResultsWriter> {
  checkSheetName(sheetName);
  const { default: ExcelJS } = await import('exceljs');
  const file = await openAtomic(path);
  const sink = new FileSink(file);
  try {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: false });
    // An archiver failure becomes the sink's, so that every later call reports it (never unhandled).
    (workbook as unknown as { zip?: NodeJS.EventEmitter }).zip?.on('error', (err: Error) => sink.destroy(err));
    const sheet = workbook.addWorksheet(sheetName, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.addRow(columns.map((c) => textCell(c))).commit();
    return new XlsxResultsWriter(path, [...columns], file, sink, workbook, sheet);
  } catch (err) {
    sink.dropping = true;
    await file.abort();
    throw err;
  }
}

/** The stream the zip reads the sheet's XML from (an exceljs internal; exceljs is pinned to 4). */
interface EntryStream {
  _writableState?: { needDrain?: boolean };
  once(event: 'drain', listener: () => void): unknown;
}

function sheetEntry(sheet: Worksheet): EntryStream | undefined {
  const first = (sheet as unknown as { _stream?: { pipes?: unknown[] } })._stream?.pipes?.[0] as Partial<EntryStream> | undefined;
  return typeof first?.once === 'function' ? (first as EntryStream) : undefined;
}

function checkSheetName(name: string): void {
  if (name.length === 0 || name.length > 31 || /[:\\/?*[\]]/.test(name)) throw new RangeError(`not a usable sheet name: "${name}"`);
}

/** A cell as written: our numbers and booleans as such, everything else as inert text; empty as no value. */
function xlsxCell(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean') return value;
  return textCell(cellText(value));
}

function textCell(text: string): string | null {
  if (text === '') return null;
  const safe = spreadsheetCell(text);
  return safe.length > MAX_CELL_CHARS ? `${safe.slice(0, MAX_CELL_CHARS - 1)}…` : safe;
}

/** The stream exceljs writes the zip into: every chunk goes to the temporary file, in order. */
class FileSink extends Writable {
  failure?: Error;
  /** After abort(): what exceljs still pushes is dropped. */
  dropping = false;
  /** Rejects at the first failure (a write that failed, an archiver error). */
  readonly failed: Promise<never>;

  constructor(private readonly file: AtomicFile) {
    super();
    this.failed = new Promise<never>((_, reject) => this.once('error', reject));
    this.failed.catch(() => undefined);
    this.on('error', (err: Error) => (this.failure ??= err));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.dropping) return done();
    this.file.write(chunk).then(() => {
      done();
      if (this.writableLength === 0) this.emit('idle');
    }, done);
  }

  /** Resolves once the chunks handed to the sink so far are in the file. */
  drained(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.writableLength === 0) return Promise.resolve();
    return Promise.race([new Promise<void>((resolve) => this.once('idle', () => resolve())), this.failed]);
  }
}

class XlsxResultsWriter implements ResultsWriter {
  readonly format = 'xlsx' as const;
  private closed = false;
  private aborted = false;
  private closing?: Promise<void>;
  private sinceDrain = 0;

  constructor(
    readonly path: string,
    private readonly columns: string[],
    private readonly file: AtomicFile,
    private readonly sink: FileSink,
    private readonly workbook: Workbook,
    private readonly sheet: Worksheet,
  ) {}

  async write(row: Readonly<Record<string, unknown>>): Promise<void> {
    if (this.closed) throw new Error('results file already closed');
    if (this.sink.failure) throw this.sink.failure;
    // Added and committed at once (in call order): the row leaves memory for the zip stream.
    this.sheet.addRow(this.columns.map((c) => xlsxCell(row[c]))).commit();
    if (++this.sinceDrain >= ROWS_PER_DRAIN) {
      this.sinceDrain = 0;
      await this.flush();
    }
  }

  /**
   * Waits while the zip stream is behind: exceljs hands committed rows on without waiting, so
   * rows written faster than they are compressed and written would pile up in memory.
   */
  async flush(): Promise<void> {
    const entry = sheetEntry(this.sheet);
    if (entry?._writableState?.needDrain) await Promise.race([new Promise<void>((resolve) => entry.once('drain', () => resolve())), this.sink.failed]);
    else await new Promise<void>((resolve) => setImmediate(resolve));
    await this.sink.drained();
  }

  close(): Promise<void> {
    this.closing ??= this.finish();
    return this.closing;
  }

  private async finish(): Promise<void> {
    if (this.aborted) return;
    this.closed = true;
    try {
      if (this.sink.failure) throw this.sink.failure;
      this.sheet.commit();
      // commit() ends when the sink has finished: every byte of the zip is in the temporary file.
      // A failing sink may reject both; the loser's rejection is expected, not unhandled.
      const committing = this.workbook.commit();
      committing.catch(() => undefined);
      await Promise.race([committing, this.sink.failed]);
    } catch (err) {
      this.sink.dropping = true;
      await this.file.abort(); // the old file stays rather than a partial workbook
      throw err instanceof UsageError ? err : new FileWriteError(this.path, err);
    }
    await this.file.close();
  }

  async abort(): Promise<void> {
    if (this.closing) return;
    this.aborted = true;
    this.closed = true;
    this.sink.dropping = true;
    await this.file.abort();
  }
}
