// The one output writer. It decides by format and by whether stdout is a terminal:
//  - table on a terminal: lists through the table layer (table.ts: one line per record, fitted to
//    the width by column priorities), records as label/value lines with long text wrapped, colour;
//  - table piped (like gh): lists as one tab-separated line per record, no header; records as flat
//    `key<TAB>value` lines with dotted keys (`coverage.plan_name`), values in the field's own unit;
//  - csv/tsv: a header of the records' JSON field names, then the values in their own unit;
//  - json/ndjson: exactly what the service sent.
//
// Every value is outside text: it is made inert here (format.ts, after safe.ts) before any styling,
// on a terminal and piped; csv/tsv cells are also neutralised for spreadsheets. json/ndjson are
// written as is (JSON escapes control characters; io.ts escapes what it leaves raw).
import type { ChalkInstance } from 'chalk';
import type { Context } from '../context.js';
import { cellValue, csvCell, scriptValue, shownValue, tsvCell, type ValueKind } from './format.js';
import { terminalSafe } from './safe.js';
import type { Priority } from './table.js';

export interface Column<T> {
  /** The label on a terminal (`STARTED`). */
  header: string;
  /** The JSON field name, for csv/tsv headers and piped keys (`started_at`). Default: from the header. */
  key?: string;
  /** The field's own value: what scripts get (ISO dates, milliseconds), and a terminal unless `display`. */
  value: (record: T) => unknown;
  /** What a person reads on a terminal instead of `value` (`1 (voice)`, `$1,500.00`). */
  display?: (record: T) => unknown;
  kind?: ValueKind;
  /** Colour for a terminal cell, given its (inert, possibly cut) text. */
  style?: (text: string, record: T, chalk: ChalkInstance) => string;
  /** Whether the column may be hidden at a narrow terminal. Default: essential (always shown). */
  priority?: Priority;
  /** Free text that may be cut with `…` at a narrow terminal. Ids, codes, numbers, dates never are. */
  shrink?: boolean;
}

export interface Field<T> {
  label: string;
  /** The dotted JSON path (`coverage.plan_name`), for piped keys and csv/tsv headers. Default: from the label. */
  key?: string;
  value: (record: T) => unknown;
  display?: (record: T) => unknown;
  kind?: ValueKind;
  style?: Column<T>['style'];
  /** A field for scripts only (piped, csv): a terminal shows it within another field's words. */
  scriptOnly?: boolean;
}

/** `BASE URL` → `base_url`: the key of a column or field that does not name its own. */
function keyOf(c: { key?: string; header?: string; label?: string }): string {
  return c.key ?? (c.header ?? c.label ?? '').trim().toLowerCase().replace(/\s+/g, '_');
}

/** A list of records. `raw` is what the service returned (printed as is for -o json). */
export async function writeList<T>(ctx: Context, records: T[], columns: Column<T>[], raw: unknown = records): Promise<void> {
  const { io } = ctx;
  switch (ctx.globals.format) {
    case 'json':
      io.out(`${JSON.stringify(raw, null, 2)}\n`);
      return;
    case 'ndjson':
      for (const r of records) io.out(`${JSON.stringify(r)}\n`);
      return;
    case 'csv':
    case 'tsv': {
      const csv = ctx.globals.format === 'csv';
      const sep = csv ? ',' : '\t';
      const cell = csv ? csvCell : tsvCell;
      // Keys are ours, except a few taken from the service (a call's custom analysis keys): inert too.
      io.out(`${columns.map((c) => cell(keyOf(c))).join(sep)}\n`);
      for (const r of records) io.out(`${columns.map((c) => cell(c.value(r), c.kind)).join(sep)}\n`);
      return;
    }
    case 'table':
      if (!io.isStdoutTTY) {
        for (const r of records) io.out(`${columns.map((c) => scriptValue(c.value(r), c.kind)).join('\t')}\n`);
        return;
      }
      await writeTable(ctx, records, columns);
  }
}

async function writeTable<T>(ctx: Context, records: T[], columns: Column<T>[]): Promise<void> {
  const { io } = ctx;
  if (records.length === 0) {
    io.err('No results.\n');
    return;
  }
  const [{ renderTable }, chalk] = await Promise.all([import('./table.js'), io.chalk()]);
  const now = ctx.now();
  // Inert before styling: a style sees (and colours) only the safe text.
  // A column empty in every row says nothing on a terminal: not shown (scripts keep every column).
  const table = columns
    .map((c) => ({
      header: terminalSafe(c.header),
      cells: records.map((r) => cellValue((c.display ?? c.value)(r), c.kind, { now })),
      priority: c.priority,
      shrink: c.shrink,
      column: c,
    }))
    .filter((t) => t.cells.some((cell) => cell !== ''));
  const { lines, layout } = renderTable(table, io.columns, {
    header: (h) => chalk.bold(h),
    style: (text, col, row) => {
      const style = table[col]!.column.style;
      return style && io.color && text ? style(text, records[row]!, chalk) : text;
    },
  });
  io.out(`${lines.join('\n')}\n`);
  if (layout.hidden.length && !ctx.globals.quiet) await hiddenNote(ctx, layout.hidden.map((i) => table[i]!.header));
}

