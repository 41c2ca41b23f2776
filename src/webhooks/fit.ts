// Fitting a listener line to the terminal's width, measured in columns (string-width: CJK and emoji
// take two), never in UTF-16 units. Pure.
import stringWidth from 'string-width';
import { truncate } from '../output/width.js';

/** The text cut to at most `columns` terminal columns, ending in "…" when cut; whole graphemes only. */
export function clipToWidth(text: string, columns: number): string {
  const cut = truncate(text, columns);
  return cut === text ? text : `${cut.slice(0, -1).trimEnd()}…`;
}

/** A piece of a line. `key` is never cut; `free` text is clipped first; `extra` is left out next. */
export interface LinePart {
  text: string;
  role: 'key' | 'free' | 'extra';
  /** Applied after fitting (a colour): does not count towards the width. */
  style?: (s: string) => string;
  /** Of extras, the lower is left out first (default 0; equal ones the last first). */
  keep?: number;
}

/** Between the parts of a line; one space when the keys alone would not fit with two. */
const SEP = '  ';
const NARROW_SEP = ' ';
/** Free text is not clipped below this many columns: shorter, it would say nothing; it is left out instead. */
const MIN_FREE = 12;

const widthOf = (parts: LinePart[], sep = SEP) => stringWidth(parts.map((p) => p.text).join(sep));

/**
 * The parts that fit in `columns`: free text clipped first (the widest first, down to MIN_FREE
 * columns), then extras left out (the lowest `keep` first), then free text left out. Keys always stay: a
 * line of keys alone wider than the terminal wraps rather than lose an id or a status.
 */
export function fitParts(parts: LinePart[], columns: number, sep = SEP): LinePart[] {
  let kept = parts.filter((p) => p.text !== '');
  let over = widthOf(kept, sep) - columns;
  while (over > 0) {
    const free = kept.filter((p) => p.role === 'free' && stringWidth(p.text) > MIN_FREE);
    if (free.length === 0) break;
    const widest = free.reduce((a, b) => (stringWidth(b.text) > stringWidth(a.text) ? b : a));
    const target = Math.max(MIN_FREE, stringWidth(widest.text) - over);
    kept = kept.map((p) => (p === widest ? { ...p, text: clipToWidth(p.text, target) } : p));
    over = widthOf(kept, sep) - columns;
  }
  for (const role of ['extra', 'free'] as const) {
    while (over > 0) {
      const candidates = kept.filter((p) => p.role === role);
      if (candidates.length === 0) break;
      const least = Math.min(...candidates.map((p) => p.keep ?? 0));
      const out = candidates.findLast((p) => (p.keep ?? 0) === least);
      kept = kept.filter((p) => p !== out);
      over = widthOf(kept, sep) - columns;
    }
  }
  return kept;
}

/**
 * The fitted parts joined, each in its style. When even the keys are too wide with two spaces
 * between parts (and the padding that aligns them), they are fitted again joined by one space,
 * padding trimmed: a narrower line, not an aligned one, before anything essential would wrap.
 */
export function renderLine(parts: LinePart[], columns: number): string {
  let sep = SEP;
  let fitted = fitParts(parts, columns, sep);
  if (widthOf(fitted, sep) > columns) {
    sep = NARROW_SEP;
    fitted = fitParts(
      parts.map((p) => ({ ...p, text: p.text.trim() })),
      columns,
      sep,
    );
  }
  return fitted.map((p) => (p.style ? p.style(p.text) : p.text)).join(sep);
}
