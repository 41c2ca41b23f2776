// What a batch answer says about each row of the chunk it answers, read from everything it says
// and never guessed (CLI.md, Batch upload, point 5):
// - created: its `created` entry says so, or `created_count` covers every row no error names;
// - invalid: an error names it (its row reference resolved without doubt);
// - unknown: anything else — the service neither confirmed nor named it.
// Error and warning items may have any shape (API.md does not show it): strings ("Row 2: ..."),
// {rowIndex, field, message}, {rowIndex, errors: [...]}, {row, message} ... Each message becomes one
// Problem. Row references other than `rowIndex` (zero-based in API.md) may be 0- or 1-based: the
// base is learnt from the answers (a 0, or the chunk's size, or consistency with `created`) and
// kept for the run; until then a reference that could mean two rows is reported as such, on no line.
import type { BatchRow } from '../api/types.js';
import { readInt } from '../api/read.js';
import type { BatchResult } from '../api/sequences.js';
import type { Problem } from './rows.js';
import { plural } from '../output/plural.js';

export type Numbering = 'zero' | 'one';

/** The run's knowledge of how the service numbers rows in errors (learnt once, kept). */
export interface NumberingState {
  base?: Numbering;
}

/** A row reference as written by the service, before it is resolved to a row of the chunk. */
interface RowRef {
  value: number;
  /** `rowIndex` is zero-based (API.md); other keys and "Row N" texts may be either. */
  known: boolean;
}

interface Issue {
  ref?: RowRef;
  field: string;
  code?: string;
  message: string;
}

const ZERO_BASED_KEYS = ['rowIndex', 'row_index'] as const;
const OTHER_ROW_KEYS = ['row', 'index', 'rowNumber', 'row_number', 'line'] as const;
const FIELD_KEYS = ['field', 'column', 'key', 'path', 'property', 'param'] as const;
const MESSAGE_KEYS = ['message', 'msg', 'error', 'detail', 'description', 'reason', 'text'] as const;
const LIST_KEYS = ['errors', 'messages', 'warnings', 'details', 'issues'] as const;
const CODE_KEYS = ['code', 'type', 'kind'] as const;
const NO_REASON = 'rejected by the service (no reason given)';

function first(o: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null && o[k] !== '') return o[k];
  return undefined;
}

/** "Row 2: phoneNumber ... is not valid", "row #3 - ...", "Line 4: ..." */
const ROW_TEXT = /^\s*(?:row|line)\s*#?\s*(\d+)\s*[:\-–]\s*/i;

function plainText(o: Record<string, unknown>): string {
  const parts = Object.entries(o)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return parts.join('; ');
}

/** Every message in one error or warning item, flattened (an item may carry a list of them). */
export function readIssues(item: unknown, inherited?: RowRef): Issue[] {
  if (typeof item === 'string') {
    const m = item.match(ROW_TEXT);
    if (m) return [{ ref: { value: Number(m[1]), known: false }, field: leadingField(item.slice(m[0].length)), message: item.trim() }];
    return [{ ref: inherited, field: leadingField(item), message: item.trim() || NO_REASON }];
  }
  if (!item || typeof item !== 'object') {
    return [{ ref: inherited, field: '', message: item === undefined || item === null ? NO_REASON : String(item) }];
  }
  if (Array.isArray(item)) return item.flatMap((x) => readIssues(x, inherited));
  const o = item as Record<string, unknown>;
  const zero = readInt(first(o, ZERO_BASED_KEYS));
  const other = readInt(first(o, OTHER_ROW_KEYS));
  const ref: RowRef | undefined = zero !== undefined ? { value: zero, known: true } : other !== undefined ? { value: other, known: false } : inherited;
  const f = first(o, FIELD_KEYS);
  const field = Array.isArray(f) ? f.join('.') : f === undefined ? '' : String(f);
  const c = first(o, CODE_KEYS);
  const code = c === undefined || typeof c === 'object' ? undefined : String(c);
  const list = first(o, LIST_KEYS);
  if (Array.isArray(list) && list.length) {
    return list.flatMap((x) => readIssues(x, ref)).map((i) => ({ ...i, field: i.field || field, code: i.code ?? code }));
  }
  const m = first(o, MESSAGE_KEYS);
  let message: string;
  if (typeof m === 'string') message = m;
  else if (m && typeof m === 'object' && typeof (m as { message?: unknown }).message === 'string') message = (m as { message: string }).message;
  else {
    const rest = Object.fromEntries(Object.entries(o).filter(([k]) => ![...ZERO_BASED_KEYS, ...OTHER_ROW_KEYS].includes(k as never)));
    message = Object.keys(rest).length ? plainText(rest) : code ?? NO_REASON;
  }
  return [{ ref, field, code, message: message.trim() || NO_REASON }];
}

/** A message that starts with a row key ("phoneNumber ... is not valid") names that field. */
function leadingField(text: string): string {
  const m = text.match(/^\s*([a-z][A-Za-z0-9]*)\b/);
  return m && /[A-Z]/.test(m[1]!) ? m[1]! : m && ['phone', 'email'].includes(m[1]!) ? m[1]! : '';
}

export interface ChunkRef {
  /** File line of each row of the chunk, by rowIndex. */
  lines: readonly number[];
  /** The rows as sent, by rowIndex (for scrubbing their values out of messages). */
  rows?: readonly BatchRow[];
}

export interface ChunkAnswer {
  /** Rows confirmed created, by index in the chunk, with the sequence id when given. */
  created: Map<number, number | null>;
  /** Rows an error names without doubt. */
  invalid: Set<number>;
  /** Create: rows neither confirmed nor named. */
  unknown: number[];
  /** Validate: how many invalid rows the service counts but does not name (0 when all are named). */
  unnamedInvalid: number;
  problems: Problem[];
}

