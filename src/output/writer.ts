// The one output writer. It decides by format and by whether stdout is a terminal:
// table → cli-table3 with colour on a terminal, plain tab-separated rows with ISO dates when piped
// (like gh); json → exactly what the service sent; ndjson → one record per line; csv/tsv → a header
// and the table's columns.
//
// Every value is outside text: it is made inert here (format.ts shownValue/scriptValue/csvCell/tsvCell,
// after safe.ts) before any styling, on a terminal and piped; csv/tsv cells are also neutralised
// for spreadsheets. json/ndjson are written as is (JSON escapes control characters).
import type { Context } from '../context.js';
import { csvCell, scriptValue, shownValue, tsvCell, type Format, type ValueKind } from './format.js';
import { terminalSafe } from './safe.js';

export interface Column<T> {
  header: string;
  value: (record: T) => unknown;
  kind?: ValueKind;
  /** Colour for a terminal cell, given the human text. */
  style?: (text: string, record: T, chalk: import('chalk').ChalkInstance) => string;
}

function effectiveFormat(ctx: Context): Format {
  return ctx.globals.format;
}

/** A list of records. `raw` is what the service returned (printed as is for -o json). */
export async function writeList<T>(ctx: Context, records: T[], columns: Column<T>[], raw: unknown = records): Promise<void> {
  const { io } = ctx;
  switch (effectiveFormat(ctx)) {
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
      // Headers are ours, except a few taken from the service (a call's custom analysis keys): inert too.
      io.out(`${columns.map((c) => cell(c.header)).join(sep)}\n`);
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
  const chalk = await io.chalk();
  if (records.length === 0) {
    io.err('No results.\n');
    return;
  }
  const { default: Table } = await import('cli-table3');
  // Inert before styling: a style sees (and colours) only the safe text.
  const texts = records.map((r) => columns.map((c) => shownValue(c.value(r), c.kind)));
  const headers = columns.map((c) => terminalSafe(c.header));
  const colWidths = fitColumns(
    columns.map((_c, i) => Math.max(headers[i]!.length, ...texts.map((t) => longestLine(t[i]!))) + 2),
    io.columns,
  );
  const table = new Table({
    head: headers.map((h) => chalk.bold(h)),
    style: { head: [], border: [], compact: true },
    chars: borderless,
    colWidths,
    wordWrap: true,
    wrapOnWordBoundary: true,
  });
  records.forEach((r, row) => {
    table.push(columns.map((c, i) => (c.style && io.color ? c.style(texts[row]![i]!, r, chalk) : texts[row]![i]!)));
  });
  io.out(`${table.toString()}\n`);
}

function longestLine(text: string): number {
  return Math.max(0, ...text.split('\n').map((l) => l.length));
}

/**
 * Column widths that fit the terminal: while the table is too wide, the widest column gives up
 * space (wrapping its text) down to a floor, so a long message never overflows the line.
 */
export function fitColumns(natural: number[], terminalWidth: number, floor = 12): number[] {
  const widths = [...natural];
  const separators = 2 * (widths.length - 1);
  const available = Math.max(terminalWidth - 1, 20);
  for (;;) {
    const total = widths.reduce((a, b) => a + b, 0) + separators;
    if (total <= available) return widths;
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= floor) return widths;
    widths[widest] = Math.max(floor, widths[widest]! - (total - available));
  }
}

export interface Field<T> {
  label: string;
  value: (record: T) => unknown;
  kind?: ValueKind;
  style?: Column<T>['style'];
}

/** One record as label/value rows (table) or its raw JSON. */
export async function writeRecord<T>(ctx: Context, record: T, fields: Field<T>[], raw: unknown = record): Promise<void> {
  const { io } = ctx;
  switch (effectiveFormat(ctx)) {
    case 'json':
      io.out(`${JSON.stringify(raw, null, 2)}\n`);
      return;
    case 'ndjson':
      io.out(`${JSON.stringify(raw)}\n`);
      return;
    case 'csv':
    case 'tsv':
      return writeList(ctx, [record], fields.map((f) => ({ header: f.label, value: f.value, kind: f.kind })), raw);
    case 'table': {
      // Labels are ours, except a few taken from the service (a call's custom analysis keys): inert too.
      if (!io.isStdoutTTY) {
        for (const f of fields) io.out(`${scriptValue(f.label)}\t${scriptValue(f.value(record), f.kind)}\n`);
        return;
      }
      const chalk = await io.chalk();
      const labels = fields.map((f) => terminalSafe(f.label));
      const width = Math.max(...labels.map((l) => l.length));
      fields.forEach((f, i) => {
        const text = shownValue(f.value(record), f.kind);
        const shown = f.style && io.color ? f.style(text, record, chalk) : text;
        // A multi-line value continues under the value column, not under the labels.
        io.out(`${chalk.dim(labels[i]!.padEnd(width))}  ${shown.replace(/\n/g, `\n${' '.repeat(width + 2)}`)}\n`);
      });
    }
  }
}

/** A section heading on a terminal table output. */
export async function writeHeading(ctx: Context, title: string): Promise<void> {
  if (ctx.globals.format !== 'table') return;
  const safe = terminalSafe(title);
  if (!ctx.io.isStdoutTTY) {
    ctx.io.out(`\n# ${safe}\n`);
    return;
  }
  const chalk = await ctx.io.chalk();
  ctx.io.out(`\n${chalk.bold(safe)}\n`);
}

const borderless = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '',
  right: '', 'right-mid': '', middle: '  ',
};
