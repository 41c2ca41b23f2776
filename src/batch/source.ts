// The patient file as the batch passes read it: a fresh streamed read per pass (memory stays flat),
// CSV damage as a usage error (exit 2), and the error for a file edited since the journal began.
import { UsageError } from '../errors.js';
import type { CsvFile, CsvRow } from '../csv/reader.js';
import { headersHash } from './journal.js';
import type { BatchOptions } from './types.js';

export async function openFile(o: BatchOptions): Promise<CsvFile> {
  const [{ openPatientFile }, { CsvFormatError }] = await Promise.all([import('../csv/open.js'), import('../csv/reader.js')]);
  try {
    return await openPatientFile(o.file, { delimiter: o.delimiter, sheet: o.sheet });
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
}

export async function closeRows(csv: CsvFile): Promise<void> {
  await csv.rows[Symbol.asyncIterator]().return?.();
}

/** Iterates the rows of a fresh read of the file; CSV damage becomes a usage error (exit 2). */
export async function* rowsOf(o: BatchOptions, hdrHash?: string): AsyncGenerator<CsvRow> {
  const csv = await openFile(o);
  if (hdrHash && headersHash(csv.headers) !== hdrHash) throw new UsageError(`${o.file} changed while the batch was running (its columns differ).`);
  yield* rowsOfFile(csv);
}

/** The rows of a file already opened (its header read); CSV damage becomes a usage error. */
export async function* rowsOfFile(csv: CsvFile): AsyncGenerator<CsvRow> {
  const { CsvFormatError } = await import('../csv/reader.js');
  try {
    for await (const row of csv.rows) yield row;
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
}

export function changedFile(o: BatchOptions, line: number): UsageError {
  return new UsageError(
    `${o.file}, line ${line}: the row is not the one the journal recorded for this line (the file was edited since the earlier run). ` +
      'Resume with the file exactly as it was, so that no patient is contacted twice.',
  );
}