/**
 * Resolves a row reference of a chunk of `size` rows; learns the run's numbering when the answer
 * shows it (a 0, the chunk's size, or consistency with the created entries).
 */
function resolveRefs(issues: Issue[], size: number, createdIdx: ReadonlySet<number>, numbering: NumberingState): void {
  if (numbering.base) return;
  const values = issues.filter((i) => i.ref && !i.ref.known).map((i) => i.ref!.value);
  if (!values.length) return;
  if (values.some((v) => v === 0)) numbering.base = 'zero';
  else if (values.some((v) => v === size)) numbering.base = 'one';
  else if (createdIdx.size) {
    const fits = (shift: number) => values.every((v) => v - shift >= 0 && v - shift < size && !createdIdx.has(v - shift));
    const zero = fits(0);
    const one = fits(1);
    if (zero !== one) numbering.base = zero ? 'zero' : 'one';
  }
}

function indexOf(ref: RowRef | undefined, size: number, numbering: NumberingState): { index?: number; candidates?: number[] } {
  if (!ref) return {};
  const inRange = (i: number) => i >= 0 && i < size;
  if (ref.known || numbering.base) {
    const i = ref.value - (ref.known || numbering.base === 'zero' ? 0 : 1);
    return inRange(i) ? { index: i } : {};
  }
  const candidates = [ref.value - 1, ref.value].filter(inRange);
  return candidates.length === 1 ? { index: candidates[0] } : { candidates };
}

export function readChunkAnswer(
  result: BatchResult,
  chunk: ChunkRef,
  mode: 'validate' | 'create',
  numbering: NumberingState,
): ChunkAnswer {
  const size = chunk.lines.length;
  const created = new Map<number, number | null>();
  for (const c of result.created ?? []) if (c.rowIndex >= 0 && c.rowIndex < size && !created.has(c.rowIndex)) created.set(c.rowIndex, c.sequenceId ?? null);
  const errors = result.errors.flatMap((e) => readIssues(e));
  const warnings = result.warnings.flatMap((w) => readIssues(w));
  resolveRefs([...errors, ...warnings], size, new Set(created.keys()), numbering);

  const problems: Problem[] = [];
  const invalid = new Set<number>();
  let unnamedErrors = 0;
  const toProblem = (issue: Issue, severity: Problem['severity']) => {
    const { index, candidates } = indexOf(issue.ref, size, numbering);
    let message = issue.message;
    const row = index === undefined ? undefined : chunk.rows?.[index];
    if (row) message = scrub(message, row);
    else if (chunk.rows) for (const r of chunk.rows) message = scrub(message, r);
    if (index === undefined) {
      const where =
        candidates && candidates.length
          ? `the service's row ${issue.ref!.value} is line ${candidates.map((i) => chunk.lines[i]).join(' or line ')}: it does not say whether it counts rows from 0 or 1`
          : `the service named no row; chunk of lines ${chunk.lines[0]}-${chunk.lines[size - 1]}`;
      message = `${message} (${where})`;
    }
    problems.push({ line: index === undefined ? null : chunk.lines[index]!, field: issue.field, code: issue.code, message, severity, source: 'service' });
    return index;
  };
  for (const e of errors) {
    const i = toProblem(e, 'error');
    if (i === undefined) unnamedErrors++;
    else invalid.add(i);
  }
  for (const w of warnings) toProblem(w, 'warning');

  if (mode === 'validate') {
    const countedInvalid = result.validCount !== undefined ? Math.max(0, size - result.validCount) : undefined;
    let unnamedInvalid = countedInvalid !== undefined ? Math.max(0, countedInvalid - invalid.size) : unnamedErrors;
    if (result.valid === false && invalid.size === 0 && unnamedInvalid === 0) unnamedInvalid = 1;
    if (unnamedInvalid > 0 && unnamedErrors === 0) {
      problems.push({
        line: null,
        field: '',
        message: `the service found ${countedInvalid === undefined ? 'some rows' : plural(countedInvalid, 'row')} of lines ${chunk.lines[0]}-${chunk.lines[size - 1]} invalid but named ${invalid.size ? `only ${invalid.size}` : 'none'}`,
        severity: 'error',
        source: 'service',
      });
    }
    return { created: new Map(), invalid, unknown: [], unnamedInvalid, problems };
  }

  // Create: the count covers the rows no error names only when every error names its row.
  if (unnamedErrors === 0 && result.createdCount !== undefined && result.createdCount === size - invalid.size) {
    for (let i = 0; i < size; i++) if (!invalid.has(i) && !created.has(i)) created.set(i, null);
  }
  for (const i of created.keys()) invalid.delete(i); // the service says it created it: that wins
  const unknown: number[] = [];
  for (let i = 0; i < size; i++) if (!created.has(i) && !invalid.has(i)) unknown.push(i);
  return { created, invalid, unknown, unnamedInvalid: 0, problems };
}

/** Replaces the row's own values (3+ characters) in a message with "…". */
export function scrub(message: string, row: BatchRow): string {
  let out = message;
  for (const v of Object.values(row)) {
    if (typeof v !== 'string' || v.length < 3) continue;
    if (out.includes(v)) out = out.split(v).join('…');
    if (/^\+\d{7,}$/.test(v)) {
      // The number without +, and its national part (last 10 digits), as a service may echo either.
      for (const d of [v.slice(1), v.slice(-10)]) if (out.includes(d)) out = out.split(d).join('…');
    }
  }
  return out;
}
