// Where a command reads and writes, and what the terminal allows: TTY detection, colour, prompting.
// Tests build one over buffers with `createTestIo`, or give `main` buffer streams (`createBufferStreams`).
import { jsonTerminalSafe } from './output/safe.js';
import type { Progress, ProgressOptions, StatusLine } from './output/progress.js';
import { realClock, type Clock } from './util/clock.js';
import type { ChalkInstance } from 'chalk';
import { PassThrough, Writable, type Readable } from 'node:stream';

/** The three streams a run uses; a stream's `isTTY` and `columns` (as on process's) are honoured. */
export interface IoStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  isStdinTTY: boolean;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  /** Colour on stdout (never when piped unless forced). */
  color: boolean;
  /** Colour on stderr (progress, errors, prompts). */
  colorErr: boolean;
  /** Prompts allowed: stdin and stderr are terminals and neither --no-input nor CI forbids them. */
  canPrompt: boolean;
  columns: number;
  out(text: string): void;
  err(text: string): void;
  /** chalk instance for stdout text, honouring `color`. Loaded on first use. */
  chalk(): Promise<ChalkInstance>;
  chalkErr(): Promise<ChalkInstance>;
  /**
   * The progress of a long run on one line of stderr (src/output/progress.ts), cleared by `done()`.
   * Nothing is drawn when stderr is not a terminal, with --quiet, or with `rowsOnScreen`.
   */
  progress(opts: ProgressOptions): Promise<Progress>;
  /**
   * The one transient line on stderr (progress and retry status), loaded on first use; undefined
   * when stderr is not a terminal or with --quiet. Text written through out/err clears it first.
   */
  statusLine(): Promise<StatusLine | undefined>;
  /** Takes the transient line off the screen now (Ctrl-C: before "Interrupted." is written). */
  clearLine(): void;
}

export interface IoSettings {
  noColor?: boolean;
  noInput?: boolean;
  /** The run's environment (NO_COLOR, FORCE_COLOR, TERM, COLUMNS, CI, OUTREACH_NO_INPUT). */
  env: NodeJS.ProcessEnv;
  /** --quiet: nothing on stderr but errors (no progress, no retry status). */
  quiet?: boolean;
  /** The run's clock (virtual in tests): the progress line's rate, time left and redraw pacing. */
  clock?: Clock;
}

const NO_PROGRESS: Progress = { update: () => undefined, done: () => undefined };

function colorDecision(isTTY: boolean, settings: IoSettings, env: NodeJS.ProcessEnv): boolean {
  if (settings.noColor) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  if (force === '0' || force === 'false') return false;
  return isTTY && env.TERM !== 'dumb';
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

export function createIo(settings: IoSettings, streams: IoStreams): Io {
  const { env } = settings;
  const isStdinTTY = Boolean((streams.stdin as { isTTY?: boolean }).isTTY);
  const isStdoutTTY = Boolean((streams.stdout as { isTTY?: boolean }).isTTY);
  const isStderrTTY = Boolean((streams.stderr as { isTTY?: boolean }).isTTY);
  const color = colorDecision(isStdoutTTY, settings, env);
  const colorErr = colorDecision(isStderrTTY, settings, env);
  const canPrompt =
    isStdinTTY && isStderrTTY && !settings.noInput && !truthy(env.OUTREACH_NO_INPUT) && !truthy(env.CI);
  let chalkOut: ChalkInstance | undefined;
  let chalkErr: ChalkInstance | undefined;
  const makeChalk = async (enabled: boolean) => {
    const { Chalk } = await import('chalk');
    return new Chalk({ level: enabled ? 1 : 0 });
  };
  // The transient line is loaded only when a terminal can show it (string-width stays unloaded otherwise).
  let line: StatusLine | undefined;
  let lineLoaded: Promise<StatusLine | undefined> | undefined;
  const io: Io = {
    stdin: streams.stdin,
    stdout: streams.stdout,
    stderr: streams.stderr,
    isStdinTTY,
    isStdoutTTY,
    isStderrTTY,
    color,
    colorErr,
    canPrompt,
    // A pseudo-terminal without a size reports 0 columns: then COLUMNS, or 100.
    columns: (streams.stdout as { columns?: number }).columns || Number(env.COLUMNS) || 100,
    // Last net for terminals: the characters JSON.stringify leaves raw (C1 controls such as a one-byte
    // CSI, bidi overrides) become \u escapes. Everything else has been made safe where it was
    // formatted (src/output/safe.ts); JSON stays valid and parses to the same value.
    out: (text) => {
      if (io.isStdoutTTY) line?.interrupt();
      streams.stdout.write(jsonTerminalSafe(text));
    },
    err: (text) => {
      line?.interrupt();
      streams.stderr.write(jsonTerminalSafe(text));
    },
    chalk: async () => (chalkOut ??= await makeChalk(color)),
    chalkErr: async () => (chalkErr ??= await makeChalk(colorErr)),
    statusLine: () =>
      (lineLoaded ??=
        !io.isStderrTTY || settings.quiet
          ? Promise.resolve(undefined)
          : import('./output/progress.js').then((m) => (line = new m.StatusLine(streams.stderr as Writable & { columns?: number }, settings.clock ?? realClock)))),
    progress: async (opts) => (await io.statusLine())?.progress(opts) ?? NO_PROGRESS,
    clearLine: () => line?.interrupt(),
  };
  return io;
}

/**
 * Streams over in-memory buffers, for running `main` in tests: stdin holds `stdin` (then ends, like
 * an empty pipe when not given), nothing is a terminal, and what was written is read back as text.
 */
export function createBufferStreams(opts: { stdin?: string } = {}) {
  const stdin = new PassThrough();
  stdin.end(opts.stdin);
  const collect = () => {
    const chunks: Buffer[] = [];
    // Written synchronously (the callback is called at once), so the text is complete as soon as
    // the writer returns; decoded at the end so that a character split across writes stays whole.
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const stdout = collect();
  const stderr = collect();
  return { streams: { stdin, stdout: stdout.stream, stderr: stderr.stream } as IoStreams, stdout: stdout.text, stderr: stderr.text };
}

/** An Io over in-memory buffers, for tests. */
export function createTestIo(opts: { stdin?: string; tty?: boolean; canPrompt?: boolean; quiet?: boolean } = {}) {
  const stdin = new PassThrough();
  if (opts.stdin !== undefined) stdin.end(opts.stdin);
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const io = createIo({ env: {}, quiet: opts.quiet }, { stdin, stdout, stderr });
  const tty = Boolean(opts.tty);
  Object.assign(io, {
    isStdinTTY: tty,
    isStdoutTTY: tty,
    isStderrTTY: tty,
    canPrompt: opts.canPrompt ?? false,
    out: (t: string) => void (out += t),
    err: (t: string) => void (err += t),
  });
  return { io, stdout: () => out, stderr: () => err };
}
