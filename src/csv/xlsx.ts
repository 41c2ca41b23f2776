// Excel workbooks (.xlsx) read as a patient file: one sheet's rows as text (cellText.ts), in the
// CsvFile shape of the CSV reader, so everything after the reading is the same for both.
//
// exceljs's streaming reader does the parsing: memory stays flat with the number of rows, except for
// the workbook's shared strings (every distinct text of the workbook), which are kept, compactly
// (stringTable.ts; see bench/README.md). exceljs parks each sheet's XML in a temporary file (0600,
// removed when the sheet has been read or left, or at exit) and reads it once the zip has been read.
//
// Lines are sheet row numbers. Errors name the file, sheet, row and column letter, never a cell value.

import { createReadStream, statSync, type ReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type WorkbookReader from 'exceljs/lib/stream/xlsx/workbook-reader.js';
import { terminalSafe } from '../output/safe.js';
import { cellText, type CellTextOptions } from './cellText.js';
import { StringTable } from './stringTable.js';
import { CsvFormatError, type CsvErrorReason, type CsvFile, type CsvRow } from './reader.js';

export interface OpenWorkbookOptions {
  /** The sheet's name (exact, then ignoring case) or 1-based position in tab order; default the first. */
  sheet?: string;
}

/** A sheet as xl/workbook.xml lists it, in tab order. */
interface Sheet {
  name: string;
  number: number;
  /** Its part in the zip (xl/worksheets/sheet1.xml); undefined when no relationship names one. */
  part?: string;
  /** False for a chart sheet (or anything else that holds no cells). */
  worksheet: boolean;
  hidden: boolean;
}

interface SheetRow {
  number: number;
  /** Non-empty cells: 1-based column and text. */
  cells: Array<{ column: number; text: string }>;
}

// Shared strings are emitted one by one and kept here (StringTable), not in exceljs's array.
const READER_OPTIONS = { worksheets: 'emit', sharedStrings: 'emit', styles: 'cache', hyperlinks: 'ignore', entries: 'emit' } as const;

/** Opens a workbook: the sheet chosen, its header read, its rows to stream (iterate `rows` once). */
export async function openWorkbook(path: string, options: OpenWorkbookOptions = {}): Promise<CsvFile> {
  const size = await checkIsZip(path);
  const book = await openReader(path);
  let sheet: Sheet | undefined;
  let rowsOf: AsyncIterator<WorkbookReader.Row>;
  let sheetBytes: (() => { read: number; size: number }) | undefined;
  try {
    let found: WorkbookReader.WorksheetReader | undefined;
    for (let ws = await book.next(); ws; ws = await book.next()) {
      sheet ??= chooseSheet(book.sheets(), options.sheet, path);
      if (ws.sheet === sheet) {
        found = ws.reader;
        break;
      }
      leave(ws.reader);
    }
    sheet ??= chooseSheet(book.sheets(), options.sheet, path);
    if (!found) throw sheetError(path, sheet, 'no_sheet', 'its cells are missing from the workbook (the file is damaged?)');
    const missing = book.unread();
    if (missing.length) {
      throw wholeFileError(path, 'not_workbook', `${path} could not be read completely (${missing.join(' and ')} not reached); open it in Excel and save it again`);
    }
    rowsOf = found[Symbol.asyncIterator]();
    sheetBytes = progressOf(found.iterator);
  } catch (err) {
    await book.close();
    throw asWorkbookError(err, path);
  }
  const chosen = sheet!;
  const cellOptions = book.cellOptions();
  let lastRow = 0;

  async function nextRow(): Promise<SheetRow | undefined> {
    for (;;) {
      const cells: SheetRow['cells'] = [];
      let step: IteratorResult<WorkbookReader.Row>;
      try {
        step = await rowsOf.next();
        if (step.done) return undefined;
        lastRow = step.value.number;
        step.value.eachCell((cell, column) => {
          const text = cellText(cell, cellOptions);
          if (text !== '') cells.push({ column, text });
        });
      } catch (err) {
        throw asWorkbookError(err, path, `sheet "${terminalSafe(chosen.name)}", after row ${lastRow}`);
      }
      if (cells.some((c) => c.text.trim() !== '')) return { number: step.value.number, cells }; // blank rows are skipped, as in a CSV
    }
  }

  let header: SheetRow | undefined;
  let columns: { first: number; last: number };
  try {
    header = await nextRow();
    if (!header) {
      const elsewhere = await sheetsWithData(path, chosen);
      const hint = elsewhere.length ? `; ${elsewhere.map((s) => `sheet ${s.number} "${terminalSafe(s.name)}"`).join(' and ')} ${elsewhere.length === 1 ? 'has' : 'have'} rows: choose with --sheet NAME|N` : '';
      throw sheetError(path, chosen, 'empty_sheet', `the sheet is empty (no header row)${hint}`);
    }
    columns = headerColumns(path, chosen, header);
  } catch (err) {
    await book.close();
    throw err;
  }
  const width = columns.last - columns.first + 1;
  const headers = Array.from({ length: width }, (_, i) => header.cells.find((c) => c.column === columns.first + i)!.text.trim());

  function toRow(row: SheetRow): CsvRow {
    const values = new Array<string>(width).fill('');
    for (const { column, text } of row.cells) {
      if (column >= columns.first && column <= columns.last) values[column - columns.first] = text;
      else if (text.trim() !== '') {
        throw placeError(
          path,
          chosen,
          row.number,
          column,
          'unnamed_column',
          `the row has a value in a column with no header (a title row or merged cells above the column names?); name the column in row ${header!.number} or delete the value`,
        );
      }
    }
    return { line: row.number, values };
  }

  let consumed = false;
  const rows: AsyncIterable<CsvRow> = {
    [Symbol.asyncIterator]() {
      if (consumed) throw new Error('openWorkbook rows can be iterated only once');
      consumed = true;
      return {
        async next(): Promise<IteratorResult<CsvRow>> {
          let row: SheetRow | undefined;
          try {
            row = await nextRow();
            if (row) return { done: false, value: toRow(row) };
            await book.finish(); // the reader removes its temporary files as it goes on to the end
          } catch (err) {
            await book.close();
            throw err;
          }
          return { done: true, value: undefined };
        },
        async return(): Promise<IteratorResult<CsvRow>> {
          await book.close();
          return { done: true, value: undefined };
        },
      };
    },
  };

  const bytes = sheetBytes ?? (() => ({ read: book.bytesRead(), size }));
  return {
    headers,
    headerLine: header.number,
    delimiter: ',',
    encoding: 'utf-8',
    rows,
    bytes,
    sheet: chosen.name,
    sheetNumber: chosen.number,
    sheetCount: book.sheets().length,
  };
}

/** The header's columns: from the first named one to the last, with no empty one between. */
function headerColumns(path: string, sheet: Sheet, header: SheetRow): { first: number; last: number } {
  const named = header.cells.filter((c) => c.text.trim() !== '').map((c) => c.column);
  const first = Math.min(...named);
  const last = Math.max(...named);
  for (let column = first; column <= last; column++) {
    if (!named.includes(column)) {
      throw placeError(path, sheet, header.number, column, 'empty_header_cell', 'the header cell is empty (merged cells?); give the column a name or delete it');
    }
  }
  return { first, last };
}

/**
 * A streaming read of the workbook: `next` gives the worksheets in zip order (each to read or to
 * `leave`), with the sheet of the list each is; `finish` reads on to the end (so the reader removes
 * its temporary files); `close` stops early, removing them too when the zip has been read.
 */
async function openReader(path: string) {
  const { default: Reader } = await import('exceljs/lib/stream/xlsx/workbook-reader.js');
  const input = createReadStream(path);
  input.on('error', () => {}); // surfaces through the parse below
  const reader = new Reader(endOnlyWhenRead(input), READER_OPTIONS);
  // The 'entry' event for a worksheet names its part just before the worksheet itself comes out.
  let part: string | undefined;
  const seen = new Set<string>();
  reader.on('entry', (e: { type: string; id?: string }) => {
    seen.add(e.type);
    if (e.type === 'worksheet') part = `xl/worksheets/sheet${e.id}.xml`;
  });
  const events = reader.parse();
  const strings = new StringTable();
  let current: WorkbookReader.WorksheetReader | undefined;
  let listed: Sheet[] | undefined;
  const sheets = (): Sheet[] => (listed ??= sheetList(reader, path));

  return {
    sheets,
    /** What cellText needs of the workbook (read once the first sheet has come out). */
    cellOptions: () => ({ date1904: Boolean(reader.properties?.model?.date1904), sharedString: (i: number) => strings.get(i) }),
    bytesRead: () => input.bytesRead,
    /**
     * The shared strings or styles the workbook has but the reader has not read before the sheet:
     * its cells would silently lose their text, or dates their format (see endOnlyWhenRead).
     */
    unread(): string[] {
      const has = (type: string) => (reader.workbookRels ?? []).some((r) => r.Type.endsWith(`/${type}`));
      const parts: string[] = [];
      if (has('sharedStrings') && !seen.has('shared-strings')) parts.push('its text table xl/sharedStrings.xml');
      if (has('styles') && !seen.has('styles')) parts.push('its formats xl/styles.xml');
      return parts;
    },
    async next(): Promise<{ sheet?: Sheet; reader: WorkbookReader.WorksheetReader } | undefined> {
      for (let step = await events.next(); !step.done; step = await events.next()) {
        const event = step.value;
        if (event.eventType === undefined) {
          if (event.index !== strings.size) throw new Error('shared strings out of order');
          strings.add(sharedText(event.text));
        } else if (event.eventType === 'worksheet') {
          current = event.value;
          return { sheet: sheets().find((s) => s.part === part), reader: current };
        }
      }
      current = undefined;
      return undefined;
    },
    async finish(): Promise<void> {
      for (let ws = await this.next(); ws; ws = await this.next()) leave(ws.reader);
    },
    async close(): Promise<void> {
      if (current) leave(current);
      current = undefined;
      if (input.readableEnded) {
        // Only sheets parked in temporary files are left: going on to the end leaves each and has
        // the reader delete its file, instead of keeping patient rows in the temporary directory.
        await this.finish().catch(() => undefined);
        return;
      }
      input.destroy();
      await events.return(undefined).catch(() => undefined);
    },
  };
}

// A shared string's text: rich text runs joined (their fonts are of no use here).
function sharedText(text: WorkbookReader.SharedString['text']): string {
  if (text === null) return '';
  if (typeof text === 'string') return text;
  return text.richText.map((run) => run.text ?? '').join('');
}

// exceljs 4 unzips with unzipper 0.10, whose Parse emits 'end' as soon as the whole zip has been
// written into it, although entries it has parsed may still wait to be read; exceljs then stops
// before them. After a sheet parked in a temporary file, the small parts that follow (the shared
// strings, the styles, other sheets) were lost at random: cells without their text. Parse ends its
// readable side itself when the entries have all been read; its early 'end' listener is removed as
// exceljs pipes the file into it. (Should a version change that listener, unread() still refuses
// a sheet read without its strings or styles.)
function endOnlyWhenRead(input: ReadStream): ReadStream {
  const pipe = input.pipe.bind(input);
  input.pipe = (<T extends NodeJS.WritableStream>(dest: T, options?: { end?: boolean }): T => {
    const emitter = dest as unknown as NodeJS.EventEmitter;
    for (const listener of emitter.listeners('finish')) {
      if (/emit\(['"]end['"]\)/.test(String(listener))) emitter.removeListener('finish', listener as (...args: unknown[]) => void);
    }
    return pipe(dest, options);
  }) as typeof input.pipe;
  return input;
}

// A sheet not read: its parked temporary file's stream is closed (the reader then deletes the file;
// should the file go before the stream has opened it, the ENOENT is of no interest); an unparked
// one is drained by the reader itself.
function leave(sheet: WorkbookReader.WorksheetReader): void {
  const it = sheet.iterator as Partial<ReadStream> | undefined;
  if (typeof it?.destroy !== 'function') return;
  it.on?.('error', () => undefined);
  it.destroy();
}

// Progress through a sheet parked in a temporary file; undefined when the sheet is read straight
// from the zip (the caller then counts the zip's bytes).
function progressOf(iterator: unknown): (() => { read: number; size: number }) | undefined {
  const stream = iterator as Partial<ReadStream> | undefined;
  if (typeof stream?.path !== 'string' || typeof stream.bytesRead !== 'number') return undefined;
  let size = 0;
  try {
    size = statSync(stream.path).size;
  } catch {
    return undefined;
  }
  return () => ({ read: stream.bytesRead ?? 0, size });
}

/** The sheets xl/workbook.xml lists, in tab order, with the zip part each relationship names. */
function sheetList(reader: WorkbookReader, path: string): Sheet[] {
  const listed = reader.model?.sheets;
  if (!listed) throw wholeFileError(path, 'not_workbook', `${path} is a zip file but not an Excel workbook (it has no xl/workbook.xml sheet list)`);
  const rels = reader.workbookRels ?? [];
  return listed.map((s, i) => {
    const rel = rels.find((r) => r.Id === s.rId);
    return {
      name: s.name ?? '',
      number: i + 1,
      part: rel ? partPath(rel.Target) : undefined,
      worksheet: rel !== undefined && /\/worksheet$/.test(rel.Type),
      hidden: s.state === 'hidden' || s.state === 'veryHidden',
    };
  });
}

// Excel writes targets relative to xl/ ("worksheets/sheet1.xml"); other writers from the package
// root ("/xl/worksheets/sheet1.xml").
function partPath(target: string): string {
  const parts: string[] = target.startsWith('/') ? [] : ['xl'];
  for (const p of target.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '' && p !== '.') parts.push(p);
  }
  return parts.join('/');
}

/** The sheet --sheet names (a name, exactly then ignoring case, or a 1-based number), else the first. */
function chooseSheet(sheets: Sheet[], wanted: string | undefined, path: string): Sheet {
  if (wanted === undefined) {
    const first = sheets.find((s) => s.worksheet && !s.hidden) ?? sheets.find((s) => s.worksheet);
    if (!first) throw wholeFileError(path, 'no_sheet', `${path} has no sheet of cells (only charts?)`);
    return first;
  }
  const folded = wanted.trim().toLowerCase();
  const sheet =
    sheets.find((s) => s.name === wanted) ??
    sheets.find((s) => s.name.trim().toLowerCase() === folded) ??
    (/^\d+$/.test(wanted.trim()) ? sheets[Number(wanted) - 1] : undefined);
  if (!sheet) {
    const names = sheets.map((s) => `${s.number} "${terminalSafe(s.name)}"`).join(', ');
    throw wholeFileError(path, 'no_sheet', `${path} has no sheet "${terminalSafe(wanted)}"; its sheets: ${names} (--sheet takes a name or a number)`);
  }
  if (!sheet.worksheet) throw sheetError(path, sheet, 'no_sheet', 'the sheet is a chart, not rows of cells');
  return sheet;
}

/** The other worksheets with at least one non-empty row (a second read; only when the chosen one is empty). */
async function sheetsWithData(path: string, except: Sheet): Promise<Sheet[]> {
  const book = await openReader(path);
  const found: Sheet[] = [];
  try {
    for (let ws = await book.next(); ws; ws = await book.next()) {
      if (!ws.sheet?.worksheet || ws.sheet.number === except.number) leave(ws.reader);
      else if (await hasData(ws.reader, book.cellOptions())) found.push(ws.sheet);
    }
  } catch {
    // a damaged other sheet: no suggestion
  } finally {
    await book.close();
  }
  return found.sort((a, b) => a.number - b.number);
}

async function hasData(sheet: WorkbookReader.WorksheetReader, options: CellTextOptions): Promise<boolean> {
  for await (const row of sheet) {
    let any = false;
    row.eachCell((cell) => (any ||= cellText(cell, options).trim() !== ''));
    if (any) return true;
  }
  return false;
}

/** The first bytes say zip (an .xlsx), OLE (encrypted, or an old .xls renamed) or something else. */
async function checkIsZip(path: string): Promise<number> {
  const kind = await fileKind(path);
  switch (kind.kind) {
    case 'zip':
      return kind.size;
    case 'unreadable':
      throw new CsvFormatError(path, undefined, 'unreadable', `cannot read the file (${kind.code})`);
    case 'empty':
      throw new CsvFormatError(path, undefined, 'empty', 'the file is empty');
    case 'ole':
      throw wholeFileError(
        path,
        'encrypted',
        `${path} cannot be read: it is a password-protected (encrypted) workbook, or an old Excel (.xls) workbook named .xlsx; remove the password (File > Info > Protect Workbook) or save it as .xlsx (Excel Workbook) or CSV UTF-8 and try again`,
      );
    case 'text':
      throw wholeFileError(path, 'not_workbook', `${path} is not an Excel workbook although its name ends in .xlsx: it is a text file (a CSV renamed?); give a CSV file a .csv name`);
    default:
      throw wholeFileError(path, 'not_workbook', `${path} is not an Excel workbook although its name ends in .xlsx; save it from Excel as .xlsx (Excel Workbook) or CSV UTF-8 and try again`);
  }
}

export type FileKind = { kind: 'zip' | 'ole' | 'text' | 'other' | 'empty'; size: number } | { kind: 'unreadable'; code: string };

/** What a file is by its first bytes: a zip (.xlsx), an OLE compound file (.xls, encrypted .xlsx), text. */
export async function fileKind(path: string): Promise<FileKind> {
  let head: Buffer;
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) return { kind: 'unreadable', code: 'EISDIR' };
    size = info.size;
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(512, size));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      head = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch (err) {
    return { kind: 'unreadable', code: String((err as { code?: string }).code ?? 'error') };
  }
  if (head.length === 0) return { kind: 'empty', size };
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return { kind: 'zip', size };
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) return { kind: 'ole', size };
  // Text: no NUL byte and no other control character than tab and line endings (UTF-16 has NULs).
  const text = !head.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
  return { kind: text ? 'text' : 'other', size };
}

