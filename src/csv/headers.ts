// Loose matching of CSV column headers to row fields, shared by `sequences batch` and
// `eligibility check --csv`. Anything doubtful (a column fitting two fields, two columns fitting
// one field) is reported for the user to settle with --map, never silently picked.

/** A field a column can fill: its own name plus the spellings that mean it. */
export interface Target {
  field: string;
  synonyms?: string[];
  required?: boolean;
}

/** A column assigned to a field; `index` is the column's position in the header. */
export interface ColumnMapping {
  column: string;
  index: number;
  field: string;
}

/** The outcome of matching: usable only when `missingRequired`, `duplicates` and `ambiguous` are empty. */
export interface HeaderMatch {
  mapping: ColumnMapping[];
  ignored: string[];
  missingRequired: string[];
  /** Two or more columns matched the same field. */
  duplicates: Array<{ field: string; columns: string[] }>;
  /** One column matched two or more fields. */
  ambiguous: Array<{ column: string; fields: string[] }>;
}

/** A bad --map option (unknown column or field, malformed); a usage error. */
export class MapOptionError extends Error {
  override name = 'MapOptionError';
}

/** Row keys every `sequences batch` row needs. */
export const BATCH_TARGETS: readonly Target[] = [
  { field: 'firstName', required: true, synonyms: ['first name', 'first_name', 'fname', 'given name', 'patient first name'] },
  { field: 'lastName', required: true, synonyms: ['last name', 'surname', 'family name', 'lname', 'patient last name'] },
  {
    field: 'phoneNumber',
    required: true,
    synonyms: ['phone', 'phone number', 'mobile', 'cell', 'telephone', 'mobile phone', 'cell phone', 'phone_number'],
  },
];

/** Fields of one eligibility check (the flags of `eligibility check`), all required by default. */
export const ELIGIBILITY_TARGETS: readonly Target[] = [
  BATCH_TARGETS[0]!,
  BATCH_TARGETS[1]!,
  { field: 'dateOfBirth', required: true, synonyms: ['dob', 'date of birth', 'birthdate', 'birth date', 'patient dob'] },
  {
    field: 'memberId',
    required: true,
    synonyms: ['member id', 'memberid', 'member number', 'subscriber id', 'insurance id'],
  },
  { field: 'customerPatientId', required: true, synonyms: ['patient id', 'mrn', 'customer patient id', 'patient_id'] },
  { field: 'payerId', required: true, synonyms: ['payer', 'payer id', 'payer_id'] },
  { field: 'providerName', required: true, synonyms: ['provider', 'provider name', 'organization name'] },
  { field: 'npi', required: true, synonyms: ['npi', 'provider npi'] },
];

/** Targets from a sequence definition's inputs_definition: matched by id or by name. */
export function inputTargets(inputs: ReadonlyArray<{ id: string; name?: string; required?: boolean }>): Target[] {
  return inputs.map((i) => ({ field: i.id, synonyms: i.name ? [i.name] : [], required: i.required === true }));
}

/** Lower-cases and drops spaces, `_`, `-` and `.` so "First_Name" and "first name" compare equal. */
export function normaliseHeader(s: string): string {
  return s.toLowerCase().replace(/[\s_\-.]+/g, '');
}

/** Parses one `--map COLUMN=field` value (split at the last `=`; `COLUMN=-` ignores the column). */
export function parseMapOption(option: string): { column: string; field: string } {
  const at = option.lastIndexOf('=');
  const column = at === -1 ? '' : option.slice(0, at).trim();
  const field = at === -1 ? '' : option.slice(at + 1).trim();
  if (!column || !field) {
    throw new MapOptionError(`--map expects COLUMN=field (or COLUMN=- to ignore a column), got "${option}"`);
  }
  return { column, field };
}

/** Turns repeated --map options into the overrides object matchHeaders takes; a column given twice is an error. */
export function parseMapOptions(options: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of options) {
    const { column, field } = parseMapOption(o);
    if (Object.hasOwn(out, column)) throw new MapOptionError(`--map gives column "${column}" twice`);
    out[column] = field;
  }
  return out;
}

/**
 * The column `sequences batch --rejects` adds after the file's own: what is wrong with the row.
 * A rejects file is uploaded again as it is, so a column of that name is passed over silently:
 * never matched to a field (unless --map says so), never listed as ignored.
 */
export const PROBLEM_COLUMN = 'problem';

export function isProblemColumn(header: string): boolean {
  return header.trim().toLowerCase() === PROBLEM_COLUMN;
}

/** The --map field value that means "ignore this column". */
export const IGNORE_FIELD = '-';

/**
 * Matches header columns to targets. `overrides` (column → field, from --map) win over loose
 * matching; a field claimed by an override is not matched loosely to another column.
 * Throws MapOptionError when an override names a column or field that does not exist.
 */
