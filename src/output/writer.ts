// The one output writer. It decides by format and by whether stdout is a terminal:
// table → cli-table3 with colour on a terminal, plain tab-separated rows with ISO dates when piped
// (like gh); json → exactly what the service sent; ndjson → one record per line; csv/tsv → a header
// and the table's columns.
import type { Context } from '../context.js';
import { csvField, humanValue, plainValue, tsvField, type Format, type ValueKind } from './format.js';

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
      const sep = ctx.globals.format === 'csv' ? ',' : '\t';
      const q = ctx.globals.format === 'csv' ? csvField : tsvField;
      io.out(`${columns.map((c) => q(c.header)).join(sep)}\n`);
      for (const r of records) io.out(`${columns.map((c) => q(plainValue(c.value(r), c.kind))).join(sep)}\n`);
      return;
    }
    case 'table':
      if (!io.isStdoutTTY) {
        for (const r of records) io.out(`${columns.map((c) => tsvField(plainValue(c.value(r), c.kind))).join('\t')}\n`);
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
  const texts = records.map((r) => columns.map((c) => humanValue(c.value(r), c.kind)));
  const colWidths = fitColumns(
    columns.map((c, i) => Math.max(c.header.length, ...texts.map((t) => longestLine(t[i]!))) + 2),
    io.columns,
  );
  const table = new Table({
    head: columns.map((c) => chalk.bold(c.header)),
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
      if (!io.isStdoutTTY) {
        for (const f of fields) io.out(`${f.label}\t${tsvField(plainValue(f.value(record), f.kind))}\n`);
        return;
      }
      const chalk = await io.chalk();
      const width = Math.max(...fields.map((f) => f.label.length));
      for (const f of fields) {
        const text = humanValue(f.value(record), f.kind);
        const shown = f.style && io.color ? f.style(text, record, chalk) : text;
        io.out(`${chalk.dim(f.label.padEnd(width))}  ${shown}\n`);
      }
    }
  }
}

/** A JSON document as is (api command, -o json of anything). */
export function writeJson(ctx: Context, data: unknown): void {
  ctx.io.out(`${JSON.stringify(data, null, 2)}\n`);
}

/** A section heading on a terminal table output. */
export async function writeHeading(ctx: Context, title: string): Promise<void> {
  if (ctx.globals.format !== 'table') return;
  if (!ctx.io.isStdoutTTY) {
    ctx.io.out(`\n# ${title}\n`);
    return;
  }
  const chalk = await ctx.io.chalk();
  ctx.io.out(`\n${chalk.bold(title)}\n`);
}

const borderless = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '',
  right: '', 'right-mid': '', middle: '  ',
};