/** Once, under a table that hid columns: which, and how to see them. */
async function hiddenNote(ctx: Context, headers: string[]): Promise<void> {
  const chalk = await ctx.io.chalkErr();
  const { default: wrapAnsi } = await import('wrap-ansi');
  const note = `(${headers.join(', ')} hidden at this width; -o json shows all)`;
  ctx.io.err(`${chalk.dim(wrapAnsi(note, Math.max(20, ctx.io.columns), { hard: true }))}\n`);
}

/** One record as label/value lines (a terminal), flat `key<TAB>value` lines (piped), or its raw JSON. */
export async function writeRecord<T>(ctx: Context, record: T, fields: Field<T>[], raw: unknown = record): Promise<void> {
  const { io } = ctx;
  switch (ctx.globals.format) {
    case 'json':
      io.out(`${JSON.stringify(raw, null, 2)}\n`);
      return;
    case 'ndjson':
      io.out(`${JSON.stringify(raw)}\n`);
      return;
    case 'csv':
    case 'tsv':
      return writeList(ctx, [record], fields.map((f) => ({ header: f.label, key: keyOf(f), value: f.value, kind: f.kind })), raw);
    case 'table': {
      // Keys and labels are ours, except a few taken from the service (a call's custom analysis keys): inert too.
      if (!io.isStdoutTTY) {
        for (const f of fields) io.out(`${scriptValue(keyOf(f))}\t${scriptValue(f.value(record), f.kind)}\n`);
        return;
      }
      const [chalk, { default: wrapAnsi }, { default: stringWidth }] = await Promise.all([io.chalk(), import('wrap-ansi'), import('string-width')]);
      fields = fields.filter((f) => !f.scriptOnly);
      const labels = fields.map((f) => terminalSafe(f.label));
      const labelWidth = Math.max(...labels.map((l) => stringWidth(l)));
      const valueWidth = Math.max(20, io.columns - labelWidth - 2);
      const indent = ' '.repeat(labelWidth + 2);
      fields.forEach((f, i) => {
        const text = shownValue((f.display ?? f.value)(record), f.kind, { long: true });
        const shown = f.style && io.color && text ? f.style(text, record, chalk) : text;
        // Long text wraps at word boundaries under the value column, not under the labels.
        const wrapped = wrapAnsi(shown, valueWidth, { hard: true }).replace(/\n/g, `\n${indent}`);
        io.out(`${chalk.dim(labels[i]!)}${' '.repeat(labelWidth - stringWidth(labels[i]!))}  ${wrapped}\n`.replace(/ +\n$/, '\n'));
      });
    }
  }
}

/** A section heading in a terminal's get view (piped views have no sections: their keys say it). */
export async function writeHeading(ctx: Context, title: string): Promise<void> {
  if (ctx.globals.format !== 'table' || !ctx.io.isStdoutTTY) return;
  const chalk = await ctx.io.chalk();
  ctx.io.out(`\n${chalk.bold(terminalSafe(title))}\n`);
}

export interface Section<T> {
  /** The heading on a terminal (`Patient costs`). */
  title: string;
  /** The dotted path of the list in the record (`coverage.patient_costs`): piped keys are `<key>.<n>.<column key>`. */
  key: string;
  rows: T[];
  columns: Column<T>[];
  /** Said on a terminal when there are no rows; nothing when absent. */
  empty?: string;
}

/**
 * A list inside a get view (a check's patient costs, a sequence's steps): a heading and a table on a
 * terminal; piped, flat `key<TAB>value` lines numbered from 0 (`steps.0.type`), like the record's.
 * csv/tsv/json carry no sections (json has the whole body; csv is one record per line).
 */
export async function writeSection<T>(ctx: Context, section: Section<T>): Promise<void> {
  const { io } = ctx;
  if (ctx.globals.format !== 'table') return;
  if (!io.isStdoutTTY) {
    section.rows.forEach((r, n) => {
      for (const c of section.columns) io.out(`${scriptValue(`${section.key}.${n}.${keyOf(c)}`)}\t${scriptValue(c.value(r), c.kind)}\n`);
    });
    return;
  }
  if (!section.rows.length && section.empty === undefined) return;
  await writeHeading(ctx, section.title);
  if (!section.rows.length) io.out(`${section.empty}\n`);
  else await writeTable(ctx, section.rows, section.columns);
}

/**
 * A nested value (an assistant's model, its analysis plan) as one field per leaf, with dotted labels
 * and keys (`model.provider`, `model.messages.0.content`): each line wraps on its own at a terminal,
 * and scripts get flat keys. Deep or huge values stop at a limit and show the rest as JSON.
 */
export function nestedFields<T>(label: string, key: string, value: unknown, limits = { depth: 5, fields: 50 }): Field<T>[] {
  const fields: Field<T>[] = [];
  const walk = (v: unknown, path: string, keyPath: string, depth: number): void => {
    const isContainer = v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);
    if (!isContainer || depth >= limits.depth || fields.length >= limits.fields) {
      fields.push({ label: path, key: keyPath, value: () => v, kind: typeof v === 'boolean' ? 'bool' : undefined });
      return;
    }
    for (const [k, child] of Object.entries(v as object)) walk(child, `${path}.${k}`, `${keyPath}.${k}`, depth + 1);
  };
  walk(value, label, key, 0);
  return fields;
}