export function matchHeaders(
  headers: readonly string[],
  targets: readonly Target[],
  overrides: Readonly<Record<string, string>> = {},
): HeaderMatch {
  const merged = mergeTargets(targets);
  const byKey = new Map<string, Set<string>>(); // normalised spelling → fields
  for (const t of merged.values()) {
    for (const key of t.keys) {
      if (!byKey.has(key)) byKey.set(key, new Set());
      byKey.get(key)!.add(t.field);
    }
  }

  // Resolve overrides first: column index → field (or IGNORE_FIELD).
  const forced = new Map<number, string>();
  for (const [col, rawField] of Object.entries(overrides)) {
    const index = findColumn(headers, col);
    const field = rawField === IGNORE_FIELD ? IGNORE_FIELD : findField(merged, rawField);
    if (forced.has(index)) throw new MapOptionError(`--map gives column "${headers[index]}" twice`);
    forced.set(index, field);
  }
  const forcedFields = new Set([...forced.values()].filter((f) => f !== IGNORE_FIELD));

  const columnsByField = new Map<string, number[]>();
  const ignored: string[] = [];
  const ambiguous: HeaderMatch['ambiguous'] = [];
  headers.forEach((header, index) => {
    let fields: string[];
    if (forced.has(index)) {
      const f = forced.get(index)!;
      fields = f === IGNORE_FIELD ? [] : [f];
    } else if (isProblemColumn(header)) {
      return;
    } else {
      const key = normaliseHeader(header);
      fields = key ? [...(byKey.get(key) ?? [])].filter((f) => !forcedFields.has(f)) : [];
    }
    if (fields.length === 0) ignored.push(header);
    else if (fields.length > 1) ambiguous.push({ column: header, fields });
    else {
      const f = fields[0]!;
      if (!columnsByField.has(f)) columnsByField.set(f, []);
      columnsByField.get(f)!.push(index);
    }
  });

  const mapping: ColumnMapping[] = [];
  const duplicates: HeaderMatch['duplicates'] = [];
  for (const [field, indexes] of columnsByField) {
    if (indexes.length > 1) duplicates.push({ field, columns: indexes.map((i) => headers[i]!) });
    else mapping.push({ column: headers[indexes[0]!]!, index: indexes[0]!, field });
  }
  mapping.sort((a, b) => a.index - b.index);

  const missingRequired = [...merged.values()]
    .filter((t) => t.required && !columnsByField.has(t.field))
    .map((t) => t.field);

  return { mapping, ignored, missingRequired, duplicates, ambiguous };
}

interface MergedTarget {
  field: string;
  keys: Set<string>;
  required: boolean;
}

// The same field may come twice (a built-in and an input with the same id): merge spellings.
function mergeTargets(targets: readonly Target[]): Map<string, MergedTarget> {
  const merged = new Map<string, MergedTarget>();
  for (const t of targets) {
    const m = merged.get(t.field) ?? { field: t.field, keys: new Set<string>(), required: false };
    for (const s of [t.field, ...(t.synonyms ?? [])]) {
      const k = normaliseHeader(s);
      if (k) m.keys.add(k);
    }
    m.required ||= t.required === true;
    merged.set(t.field, m);
  }
  return merged;
}

// Exact header first, then a unique loose match, so `--map "first name=..."` works too.
function findColumn(headers: readonly string[], col: string): number {
  const exact = headers.indexOf(col);
  if (exact !== -1) return exact;
  const key = normaliseHeader(col);
  const loose = headers.flatMap((h, i) => (normaliseHeader(h) === key ? [i] : []));
  if (loose.length === 1) return loose[0]!;
  const list = headers.map((h) => `"${h}"`).join(', ');
  if (loose.length > 1) throw new MapOptionError(`--map column "${col}" matches several columns (${list}); spell it exactly`);
  throw new MapOptionError(`--map refers to column "${col}", which is not in the file; its columns are ${list}`);
}

// Exact field first, then a loose match on field names only (not synonyms: those are for headers).
function findField(targets: Map<string, MergedTarget>, field: string): string {
  if (targets.has(field)) return field;
  const key = normaliseHeader(field);
  const loose = [...targets.keys()].filter((f) => normaliseHeader(f) === key);
  if (loose.length === 1) return loose[0]!;
  throw new MapOptionError(
    `--map refers to field "${field}", which is not known; fields are ${[...targets.keys()].join(', ')} (or - to ignore the column)`,
  );
}

/**
 * The one report of header problems for every command that reads a patient file: columns that
 * match a field twice, a column that could be two fields, and (unless the caller asks for them
 * interactively) required fields with no column. A usage error (exit 2) naming the file and its
 * header line, or undefined when the header is usable. `describe` may add what a field means.
 */
export function headerProblemsError(
  file: string,
  headerLine: number,
  match: HeaderMatch,
  opts: { missing: boolean; describe?: (field: string) => string; fields: readonly string[] },
): UsageErrorLike | undefined {
  const describe = opts.describe ?? ((f: string) => f);
  const problems = [
    ...(opts.missing ? match.missingRequired.map((f) => `no column for ${describe(f)}`) : []),
    ...match.duplicates.map((d) => `columns ${d.columns.map((c) => `"${c}"`).join(' and ')} all match ${d.field}`),
    ...match.ambiguous.map((a) => `column "${a.column}" could be ${a.fields.join(' or ')}`),
  ];
  if (!problems.length) return undefined;
  const example = match.missingRequired[0] ? `--map "${match.ignored[0] ?? 'COLUMN'}=${match.missingRequired[0]}"` : '--map "COLUMN=field"';
  return {
    message: `${file}, line ${headerLine}: ${problems.join('; ')}. Nothing was sent.`,
    hint: `Rename the columns, or say which column feeds which field with ${example} (COLUMN=- ignores a column). Fields: ${opts.fields.join(', ')}.`,
  };
}

/** A message and hint for a UsageError (kept free of the errors module so this file stays pure). */
export interface UsageErrorLike {
  message: string;
  hint: string;
}