function wholeFileError(path: string, reason: CsvErrorReason, message: string): CsvFormatError {
  const err = new CsvFormatError(path, undefined, reason, message);
  err.message = message; // the message starts with the file's name already
  return err;
}

function sheetError(path: string, sheet: Sheet, reason: CsvErrorReason, detail: string): CsvFormatError {
  return wholeFileError(path, reason, `${path}, sheet "${terminalSafe(sheet.name)}": ${detail}`);
}

function placeError(path: string, sheet: Sheet, row: number, column: number, reason: CsvErrorReason, detail: string): CsvFormatError {
  const err = new CsvFormatError(path, row, reason, detail);
  err.message = `${path}, sheet "${terminalSafe(sheet.name)}", row ${row}, column ${columnLetter(column)}: ${detail}`;
  return err;
}

/** 1 → A, 27 → AA. */
export function columnLetter(column: number): string {
  let s = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

// exceljs and its zip and XML parsers throw plain Errors whose messages may quote the XML (cell
// values): only that the workbook is damaged is said, and where.
function asWorkbookError(err: unknown, path: string, where?: string): Error {
  if (err instanceof CsvFormatError) return err;
  const code = (err as { code?: string })?.code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return new CsvFormatError(path, undefined, 'unreadable', `cannot read the file (${code})`);
  return wholeFileError(path, 'not_workbook', `${path}${where ? `, ${where}` : ''}: the workbook is damaged (its zip or XML could not be read); open it in Excel and save it again`);
}
