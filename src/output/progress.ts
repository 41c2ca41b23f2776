// The one transient line on stderr (after gh's progress indicator): the progress of a long run —
// label, count, total or % (of the file read when the number of rows is unknown), rate and time
// left — and what a request being retried is doing. Only on a terminal and never with --quiet (the
// Io decides: src/io.ts); redrawn at most 10 times a second, sized to the terminal with string-width,
// and cleared when done, so nothing of it stays on screen: the command prints its own summary.
import stringWidth from 'string-width';
import { truncate } from './width.js';
import { plural } from './plural.js';
import { terminalSafe } from './safe.js';

/** Where the line is drawn: a terminal's stderr (`columns` read at every draw, so a resize is followed). */
export interface TerminalStream {
  write(text: string): unknown;
  columns?: number;
}

export interface ProgressOptions {
  /** What the run is doing ("Creating sequences"); shortened first when the line is too wide. */
  label: string;
  /** The thing counted, singular ("row"): "1,200 rows", "310 rows/s". */
  unit: string;
  /** What happened to them: "1,200 of 5,000 created", "12,800 rows checked". */
  verb?: string;
  /** How many there are, when known. */
  total?: number;
  /** Bytes of the file read and its size: a % when `total` is unknown. */
  bytes?: () => { read: number; size: number } | undefined;
  /** Rows go to the same terminal's stdout as they settle: no line (it would cut them). */
  rowsOnScreen?: boolean;
  /** What the run sees now, after the count ("2 queued, 1 in-progress · 14s"); given up when the line is too wide. */
  detail?: (now: number) => string;
}

export interface Progress {
  /** `done` so far (and the total, when it becomes known). Cheap: call it for every row. */
  update(done: number, total?: number): void;
  /** Clears the line: nothing of it stays on screen. Safe to call more than once. */
  done(): void;
}

/** A status shown on the line as time passes (a retry's countdown). */
export type StatusText = (now: number) => string;

/** The line drawn when nothing may be drawn (not a terminal, --quiet, rows on screen). */
export const NO_PROGRESS: Progress = { update: () => undefined, done: () => undefined };

const CLEAR = '\r\u001b[2K';
/** At most this often a redraw, as gh does (a terminal redrawn faster only flickers). */
export const REDRAW_MS = 100;
/** How often the line is looked at when nothing updates it (time left, a retry's countdown). */
const TICK_MS = 250;
const BAR_WIDTH = 20;
const BAR_MIN = 8;
/** The label keeps at least this many columns before the less important parts go. */
const LABEL_MIN = 12;

interface Run {
  o: ProgressOptions;
  done: number;
  total?: number;
  /** When the run began and how far it was then: rate and time left count from there. */
  start: { at: number; done: number; fraction: number };
}

export class StatusLine {
  private run?: Run;
  private readonly statuses = new Map<object, StatusText>();
  /** The text on screen now ('' when nothing is). */
  private shown = '';
  private lastDraw = -Infinity;
  private ticker?: NodeJS.Timeout;

  constructor(
    private readonly out: TerminalStream,
    private readonly clock: { now(): number },
    private readonly opts: { tick?: boolean } = {},
  ) {}

  /** Starts the progress of a run (one at a time: a new one replaces the old). */
  progress(o: ProgressOptions): Progress {
    if (o.rowsOnScreen) return NO_PROGRESS;
    const run: Run = { o, done: 0, total: o.total, start: { at: this.clock.now(), done: 0, fraction: 0 } };
    run.start.fraction = fractionOf(run) ?? 0;
    this.run = run;
    this.activity();
    this.draw(true);
    return {
      update: (done, total) => {
        if (this.run !== run) return;
        run.done = done;
        if (total !== undefined) run.total = total;
        this.draw(false);
      },
      done: () => {
        if (this.run !== run) return;
        this.run = undefined;
        this.activity();
        this.draw(true);
      },
    };
  }

  /** Shows `text` on the line under `key` (the latest wins), or removes it (`undefined`). */
  status(key: object, text: StatusText | undefined): void {
    if (text) this.statuses.set(key, text);
    else if (!this.statuses.delete(key)) return;
    this.activity();
    this.draw(true);
  }

  /** Other output is about to be written: the line makes way (and is drawn again at the next tick). */
  interrupt(): void {
    if (!this.shown) return;
    this.out.write(CLEAR);
    this.shown = '';
  }

  /** The line as it should look now, fitted to the terminal; '' when there is nothing to show. */
  render(now: number): string {
    const width = Math.max(1, (this.out.columns || 80) - 1); // the last column would wrap the cursor
    const status = [...this.statuses.values()].at(-1);
    const run = this.run;
    if (status) {
      const text = terminalSafe(status(now));
      // A request being retried holds the run up: the status takes the place of the count, rate and
      // time left (a count beside it would come and go as the countdown's width changes).
      return run ? fit({ label: run.o.label, count: '', status: text }, width) : truncate(text, width);
    }
    return run ? fit(lineOf(run, now), width) : '';
  }

