// Excel workbooks (.xlsx) read as a patient file: one sheet's rows as text (cellText.ts), in the
// CsvFile shape of the CSV reader, so everything after the reading is the same for both.
//
// exceljs's streaming reader does the parsing (workbookReader.ts): memory stays flat with the number
// of rows, except for the workbook's shared strings (every distinct text of the workbook), which are
// kept, compactly (stringTable.ts; see bench/README.md). exceljs parks each sheet's XML in a
// temporary file (0600, removed when the sheet has been read or left, or at exit) and reads it once
// the zip has been read.
//
// Lines are sheet row numbers. Errors name the file, sheet, row and column letter, never a cell value.

import type WorkbookReader from 'exceljs/lib/stream/xlsx/workbook-reader.js';
import { terminalSafe } from '../output/safe.js';
import { cellText, type CellTextOptions } from './cellText.js';
import { fileKind } from './fileKind.js';
import { CsvFormatError, type CsvErrorReason, type CsvFile, type CsvRow } from './reader.js';
import { leave, openBook, progressOf, workbookError, type Sheet } from './workbookReader.js';

export interface OpenWorkbookOptions {
  /** The sheet's name (exact, then ignoring case) or 1-based position in tab order; default the first. */
  sheet?: string;
}

interface SheetRow {
  number: number;
  /** Non-empty cells: 1-based column and text. */
  cells: Array<{ column: number; text: string }>;
}

/** Opens a workbook: the sheet chosen, its header read, its rows to stream (iterate `rows` once). */
export async function openWorkbook(path: string, options: OpenWorkbookOptions = {}): Promise<CsvFile> {
  const size = await checkIsZip(path);
  const book = await openBook(path);
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
      throw workbookError(path, 'not_workbook', `${path} could not be read completely (${missing.join(' and ')} not reached); open it in Excel and save it again`);
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

/** The sheet --sheet names (a name, exactly then ignoring case, or a 1-based number), else the first. */
function chooseSheet(sheets: Sheet[], wanted: string | undefined, path: string): Sheet {
  if (wanted === undefined) {
    const first = sheets.find((s) => s.worksheet && !s.hidden) ?? sheets.find((s) => s.worksheet);
    if (!first) throw workbookError(path, 'no_sheet', `${path} has no sheet of cells (only charts?)`);
    return first;
  }
  const folded = wanted.trim().toLowerCase();
  const sheet =
    sheets.find((s) => s.name === wanted) ??
    sheets.find((s) => s.name.trim().toLowerCase() === folded) ??
    (/^\d+$/.test(wanted.trim()) ? sheets[Number(wanted) - 1] : undefined);
  if (!sheet) {
    const names = sheets.map((s) => `${s.number} "${terminalSafe(s.name)}"`).join(', ');
    throw workbookError(path, 'no_sheet', `${path} has no sheet "${terminalSafe(wanted)}"; its sheets: ${names} (--sheet takes a name or a number)`);
  }
  if (!sheet.worksheet) throw sheetError(path, sheet, 'no_sheet', 'the sheet is a chart, not rows of cells');
  return sheet;
}

/** The other worksheets with at least one non-empty row (a second read; only when the chosen one is empty). */
async function sheetsWithData(path: string, except: Sheet): Promise<Sheet[]> {
  const book = await openBook(path);
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
      throw workbookError(
        path,
        'encrypted',
        `${path} cannot be read: it is a password-protected (encrypted) workbook, or an old Excel (.xls) workbook named .xlsx; remove the password (File > Info > Protect Workbook) or save it as .xlsx (Excel Workbook) or CSV UTF-8 and try again`,
      );
    case 'text':
      throw workbookError(path, 'not_workbook', `${path} is not an Excel workbook although its name ends in .xlsx: it is a text file (a CSV renamed?); give a CSV file a .csv name`);
    default:
      throw workbookError(path, 'not_workbook', `${path} is not an Excel workbook although its name ends in .xlsx; save it from Excel as .xlsx (Excel Workbook) or CSV UTF-8 and try again`);
  }
}

function sheetError(path: string, sheet: Sheet, reason: CsvErrorReason, detail: string): CsvFormatError {
  return workbookError(path, reason, `${path}, sheet "${terminalSafe(sheet.name)}": ${detail}`);
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
  return workbookError(path, 'not_workbook', `${path}${where ? `, ${where}` : ''}: the workbook is damaged (its zip or XML could not be read); open it in Excel and save it again`);
}
