// Output formats and value formatting, shared by every command (no heavy imports here).
import { spreadsheetCell, terminalSafe } from './safe.js';

export const FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type Format = (typeof FORMATS)[number];

export function isFormat(v: string): v is Format {
  return (FORMATS as readonly string[]).includes(v);
}

export type ValueKind = 'text' | 'datetime' | 'date' | 'money' | 'duration' | 'bool' | 'number';

/** What a terminal rendering needs to know beyond the value: today (for dates) and the view. */
export interface HumanOptions {
  /** Now, for dates: this year's dates leave out the year. Default: the real now. */
  now?: Date;
  /** A get view (label/value lines) has room: full date, time and zone. A table cell is compact. */
  long?: boolean;
}

/** How a value reads to a person at a terminal. */
export function humanValue(value: unknown, kind: ValueKind = 'text', opts: HumanOptions = {}): string {
  if (value === undefined || value === null || value === '') return '';
  switch (kind) {
    case 'datetime': {
      const d = new Date(String(value));
      if (Number.isNaN(d.getTime())) return String(value);
      return opts.long ? longDateTime(d) : compactDateTime(d, opts.now ?? new Date());
    }
    case 'money':
      return formatMoney(value);
    case 'duration':
      return formatDuration(Number(value));
    case 'bool':
      return value === true || value === 'true' ? 'yes' : value === false || value === 'false' ? 'no' : String(value);
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');
const isoDay = (d: Date) => `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;

/**
 * A date-time in a table cell, in the local time zone: `Nov 23 14:05` in the current year (the time
 * matters for recent calls and next activities), `2025-11-23` in any other year (the day is enough).
 */
export function compactDateTime(d: Date, now: Date): string {
  if (d.getFullYear() !== now.getFullYear()) return isoDay(d);
  return `${MONTHS[d.getMonth()]} ${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** A date-time in a get view: `2025-11-23 14:05 UTC`, local time with its zone. */
export function longDateTime(d: Date): string {
  const zone = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value;
  return `${isoDay(d)} ${pad2(d.getHours())}:${pad2(d.getMinutes())}${zone ? ` ${zone}` : ''}`;
}

/** How a value reads to a script: ISO dates, raw numbers, no decoration. */
export function plainValue(value: unknown, kind: ValueKind = 'text'): string {
  if (value === undefined || value === null) return '';
  if (kind === 'datetime') {
    const d = new Date(String(value));
    return Number.isNaN(d.getTime()) ? String(value) : d.toISOString();
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function formatMoney(value: unknown): string {
  const n = Number(value);
  if (value === '' || value === null || value === undefined || !Number.isFinite(n)) return String(value ?? '');
  return `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** CSV field quoting (RFC 4180). */
export function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** TSV cannot quote: tabs and newlines become spaces. */
export function tsvField(v: string): string {
  return v.replace(/[\t\r\n]+/g, ' ');
}

// ---- outside text made safe for where it goes (CLI.md "Output and files: safety rules") ----------
// Values come from the service or a patient file: they are made inert here, before any styling, so
// our own colour codes are the only escape sequences that reach a terminal.

/** A value as a person reads it on a terminal: line breaks kept (a get view wraps them), tabs as spaces. */
export function shownValue(value: unknown, kind: ValueKind = 'text', opts: HumanOptions = {}): string {
  return terminalSafe(humanValue(value, kind, opts), { multiline: true }).replace(/\t/g, ' ');
}

/** A value in a table cell on a terminal: inert and on one line (one line per record, always). */
export function cellValue(value: unknown, kind: ValueKind = 'text', opts: HumanOptions = {}): string {
  return shownValue(value, kind, opts).replace(/\s*\n\s*/g, ' ');
}

/** A value in the piped table (tab-separated lines for scripts): inert, on one line, no spreadsheet quote. */
export function scriptValue(value: unknown, kind: ValueKind = 'text'): string {
  return tsvField(terminalSafe(plainValue(value, kind), { multiline: true }));
}

/** A -o csv cell: inert, formula-looking cells quoted with ' (OWASP); newlines stay inside the quotes. */
export function csvCell(value: unknown, kind: ValueKind = 'text'): string {
  return csvField(spreadsheetCell(terminalSafe(plainValue(value, kind), { multiline: true })));
}

/** A -o tsv cell: as csvCell, with tabs and newlines as spaces. */
export function tsvCell(value: unknown, kind: ValueKind = 'text'): string {
  return tsvField(spreadsheetCell(terminalSafe(plainValue(value, kind), { multiline: true })));
}
