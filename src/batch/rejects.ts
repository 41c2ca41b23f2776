// `sequences batch --rejects FILE`: the invalid rows as they were — the file's own columns in its
// order, each row's values as read — followed by a `problem` column saying what is wrong with it.
// Fixed in a spreadsheet, the file is uploaded again as it is: header matching passes over
// `problem` (src/csv/headers.ts), and a `problem` column of the input (a rejects file uploaded
// again) is replaced by the new one, not kept. No invalid row: the header alone (a script can
// count the rows). Written like every results file: 0600, atomically, never through a symlink.
import { UsageError } from '../errors.js';
import type { ResultsFormat } from '../csv/results.js';
import type { Problem } from './rows.js';
import { closeRows, openFile, rowsOfFile } from './source.js';
import type { BatchOptions, Checks } from './types.js';

/** The formats --rejects takes: files a person opens and fixes. */
export const REJECTS_FORMATS: readonly ResultsFormat[] = ['csv', 'xlsx'];

/** The lines the rejects file holds: invalid in the checks, or rejected by the create pass. */
export function rejectedLines(checks: Pick<Checks, 'invalid' | 'rejected'>): Set<number> {
  return new Set([...checks.invalid, ...checks.rejected]);
}

/** Writes o.rejects; returns how many rows it holds. */
export async function writeRejects(o: BatchOptions, checks: Checks): Promise<number> {
  const [{ openResults, ResultsFileError }, { joinedColumns, joinedRecord }, { isProblemColumn, PROBLEM_COLUMN }] = await Promise.all([
    import('../csv/results.js'),
    import('../csv/joined.js'),
    import('../csv/headers.js'),
  ]);
  const lines = rejectedLines(checks);
  const problems = problemsByLine(checks.problems, lines);
  const csv = await openFile(o);
  const kept = csv.headers.flatMap((h, i) => (isProblemColumn(h) ? [] : [i]));
  // A column without a name is named by its place in the input (column_7), not in the rejects file.
  const joined = joinedColumns(
    kept.map((i) => (csv.headers[i]!.trim() === '' ? `column_${i + 1}` : csv.headers[i]!)),
    [PROBLEM_COLUMN],
  );
  let out;
  try {
    out = await openResults(o.rejects!, joined.columns, { allowed: REJECTS_FORMATS, flag: '--rejects', sheet: 'Rejects' });
  } catch (err) {
    await closeRows(csv);
    if (err instanceof ResultsFileError) throw new UsageError(err.message);
    throw err;
  }
  let written = 0;
  let complete = false;
  try {
    for await (const { line, values } of rowsOfFile(csv)) {
      if (written === lines.size) break; // the rest of the file holds none
      if (!lines.has(line)) continue;
      const record = joinedRecord(
        joined,
        kept.map((i) => values[i] ?? ''),
        { [PROBLEM_COLUMN]: problems.get(line)?.join('; ') ?? '' },
        [PROBLEM_COLUMN],
      );
      await out.write(record);
      written++;
    }
    complete = true;
  } finally {
    // Every rejected row or none: a file that failed part-way keeps the earlier rejects file.
    if (complete) await out.close();
    else await out.abort();
  }
  return written;
}

/** Each line's errors as a person reads them: the file's column (or the field), then what is wrong. */
export function problemsByLine(problems: readonly Problem[], lines: ReadonlySet<number>): Map<number, string[]> {
  const byLine = new Map<number, string[]>();
  for (const p of problems) {
    if (p.severity !== 'error' || p.line === null || !lines.has(p.line)) continue;
    const label = p.column ?? p.field;
    // The service's words stand as they are when they already name the field.
    const text = label && !p.message.includes(label) ? `${label}: ${p.message}` : p.message;
    const list = byLine.get(p.line) ?? [];
    if (!list.includes(text)) list.push(text);
    byLine.set(p.line, list);
  }
  return byLine;
}
