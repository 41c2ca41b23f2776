// The table layer: how a list fits a terminal (after gh's tableprinter). Pure: text in, lines out.
//
// Each column says how it gives way when the terminal is narrow:
//  - `shrink`: free text (names, descriptions, reasons) that may be cut with `…`; ids, statuses,
//    outcomes, phone numbers, codes and dates never are;
//  - `priority`: 'essential' columns always stay; 'extra' and then 'useful' columns are hidden,
//    rightmost first, when the rest would not fit.
// One line per record, always; widths are display columns (string-width: CJK and emoji count 2).
import stringWidth from 'string-width';
import { truncate } from './width.js';

export { padEnd, truncate } from './width.js';

export type Priority = 'essential' | 'useful' | 'extra';

export interface TableColumn {
  header: string;
  /** Inert, one-line cell texts, one per row. */
  cells: string[];
  priority?: Priority;
  shrink?: boolean;
}

export interface TableLayout {
  /** Indexes of the columns shown, in order. */
  shown: number[];
  /** Width of each shown column (same order as `shown`). */
  widths: number[];
  /** Indexes of the columns hidden at this width. */
  hidden: number[];
}

export const GAP = 2;
/** Free text is not cut below this many columns while a less useful column could be hidden instead. */
const COMFORTABLE = 12;
const DROP_ORDER: Priority[] = ['extra', 'useful'];

/**
 * Which columns to show and how wide, to fit `width` display columns: free text shrinks first (down
 * to a comfortable width), then low-priority columns are hidden, then free text shrinks down to its
 * header. Only a table that still does not fit (a service sending absurdly long ids) cuts the
 * never-cut columns, widest first, so that a record stays on one line.
 */
export function layoutTable(columns: TableColumn[], width: number): TableLayout {
  const natural = columns.map((c) => Math.max(stringWidth(c.header), ...c.cells.map((t) => stringWidth(t))));
  const floor = columns.map((c, i) => Math.min(natural[i]!, Math.max(stringWidth(c.header), 1)));
  let shown = columns.map((_c, i) => i);
  const hidden: number[] = [];
  const total = (ws: number[]) => ws.reduce((a, b) => a + b, 0) + GAP * Math.max(0, ws.length - 1);

  for (;;) {
    const comfortableOf = (set: number[]) =>
      set.map((i) => (columns[i]!.shrink ? Math.max(floor[i]!, Math.min(natural[i]!, COMFORTABLE)) : natural[i]!));
    if (total(comfortableOf(shown)) <= width) {
      // A narrow column hidden before a wide one may fit again now that the wide one is gone:
      // given back in priority order (useful before extra), leftmost first.
      for (const p of [...DROP_ORDER].reverse()) {
        for (const i of [...hidden].sort((a, b) => a - b)) {
          if (columns[i]!.priority !== p) continue;
          const candidate = [...shown, i].sort((a, b) => a - b);
          if (total(comfortableOf(candidate)) > width) continue;
          shown = candidate;
          hidden.splice(hidden.indexOf(i), 1);
        }
      }
      const comfortable = comfortableOf(shown);
      return { shown, widths: squeeze(shown.map((i) => natural[i]!), comfortable, width, total), hidden: hidden.sort((a, b) => a - b) };
    }
    const victim = dropCandidate(columns, shown);
    if (victim === undefined) break;
    shown = shown.filter((i) => i !== victim);
    hidden.push(victim);
  }
  // Nothing left to hide: free text down to its header, then (last resort) the rest.
  const shrinkable = shown.map((i) => (columns[i]!.shrink ? floor[i]! : natural[i]!));
  let widths = squeeze(shown.map((i) => natural[i]!), shrinkable, width, total);
  if (total(widths) > width) widths = squeeze(widths, shown.map((i) => Math.min(natural[i]!, Math.max(floor[i]!, 3))), width, total);
  return { shown, widths, hidden: hidden.sort((a, b) => a - b) };
}

/** The column to hide next: the rightmost of the lowest priority present. */
function dropCandidate(columns: TableColumn[], shown: number[]): number | undefined {
  for (const p of DROP_ORDER) {
    const candidates = shown.filter((i) => columns[i]!.priority === p);
    if (candidates.length) return candidates[candidates.length - 1];
  }
  return undefined;
}

/**
 * Widths between `floor` and `wants` that fit `width`: the widest columns give up space first
 * (water-filling), so two long texts end up equally cut rather than one cut to nothing.
 */
function squeeze(wants: number[], floor: number[], width: number, total: (ws: number[]) => number): number[] {
  const widths = [...wants];
  for (let over = total(widths) - width; over > 0; over = total(widths) - width) {
    const movable = widths.map((_w, i) => i).filter((i) => widths[i]! > floor[i]!);
    if (!movable.length) break;
    const widest = movable.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
    const others = movable.filter((i) => i !== widest).map((i) => widths[i]!);
    const target = Math.max(floor[widest]!, ...others);
    widths[widest] = widths[widest]! - Math.max(1, Math.min(over, widths[widest]! - target));
  }
  return widths;
}

export interface RenderOptions {
  /** Styles a shown (already cut) cell: colour on a terminal. Default: none. */
  style?: (text: string, column: number, row: number) => string;
  /** Styles a header. Default: none. */
  header?: (text: string) => string;
}

/** The table's lines for a terminal `width` wide: a header line, then one line per row. */
export function renderTable(columns: TableColumn[], width: number, opts: RenderOptions = {}): { lines: string[]; layout: TableLayout } {
  const layout = layoutTable(columns, width);
  const { shown, widths } = layout;
  const line = (texts: string[], style: (t: string, k: number) => string) =>
    texts
      .map((t, k) => {
        const cut = truncate(t, widths[k]!);
        const styled = style(cut, k);
        // No trailing spaces after the last column.
        return k === texts.length - 1 ? styled : styled + ' '.repeat(widths[k]! - stringWidth(cut));
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  const headerStyle = opts.header ?? ((t: string) => t);
  const lines = [line(shown.map((i) => columns[i]!.header), (t) => headerStyle(t))];
  const rows = columns[0]?.cells.length ?? 0;
  for (let r = 0; r < rows; r++) {
    lines.push(line(shown.map((i) => columns[i]!.cells[r] ?? ''), (t, k) => (opts.style ? opts.style(t, shown[k]!, r) : t)));
  }
  return { lines, layout };
}
