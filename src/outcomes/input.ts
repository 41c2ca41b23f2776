// The patient file of `sequences outcomes`, read once (through the one door, csv/open.ts) and
// checked to be the file the batch uploaded: the same header (its hash in the journal) and, on
// every line the journal sent, the same phone number (its keyed hash, src/journal/hashing.ts).
// Joining a patient to another patient's sequence must never happen: any difference is a usage
// error naming the line, never the value.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { ColumnMapping } from '../csv/headers.js';
import type { BatchFates } from './source.js';

export interface InputOptions {
  file: string;
  sheet?: string;
  delimiter?: string;
  /** The batch's --map flags: only those for the name and phone columns matter here. */
  map: string[];
  country: string;
}

export interface InputRow {
  line: number;
  values: string[];
}

export interface InputFile {
  headers: string[];
  rows: InputRow[];
  /** Where the first name, last name and phone number are, when the header says so. */
  people: { firstName?: ColumnMapping; lastName?: ColumnMapping; phoneNumber?: ColumnMapping };
}

const PEOPLE_FIELDS = ['firstname', 'lastname', 'phonenumber'];

export async function readInput(ctx: Context, o: InputOptions, fates: BatchFates): Promise<InputFile> {
  const [{ openPatientFile }, { CsvFormatError }] = await Promise.all([import('../csv/open.js'), import('../csv/reader.js')]);
  let csv;
  try {
    csv = await openPatientFile(o.file, { delimiter: o.delimiter, sheet: o.sheet });
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
  const journal = fates.source.journal;
  const rows: InputRow[] = [];
  // One iterator, closed on any error (a file stopped early releases its stream).
  const iterator = csv.rows[Symbol.asyncIterator]();
  try {
    const { headersHash } = await import('../batch/journal.js');
    if (fates.begin && fates.begin.headers !== headersHash(csv.headers)) {
      throw new UsageError(`${o.file} does not have the columns it had when it was uploaded (journal ${journal}): it is not the file of that batch.`);
    }
    const people = await matchPeople(o, csv.headers, csv.headerLine, fates.phones.size > 0);
    const check = fates.phones.size > 0 ? await phoneCheck(ctx, o, fates, people.phoneNumber!.index) : undefined;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      check?.(next.value.line, next.value.values);
      rows.push({ line: next.value.line, values: next.value.values });
    }
    const seen = new Set(rows.map((r) => r.line));
    const missing = [...fates.phones.keys(), ...fates.created.keys(), ...fates.resultLines].find((l) => !seen.has(l));
    if (missing !== undefined) {
      throw new UsageError(`${o.file} has no line ${missing}, which the batch uploaded (${journal ?? fates.source.results}): it is not the file of that batch, or it was edited since.`);
    }
    return { headers: csv.headers, rows, people };
  } catch (err) {
    await iterator.return?.();
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
}

/** The name and phone columns, matched as the batch matched them (with its --map flags for them). */
async function matchPeople(o: InputOptions, headers: string[], headerLine: number, needPhone: boolean): Promise<InputFile['people']> {
  const { BATCH_TARGETS, IGNORE_FIELD, matchHeaders, normaliseHeader, parseMapOption, parseMapOptions, MapOptionError } = await import('../csv/headers.js');
  let match;
  try {
    // The batch's other --map flags (its definition's inputs) are accepted and left out here.
    const mine = o.map.filter((m) => {
      const { field } = parseMapOption(m);
      return field === IGNORE_FIELD || PEOPLE_FIELDS.includes(normaliseHeader(field));
    });
    match = matchHeaders(headers, BATCH_TARGETS, parseMapOptions(mine));
  } catch (err) {
    if (err instanceof MapOptionError) throw new UsageError(err.message);
    throw err;
  }
  const of = (field: string) => match.mapping.find((m) => m.field === field);
  const people = { firstName: of('firstName'), lastName: of('lastName'), phoneNumber: of('phoneNumber') };
  if (needPhone && !people.phoneNumber) {
    const dup = match.duplicates.find((d) => d.field === 'phoneNumber');
    const amb = match.ambiguous.find((a) => a.fields.includes('phoneNumber'));
    const why = dup
      ? `columns ${dup.columns.map((c) => `"${c}"`).join(' and ')} all look like the phone number`
      : amb
        ? `column "${amb.column}" could be ${amb.fields.join(' or ')}`
        : 'no column looks like the phone number';
    throw new UsageError(`${o.file}, line ${headerLine}: ${why}, so its rows cannot be matched to the upload.`, {
      hint: 'Give the --map flags the batch was given, e.g. --map "Cell=phoneNumber".',
    });
  }
  return people;
}

/** A check of each row's phone against the hash the journal recorded for its line. */
async function phoneCheck(ctx: Context, o: InputOptions, fates: BatchFates, phoneIndex: number): Promise<(line: number, values: string[]) => void> {
  const [{ normalisePhone, isSupportedCountry }, { journalHashing }, { configDir }] = await Promise.all([
    import('../csv/phone.js'),
    import('../journal/hashing.js'),
    import('../config/profiles.js'),
  ]);
  if (!isSupportedCountry(o.country)) throw new UsageError(`--country "${o.country}" is not a known country code (use two letters, e.g. US, CA, GB).`);
  const journal = fates.source.journal!;
  const hashing = journalHashing(fates.begin, configDir(ctx.env), journal);
  return (line, values) => {
    const expected = fates.phones.get(line);
    if (expected === undefined) return;
    const phone = normalisePhone(values[phoneIndex] ?? '', o.country);
    if (!phone.ok || hashing.hash(phone.e164) !== expected) {
      throw new UsageError(
        `${o.file}, line ${line}: the phone number is not the one uploaded on this line (journal ${journal}). ` +
          'The file was edited since the upload, or it is another file; outcomes are joined only to the file as it was uploaded.',
        { hint: 'Use the file exactly as it was uploaded (and the --country the batch was given).' },
      );
    }
  };
}
