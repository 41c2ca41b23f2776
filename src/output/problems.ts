// Problem reports a person can act on, one renderer for `sequences batch` and `eligibility check
// --csv`, for local checks and the service's rejections alike (issue 13, point 2):
//   - the file's own line numbers (header = line 1);
//   - the same problem on many lines said once: "lines 5, 6, 9 and 31 more: Phone: …", so a long
//     explanation (Excel's damage, how to write a date) is read once, not per row;
//   - the offending value only where the person reads their own file: a terminal (never piped, never
//     in -o json, logs or files) — the caller decides with `showValues`;
//   - the service's words made inert and kept to one line;
//   - at most a screenful on a terminal, then "and N more problems (where every row is)";
//   - every line wrapped at word boundaries to the width, continuation lines indented.
import stringWidth from 'string-width';
import { truncate } from './width.js';
import wrapAnsi from 'wrap-ansi';
import type { Io } from '../io.js';
import type { Format } from './format.js';
import { plural } from './plural.js';
import { terminalSafe } from './safe.js';

/** One problem of one line (or of no line: a whole chunk the service did not break down). */
export interface ProblemEntry {
  line: number | null;
  /** Where in the row: the file's column name, or the service's field; '' when nobody said. */
  label: string;
  message: string;
  severity: 'error' | 'warning';
  /** The service's words (hostile, possibly long): made inert and kept to one line. */
  fromService?: boolean;
  /** The person's own value from the file: shown only when the options allow it. */
  value?: string;
}

export interface ReportSection {
  /** "10 of 12 rows are invalid:" */
  heading: string;
  problems: readonly ProblemEntry[];
}

export interface ProblemReport {
  sections: readonly ReportSection[];
  /** Problems left out of `sections` (kept out of memory); counted in the "and N more" line. */
  omitted?: number;
  /** Where the full list is, for the "and N more problems (…)" line: "results.csv has every row". */
  fullList: string;
  /** What to do next, one step a line; a line starting with two spaces is a command (broken only between arguments). */
  next: readonly string[];
}

export interface RenderOptions {
  width: number;
  showValues: boolean;
  /** Lines of problems at most (the headings, the "more" line and the next steps not counted). */
  maxLines: number;
}

/** Problem lines shown on a terminal: the mapping, the report and the summary fit a 24-row screen. */
export const TERMINAL_PROBLEM_LINES = 10;
const INDENT = '  ';
const HANGING = '      ';
const SERVICE_TEXT_MAX = 160;
const VALUE_MAX = 24;
const VALUES_PER_GROUP = 3;
const LINES_PER_GROUP = 3;

/**
 * How a report is shown for this run: the values only on a terminal (stderr, where the report goes)
 * and never with -o json/ndjson; a screenful at most on a terminal, everything when piped.
 */
export function renderOptionsFor(io: Io, format: Format): RenderOptions {
  const onTerminal = io.isStderrTTY;
  return {
    // Wrapped to the terminal; a log keeps each line whole (grep finds it, a command pastes as is).
    width: onTerminal ? Math.max(40, (io.stderr as { columns?: number }).columns ?? io.columns) : Infinity,
    showValues: onTerminal && format !== 'json' && format !== 'ndjson',
    maxLines: onTerminal ? TERMINAL_PROBLEM_LINES : Infinity,
  };
}

/** The report as text (ends with a newline; empty when there is nothing to say). */
export function renderProblems(report: ProblemReport, opts: RenderOptions): string {
  const out: string[] = [];
  let budget = opts.maxLines;
  let hidden = report.omitted ?? 0;
  for (const section of report.sections) {
    if (!section.problems.length) continue;
    const groups = groupProblems(section.problems);
    if (budget <= 0) {
      hidden += section.problems.length;
      continue;
    }
    out.push(...wrapLine(section.heading, opts.width, ''));
    for (const g of groups) {
      const lines = wrapLine(`${INDENT}${groupText(g, opts.showValues)}`, opts.width, HANGING);
      if (lines.length > budget) {
        hidden += g.lines.length + g.unnumbered;
        budget = 0;
        continue;
      }
      budget -= lines.length;
      out.push(...lines);
    }
  }
  if (hidden) out.push(...wrapLine(`${INDENT}… and ${plural(hidden, 'more problem')} (${report.fullList})`, opts.width, HANGING));
  for (const step of report.next) out.push(...(step.startsWith(INDENT) ? wrapCommand(step, opts.width) : wrapLine(step, opts.width, INDENT)));
  return out.length ? `${out.join('\n')}\n` : '';
}

/** Problems with the same words on several lines, in the order of their first line. */
interface Group {
  severity: ProblemEntry['severity'];
  label: string;
  message: string;
  lines: number[];
  /** Problems of this group on no line. */
  unnumbered: number;
  values: Array<{ line: number; value: string }>;
}

