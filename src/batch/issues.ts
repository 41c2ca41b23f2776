// The service's errors and warnings for a batch chunk, whatever their shape (API.md does not show
// it): each becomes a Problem on the CSV line its rowIndex points to. Values the row carried are
// scrubbed from the message, so a service that echoes the phone number does not put it in a log.
import type { BatchRow } from '../api/types.js';
import type { Problem } from './rows.js';

const ROW_KEYS = ['rowIndex', 'row_index', 'row', 'index', 'rowNumber'] as const;
const FIELD_KEYS = ['field', 'column', 'key', 'path', 'property', 'param'] as const;
const MESSAGE_KEYS = ['message', 'msg', 'error', 'detail', 'description', 'reason', 'text'] as const;
const CODE_KEYS = ['code', 'type', 'kind'] as const;

function first<T extends string>(o: Record<string, unknown>, keys: readonly T[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null && o[k] !== '') return o[k];
  return undefined;
}

function asIndex(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v);
  return undefined;
}

export interface ChunkRef {
  /** CSV line of each row of the chunk, by rowIndex. */
  lines: readonly number[];
  /** The rows as sent, by rowIndex (for scrubbing values out of messages). */
  rows?: readonly BatchRow[];
}

/** rowIndex of an issue, if it names one inside the chunk. */
export function issueRowIndex(item: unknown, size: number): number | undefined {
  if (!item || typeof item !== 'object') return undefined;
  const i = asIndex(first(item as Record<string, unknown>, ROW_KEYS));
  return i !== undefined && i >= 0 && i < size ? i : undefined;
}

/** One service issue as a Problem; `line` is null when the item names no row of this chunk. */
export function toProblem(item: unknown, severity: 'error' | 'warning', chunk: ChunkRef): Problem {
  const index = issueRowIndex(item, chunk.lines.length);
  const line = index === undefined ? null : chunk.lines[index]!;
  let field = '';
  let code: string | undefined;
  let message: string;
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    const o = item as Record<string, unknown>;
    const f = first(o, FIELD_KEYS);
    field = Array.isArray(f) ? f.join('.') : f === undefined ? '' : String(f);
    const c = first(o, CODE_KEYS);
    code = c === undefined ? undefined : String(c);
    const m = first(o, MESSAGE_KEYS);
    if (typeof m === 'string') message = m;
    else if (m && typeof m === 'object' && typeof (m as { message?: unknown }).message === 'string') message = (m as { message: string }).message;
    else {
      const rest = Object.fromEntries(Object.entries(o).filter(([k]) => !(ROW_KEYS as readonly string[]).includes(k)));
      message = Object.keys(rest).length ? JSON.stringify(rest) : code ?? 'rejected by the service (no reason given)';
    }
  } else if (typeof item === 'string') {
    message = item;
  } else {
    message = item === undefined || item === null ? 'rejected by the service (no reason given)' : JSON.stringify(item);
  }
  if (index !== undefined && chunk.rows?.[index]) message = scrub(message, chunk.rows[index]!);
  else if (index === undefined && chunk.rows) for (const r of chunk.rows) message = scrub(message, r);
  if (line === null) {
    const from = chunk.lines[0];
    const to = chunk.lines[chunk.lines.length - 1];
    message = `${message} (the service named no row; chunk of lines ${from}-${to})`;
  }
  return { line, field, code, message, severity, source: 'service' };
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
