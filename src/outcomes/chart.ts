// A horizontal bar chart for a terminal: a label column, the count, a bar of unicode blocks (█ and
// the eighths ▏▎▍▌▋▊▉, so small differences show) and the share of the total. Pure: lines of text,
// at most `width` display columns. Labels may come from the service: made inert and clipped here.
import stringWidth from 'string-width';
import { terminalSafe } from '../output/safe.js';
import { padEnd, truncate } from '../output/width.js';

export interface Bar {
  label: string;
  count: number;
}

export interface ChartOptions {
  /** Headings of the label and count columns ("Result", "Rows"). */
  title: [string, string];
  /** What the percentages are of. */
  total: number;
  /** Display columns the lines may take (the terminal's, at most 80). */
  width: number;
  /** At least this wide a label column (charts shown together line up). */
  labelWidth?: number;
  /** Colours a bar (given its label, before clipping) on a terminal. */
  style?: (label: string, bar: string) => string;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const GAP = '  ';
const MAX_LABEL = 24;
const MIN_BAR = 8;
const MAX_BAR = 40;

/** A bar `cells` columns long (in eighths), never wider than `width`. */
export function barText(cells: number, width: number): string {
  const eighths = Math.max(0, Math.min(Math.round(cells * 8), width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

export function barChart(bars: readonly Bar[], o: ChartOptions): string[] {
  const labels = bars.map((b) => terminalSafe(b.label));
  const counts = bars.map((b) => b.count.toLocaleString('en-US'));
  const countWidth = Math.max(stringWidth(o.title[1]), ...counts.map((c) => c.length));
  const pctWidth = 4; // "100%"
  const room = o.width - countWidth - pctWidth - 3 * GAP.length;
  const wanted = Math.max(o.labelWidth ?? 0, stringWidth(o.title[0]), ...labels.map((l) => stringWidth(l)));
  const labelWidth = Math.max(6, Math.min(MAX_LABEL, room - MIN_BAR, wanted));
  const barWidth = Math.min(MAX_BAR, Math.max(MIN_BAR, room - labelWidth));
  const max = Math.max(0, ...bars.map((b) => b.count));
  const lines = [`${padEnd(truncate(o.title[0], labelWidth), labelWidth)}${GAP}${o.title[1].padStart(countWidth)}`];
  bars.forEach((b, i) => {
    // A count above zero always shows: at least an eighth.
    const cells = max === 0 ? 0 : Math.max(b.count > 0 ? 1 / 8 : 0, (b.count / max) * barWidth);
    const bar = barText(cells, barWidth);
    const pct = o.total > 0 ? `${Math.round((b.count / o.total) * 100)}%` : '';
    const shown = o.style ? o.style(b.label, bar) : bar;
    lines.push(`${padEnd(truncate(labels[i]!, labelWidth), labelWidth)}${GAP}${counts[i]!.padStart(countWidth)}${GAP}${shown}${' '.repeat(barWidth - stringWidth(bar))}${GAP}${pct.padStart(pctWidth)}`.trimEnd());
  });
  return lines;
}