export function groupProblems(problems: readonly ProblemEntry[]): Group[] {
  const groups = new Map<string, Group>();
  for (const p of problems) {
    const label = p.fromService ? serviceText(p.label) : p.label;
    const message = p.fromService ? serviceText(p.message) : p.message;
    const key = `${p.severity}\u0000${label}\u0000${message}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { severity: p.severity, label, message, lines: [], unnumbered: 0, values: [] }));
    if (p.line === null) g.unnumbered++;
    else {
      g.lines.push(p.line);
      if (p.value !== undefined && p.value.trim() !== '') g.values.push({ line: p.line, value: p.value });
    }
  }
  const first = (g: Group) => (g.lines.length ? Math.min(...g.lines) : Infinity);
  return [...groups.values()].sort((a, b) => first(a) - first(b));
}

function groupText(g: Group, showValues: boolean): string {
  const where = whereText(g);
  const values = showValues ? g.values : [];
  const single = g.lines.length === 1 && g.unnumbered === 0;
  // One line: its value beside the column ("Phone "call me""); several: a few examples at the end.
  const label = [g.label, single && values[0] ? quote(values[0].value) : ''].filter(Boolean).join(' ');
  const examples =
    !single && values.length
      ? ` (${values
          .slice(0, VALUES_PER_GROUP)
          .map((v) => `${quote(v.value)} on line ${v.line}`)
          .join(', ')}${values.length > VALUES_PER_GROUP ? ', …' : ''})`
      : '';
  return `${where}: ${label ? `${label}: ` : ''}${g.message}${examples}`;
}

/** "line 5", "lines 5, 6, 9 and 31 more", "lines 5-9"; "no line" for a problem of a whole chunk. */
function whereText(g: Group): string {
  if (!g.lines.length) return 'no line';
  const sorted = [...new Set(g.lines)].sort((a, b) => a - b);
  if (sorted.length === 1) return `line ${sorted[0]}`;
  // Runs of three or more consecutive lines read as a range ("5-9"); two are just two lines.
  const items: Array<[number, number]> = [];
  for (const l of sorted) {
    const last = items[items.length - 1];
    if (last && l === last[1] + 1) last[1] = l;
    else items.push([l, l]);
  }
  const ranges = items.flatMap(([a, b]): Array<[number, number]> => (b === a + 1 ? [[a, a], [b, b]] : [[a, b]]));
  const shown = ranges.slice(0, LINES_PER_GROUP).map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
  const rest = ranges.slice(LINES_PER_GROUP).reduce((n, [a, b]) => n + b - a + 1, 0);
  const list = rest ? `${shown.join(', ')} and ${rest} more` : shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown[0]!;
  return `lines ${list}`;
}

/** The service's words: inert, on one line, clipped. */
export function serviceText(text: string): string {
  return clip(terminalSafe(text.replace(/\s+/g, ' ').trim()), SERVICE_TEXT_MAX);
}

/** A value from the file, quoted, inert and clipped (a whole address is not needed to find the cell). */
function quote(value: string): string {
  return `"${clip(terminalSafe(value.trim()), VALUE_MAX)}"`;
}

/** Text cut to `max` display columns with "…" (string-width: CJK and emoji count double). */
export function clip(text: string, max: number): string {
  return truncate(text, max);
}

/**
 * One logical line wrapped at word boundaries to `width` display columns; continuation lines start
 * with `indent` (never at column 0). A word longer than the width is broken.
 */
export function wrapLine(text: string, width: number, indent: string): string[] {
  if (stringWidth(text) <= width) return [text];
  const lead = text.match(/^ */)![0];
  const first = wrapAnsi(text.slice(lead.length), width - lead.length, { hard: true, trim: true }).split('\n');
  const head = `${lead}${first[0] ?? ''}`;
  const rest = first.slice(1).join(' ');
  if (!rest) return [head];
  const more = wrapAnsi(rest, width - stringWidth(indent), { hard: true, trim: true }).split('\n');
  return [head, ...more.map((l) => `${indent}${l}`)];
}

/**
 * A command line (indented, its arguments quoted for a POSIX shell) broken between arguments with
 * " \\" continuations, so that a long one still pastes as one command and never wraps at column 0.
 */
export function wrapCommand(command: string, width: number): string[] {
  if (stringWidth(command) <= width) return [command];
  const lead = command.match(/^ */)![0];
  // Arguments are separated by spaces outside single quotes (how journal/words.ts quotes them).
  const args = command.slice(lead.length).match(/(?:'[^']*'|\\.|[^\s'\\])+/g) ?? [];
  const lines: string[] = [];
  let current = lead;
  for (const arg of args) {
    const sep = current.trim() ? ' ' : '';
    if (current.trim() && stringWidth(current + sep + arg) + 2 > width) {
      lines.push(`${current} \\`);
      current = `${lead}    ${arg}`;
    } else current += sep + arg;
  }
  lines.push(current);
  return lines;
}
