// Text measured and cut in terminal columns (string-width: CJK and emoji take two), never in UTF-16
// units: the one cut every screen uses (tables, the progress line, problem reports, the listener).
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Text cut to `width` display columns, ending in `…` when cut (never splits a character or an emoji). */
export function truncate(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** Text padded with spaces to `width` display columns. */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}