  private draw(force: boolean): void {
    const now = this.clock.now();
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    const text = this.render(now);
    if (text === this.shown) return;
    this.out.write(text ? `${CLEAR}${text}` : CLEAR);
    this.shown = text;
    this.lastDraw = now;
  }

  /** Keeps a ticker while there is something to show, so time left and a countdown move on their own. */
  private activity(): void {
    const busy = this.run !== undefined || this.statuses.size > 0;
    if (busy && !this.ticker && this.opts.tick !== false) {
      this.ticker = setInterval(() => this.draw(false), TICK_MS);
      this.ticker.unref();
    } else if (!busy && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}

/** How far the run is, 0..1, when it can be told: by count when the total is known, else by bytes read. */
function fractionOf(run: Run): number | undefined {
  if (run.total !== undefined && run.total > 0) return Math.min(1, run.done / run.total);
  const b = run.o.bytes?.();
  // Read ahead of the rows settled: never 100% by bytes before the run says it is done.
  if (b && b.size > 0) return Math.min(0.99, b.read / b.size);
  return undefined;
}

function countOf(run: Run): string {
  const verb = run.o.verb ? ` ${run.o.verb}` : '';
  if (run.total !== undefined) return `${run.done.toLocaleString('en-US')} of ${run.total.toLocaleString('en-US')}${verb}`;
  return `${plural(run.done, run.o.unit)}${verb}`;
}

/** The parts of the line, in the order shown: `label  bar  count · % · rate · time left · status`. */
interface Line {
  label: string;
  /** How far, 0..1, drawn as a bar of `barWidth` columns when known and there is room. */
  fraction?: number;
  barWidth?: number;
  count: string;
  detail?: string;
  percent?: string;
  rate?: string;
  left?: string;
  status?: string;
}

function lineOf(run: Run, now: number): Line {
  const line: Line = { label: run.o.label, count: countOf(run) };
  const detail = run.o.detail?.(now);
  if (detail) line.detail = terminalSafe(detail);
  const fraction = fractionOf(run);
  if (fraction !== undefined) {
    line.fraction = fraction;
    line.percent = `${Math.floor(fraction * 100)}%`;
  }
  const start = run.start;
  const elapsed = (now - start.at) / 1000;
  if (elapsed >= 1 && run.done > start.done) {
    const rate = (run.done - start.done) / elapsed;
    const units = plural(2, run.o.unit).slice(2); // the noun's plural
    line.rate = `${rate >= 10 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1)} ${units}/s`;
  }
  // Time left once there is something to go on: 2 s of the run and 1% of the way.
  const gained = fraction === undefined ? 0 : fraction - start.fraction;
  if (fraction !== undefined && fraction < 1 && elapsed >= 2 && gained >= 0.01) {
    line.left = `${formatLeft((elapsed * (1 - fraction)) / gained)} left`;
  }
  return line;
}

function layout(line: Line): string {
  const body = [line.count, line.detail, line.percent, line.rate, line.left, line.status].filter(Boolean).join(' · ');
  return [line.label, bar(line), body].filter(Boolean).join('  ');
}

function bar(line: Line): string {
  if (line.fraction === undefined || !line.barWidth) return '';
  const filled = Math.round(line.fraction * line.barWidth);
  return `${'█'.repeat(filled)}${'░'.repeat(line.barWidth - filled)}`;
}

/**
 * The line within `width` columns: the bar takes what room is left (BAR_MIN to BAR_WIDTH columns)
 * or goes; then the label is shortened (to LABEL_MIN), then time
 * left, rate and % go, then the label; what is left is cut at the end only when nothing else can give.
 */
function fit(line: Line, width: number): string {
  const full = line.label;
  const shortenLabel = (min: number) => {
    const over = stringWidth(layout(line)) - width;
    if (over > 0) line.label = min === 0 && stringWidth(line.label) - over < 2 ? '' : truncate(full, Math.max(min, stringWidth(line.label) - over));
  };
  const steps = [
    () => shortenLabel(Math.min(LABEL_MIN, stringWidth(full))),
    () => (line.left = undefined),
    () => (line.rate = undefined),
    () => (line.percent = undefined),
    () => (line.detail = undefined),
    () => shortenLabel(0),
  ];
  for (const step of steps) {
    if (stringWidth(layout(line)) <= width) break;
    step();
  }
  const room = width - stringWidth(layout(line)) - 2;
  if (line.fraction !== undefined && room >= BAR_MIN) line.barWidth = Math.min(BAR_WIDTH, room);
  return truncate(layout(line), width);
}

/** `12s`, `4m 05s`, `2h 10m`. */
export function formatLeft(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

