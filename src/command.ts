// Glue between commander and a command's `run(opts, ctx)`: builds the Context from the global
// options when (and only when) a command actually runs.
import { Command, Help, type Option } from 'commander';
import { createContext, type Context, type GlobalOptions } from './context.js';
import { UsageError } from './errors.js';
import { createIo, type IoStreams } from './io.js';
import { isFormat, type Format } from './output/format.js';
import type { Clock } from './util/clock.js';
import { displayWidth, reflowHelpText } from './help/format.js';
import { rootHelp } from './help/root.js';

/** One run of `main`: what a command's Context is built from. Never shared between runs. */
export interface Invocation {
  env: NodeJS.ProcessEnv;
  streams: IoStreams;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  clock: Clock;
  /** The context of the command that is running, for main (interrupt handling, cleanup). */
  current?: Context;
}

// Each run builds its own program; the run is found from any of its commands through the root.
const invocations = new WeakMap<Command, Invocation>();

export function bindInvocation(program: Command, invocation: Invocation): void {
  invocations.set(program, invocation);
}

function invocationOf(cmd: Command): Invocation {
  let root = cmd;
  while (root.parent) root = root.parent;
  const invocation = invocations.get(root);
  if (!invocation) throw new Error('a command ran outside main(): its program has no invocation bound');
  return invocation;
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

export function parseTimeoutSeconds(raw: string, from: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 3600) {
    throw new UsageError(`Invalid ${from} "${raw}": give a number of seconds between 0 and 3600.`);
  }
  return n;
}

/** Parses and checks the global options commander collected. */
export function globalsFrom(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  let format: Format = 'table';
  let formatExplicit = false;
  if (raw.json) {
    format = 'json';
    formatExplicit = true;
  }
  if (typeof raw.output === 'string') {
    if (!isFormat(raw.output)) throw new UsageError(`Unknown output format "${raw.output}": use table, json, ndjson, csv or tsv.`);
    if (raw.json && raw.output !== 'json') throw new UsageError('--json and -o/--output disagree: give one of them.');
    format = raw.output;
    formatExplicit = true;
  }
  let requestTimeoutSec = 30;
  if (typeof raw.requestTimeout === 'string') requestTimeoutSec = parseTimeoutSeconds(raw.requestTimeout, '--request-timeout');
  else if (env.OUTREACH_TIMEOUT) requestTimeoutSec = parseTimeoutSeconds(env.OUTREACH_TIMEOUT, 'OUTREACH_TIMEOUT');
  return {
    profile: (raw.profile as string | undefined) || undefined,
    baseUrl: (raw.baseUrl as string | undefined) || undefined,
    format,
    formatExplicit,
    quiet: Boolean(raw.quiet),
    debug: Boolean(raw.debug) || truthy(env.OUTREACH_DEBUG),
    requestTimeoutSec,
    noInput: raw.input === false || truthy(env.OUTREACH_NO_INPUT) || truthy(env.CI),
  };
}

export function contextFor(cmd: Command): Context {
  const run = invocationOf(cmd);
  const raw = cmd.optsWithGlobals() as Record<string, unknown>;
  const globals = globalsFrom(raw, run.env);
  const io = createIo({ noColor: raw.color === false, noInput: globals.noInput, quiet: globals.quiet, clock: run.clock, env: run.env }, run.streams);
  const ctx = createContext({ io, env: run.env, globals, signal: run.signal, clock: run.clock });
  run.current = ctx;
  return ctx;
}

/**
 * Wraps a command's run function as a commander action. Positional arguments arrive first, then the
 * command's own options; `run` receives them merged as `{ args, ...options }`.
 */
export function action<O extends object>(run: (opts: O & { args: string[] }, ctx: Context) => Promise<void>) {
  return async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const own = params[params.length - 2] as Record<string, unknown>;
    const args = params.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
    const ctx = contextFor(cmd);
    await run({ ...(own as O), args }, ctx);
  };
}

/** Help text block with examples, shown after a command's options (laid out at help time). */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

// ---- help -----------------------------------------------------------------------------------------

/**
 * Every command of the program. Its help texts (examples, notes: strings written hard-wrapped in the
 * source) are laid out when help is shown, for the width of the stream it goes to.
 */
export class OutreachCommand extends Command {
  override createCommand(name?: string): Command {
    return new OutreachCommand(name);
  }

  override addHelpText(position: 'beforeAll' | 'before' | 'after' | 'afterAll', text: string | ((context: HelpContext) => string)): this {
    return super.addHelpText(position, (context) => {
      const raw = typeof text === 'function' ? text(context) : text;
      const out = context.command.configureOutput();
      const width = (context.error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.()) ?? 80;
      // commander ends the block with a line break of its own.
      return raw && reflowHelpText(raw, width).replace(/\n+$/, '');
    });
  }
}

type HelpContext = { error: boolean; command: Command };

/** Options shown "(required)" though commander does not enforce them (`requiredInHelp`). */
const requiredNotes = new WeakMap<Option, string>();

/**
 * Marks an option required in help when the command enforces it itself, e.g. `--definition`, which
 * `--definition-file` replaces: `requiredInHelp(new Option(...), 'unless --definition-file')`.
 */
export function requiredInHelp(option: Option, condition?: string): Option {
  requiredNotes.set(option, condition ? `required ${condition}` : 'required');
  return option;
}

function isEmptyDefault(value: unknown): boolean {
  if (value === '' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return value !== null && typeof value === 'object' && Object.keys(value).length === 0;
}

/**
 * How help reads (commander's configureHelp, inherited by every command): display widths measured
 * properly, our hard-wrapped descriptions re-flowed, required options marked, no empty defaults
 * such as `(default: [])`, and the root help grouped (src/help/root.ts).
 */
export const helpConfig: Partial<Help> = {
  // Descriptions wrap even in a narrow column (commander leaves them whole below 40 columns).
  minWidthToWrap: 16,
  displayWidth: (text: string) => displayWidth(text),
  boxWrap(this: Help, text: string, width: number) {
    return reflowHelpText(text, width);
  },
  optionDescription(this: Help, option: Option) {
    const value = option.defaultValue;
    // A plain word or number reads as typed (default: 4010), not as JSON (default: "4010").
    const plain = typeof value === 'string' && /^[\w.:/-]+$/.test(value) && option.defaultValueDescription === undefined;
    const shown = isEmptyDefault(value)
      ? Object.create(option, { defaultValue: { value: undefined } })
      : plain
        ? Object.create(option, { defaultValueDescription: { value } })
        : option;
    const text = Help.prototype.optionDescription.call(this, shown);
    const required = option.mandatory ? 'required' : requiredNotes.get(option);
    return required ? `${text} (${required})` : text;
  },
  formatHelp(this: Help, cmd: Command, helper: Help) {
    return cmd.parent ? Help.prototype.formatHelp.call(this, cmd, helper) : rootHelp(helper);
  },
};
