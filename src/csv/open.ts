// The one door to a patient file: a CSV/TSV/TXT text file or an Excel workbook (.xlsx), chosen by
// extension, read as a stream of rows of text (CsvFile). Every command that reads patients opens
// its file here, so a workbook works wherever a CSV does.
import { extname } from 'node:path';
import { UsageError } from '../errors.js';
import { terminalSafe } from '../output/safe.js';
import { CsvFormatError, openCsv, type CsvErrorReason, type CsvFile } from './reader.js';

export interface OpenPatientFileOptions {
  /** CSV only: a forced delimiter. */
  delimiter?: string;
  /** Workbook only: the sheet's name or 1-based position (default: the first sheet). */
  sheet?: string;
}

/** --delimiter as given: one character, or "tab"; anything else is a usage error. */
export function parseDelimiter(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const delimiter = /^(tab|\\t)$/i.test(raw) ? '\t' : raw;
  if (delimiter.length !== 1) throw new UsageError(`--delimiter "${raw}" must be one character (or "tab").`);
  return delimiter;
}

/** True for a path whose extension says Excel workbook (.xlsx). */
export function isWorkbookPath(path: string): boolean {
  return extname(path).toLowerCase() === '.xlsx';
}

/** The flag given that does not fit the file's kind (--delimiter for a workbook, --sheet for a CSV), as a message. */
export function patientFileOptionProblem(path: string, options: OpenPatientFileOptions): string | undefined {
  const workbook = isWorkbookPath(path);
  if (workbook && options.delimiter !== undefined) return `--delimiter does not apply to an Excel workbook (${path}): its cells are already apart.`;
  if (!workbook && options.sheet !== undefined) return `--sheet applies to an Excel workbook (.xlsx) only; ${path} is read as a CSV file.`;
  return undefined;
}

/**
 * Opens a patient file: headers read, rows to stream. Damage is a CsvFormatError naming the file
 * and line (a workbook's line is its sheet row number), never a cell value.
 */
export async function openPatientFile(path: string, options: OpenPatientFileOptions = {}): Promise<CsvFile> {
  const problem = patientFileOptionProblem(path, options);
  if (problem) throw fileError(path, 'option', problem);
  if (extname(path).toLowerCase() === '.xls') {
    throw fileError(path, 'old_excel', `${path} is an old Excel (.xls) workbook, which is not read; save it as .xlsx (Excel Workbook) or CSV UTF-8 and try again`);
  }
  const [{ openWorkbook }, { fileKind }] = await Promise.all([import('./xlsx.js'), import('./fileKind.js')]);
  if (isWorkbookPath(path)) return openWorkbook(path, { sheet: options.sheet });
  // A workbook under a text name would otherwise be read as garbled text.
  const kind = (await fileKind(path)).kind;
  if (kind === 'zip') throw fileError(path, 'not_workbook', `${path} is an Excel workbook, not a text file: name it .xlsx to have it read as one`);
  if (kind === 'ole') throw fileError(path, 'old_excel', `${path} is an old Excel (.xls) workbook (or an encrypted one), not a text file; save it as .xlsx (Excel Workbook) or CSV UTF-8 and try again`);
  return openCsv(path, { delimiter: options.delimiter });
}

/**
 * The line saying which sheet of a workbook with several is read, when --sheet did not choose it
 * (printed once, on stderr). Undefined for a CSV, a one-sheet workbook, or a sheet chosen by --sheet.
 */
export function sheetNote(file: CsvFile, sheetOption: string | undefined): string | undefined {
  if (sheetOption !== undefined || file.sheet === undefined || (file.sheetCount ?? 1) < 2) return undefined;
  return `Reading sheet "${terminalSafe(file.sheet)}" (${file.sheetNumber} of ${file.sheetCount}; --sheet NAME|N to choose another).`;
}

function fileError(path: string, reason: CsvErrorReason, message: string): CsvFormatError {
  const err = new CsvFormatError(path, undefined, reason, message);
  err.message = message; // it names the file already
  return err;
}
