// The program: builds the commander program, registers commands lazily, runs one invocation and
// turns errors into exit codes. Importing this module runs nothing, and `main` never touches the
// process: no exit, no process streams, env or argv. The entry (cli.ts) passes the process's; tests
// pass buffers, an exact env and a virtual clock, and may run several invocations at once.
//
// Lazy registration: the root help needs only each command's name and summary (the manifest). Only
// the command being run has its module loaded and its flags registered, so `outreach --help` never
// loads a command module, and a command's heavy dependencies (undici, conf, prompts, csv-parse, the
// sandbox) load only inside its run function.
import { type Command, CommanderError, Help, Option } from 'commander';
import { bindInvocation, helpConfig, OutreachCommand, type Invocation } from './command.js';
import { findCommandName } from './cli-args.js';
import { COMMANDS, placeholders } from './commands/manifest.js';
import { CliError, ExitCode, InterruptedError, UsageError } from './errors.js';
import { helpWidthOf, reflowHelpText } from './help/format.js';
import { findTopic, TOPICS } from './help/topics.js';
import type { IoStreams } from './io.js';
import { jsonTerminalSafe, terminalSafe } from './output/safe.js';
import { realClock, type Clock } from './util/clock.js';

export interface MainOptions {
  /** Where this run reads and writes: the process's streams in the entry, buffers in tests. */
  io: IoStreams;
  /** The whole environment of the run; process.env is never read. */
  env: NodeJS.ProcessEnv;
  /** Time and waiting for the commands (virtual in tests); the real clock by default. */
  clock?: Clock;
  /**
   * Ctrl-C. Aborting it aborts the running command; unless that command handles the interrupt
   * itself (a batch writing its journal), main prints "Interrupted." and returns 130 at once.
   */
  signal?: AbortSignal;
}

export function buildProgram(version: string, io: IoStreams, env: NodeJS.ProcessEnv = {}): Command {
  const program = new OutreachCommand('outreach');
  program
    .description('Patient outreach and insurance eligibility from the command line.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand('help [command]', 'show help for a command or a topic (outreach help options)')
    .option('--profile <name>', 'stored profile to use (env OUTREACH_PROFILE)')
    .option('--base-url <url>', 'service address including /v1 (env OUTREACH_BASE_URL)')
    .addOption(new Option('-o, --output <format>', 'output format: table, json, ndjson, csv, tsv (outreach help formats)'))
    .option('--json', 'same as -o json')
    .option('--no-color', 'no colour (env NO_COLOR); never colour when piped')
    .option('-q, --quiet', 'only the essential result; nothing on stderr but errors')
    .option('--debug', 'HTTP trace on stderr, secrets redacted (env OUTREACH_DEBUG=1)')
    .option('--request-timeout <seconds>', 'per-request timeout in seconds, default 30 (env OUTREACH_TIMEOUT)')
    .option('--no-input', 'never prompt (env OUTREACH_NO_INPUT=1 or CI=true)')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureHelp(helpConfig)
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      // commander echoes arguments (which may come from a file through xargs): inert on stderr.
      writeErr: (s) => void io.stderr.write(terminalSafe(s, { multiline: true })),
      getOutHelpWidth: () => helpWidthOf(io.stdout, env),
      getErrHelpWidth: () => helpWidthOf(io.stderr, env),
    })
    // Every command's help ends by pointing at the options they all take (the root's lists topics).
    .addHelpText('afterAll', ({ command }) => (command.parent ? '\nOptions every command takes: outreach help options' : ''));
  // Subcommands inherit exitOverride, help and output settings via copyInheritedSettings.
  return program;
}

/**
 * `outreach help <topic>`: the topic's text, or undefined when argv asks for something else. A
 * name that is neither a topic nor a command is a usage error listing both kinds.
 */
function helpTopic(program: Command, argv: string[]): string | undefined {
  if (findCommandName(argv) !== 'help') return undefined;
  const name = findCommandName(argv.slice(argv.indexOf('help') + 1));
  if (name === undefined || program.commands.some((c) => c.name() === name || c.aliases().includes(name))) return undefined;
  const topic = findTopic(name);
  if (!topic) {
    throw new UsageError(`No help topic or command named "${name}".`, {
      hint: `Topics: ${TOPICS.map((t) => t.name).join(', ')}. Commands: outreach --help.`,
    });
  }
  const helper = Object.assign(new Help(), helpConfig);
  const width = program.configureOutput().getOutHelpWidth?.() ?? 80;
  helper.prepareContext({ helpWidth: width });
  return `${reflowHelpText(topic.text(program, helper), width).replace(/\n*$/, '')}\n`;
}

async function registerFor(program: Command, argv: string[]): Promise<void> {
  const name = findCommandName(argv);
  const entry = COMMANDS.find((c) => c.name === name || c.aliases?.includes(name ?? ''));
  const helpTarget = name === 'help' ? COMMANDS.find((c) => c.name === findCommandName(argv.slice(argv.indexOf('help') + 1))) : undefined;
  const chosen = entry ?? helpTarget;
  for (const c of COMMANDS) {
    if (c === chosen) (await c.load()).register(program);
    else placeholders.add(program.command(c.name).description(c.summary)); // for root help and suggestions
  }
}

interface Report {
  json: boolean;
  debug: boolean;
  /** Our own "error:" in red. */
  color: boolean;
  stderr: IoStreams['stderr'];
  /** Lays a message's lines out for a terminal (wrapped at words); none when stderr is not one. */
  fit?: (text: string) => string;
}

// Messages, hints and details may carry the service's words or a file's values: whatever reaches
// stderr is made inert here (the one place errors are printed), our own red excepted. Line breaks of
// our multi-line messages and hints stay.
function printError(err: CliError, opts: Report, stack?: string, hint = err.hint) {
  const safe = (s: string) => terminalSafe(s, { multiline: true });
  const write = (s: string) => void opts.stderr.write(s);
  if (opts.json) {
    // JSON escapes C0 controls; jsonTerminalSafe escapes what it leaves raw (C1, bidi). Same value.
    const report = { error: { code: err.code, message: err.message, status: err.status ?? null, details: err.details ?? null } };
    write(`${jsonTerminalSafe(safeJson(report))}\n`);
  } else {
    const red = (s: string) => (opts.color ? `\u001b[31m${s}\u001b[39m` : s);
    // The user's own Ctrl-C is no error: said plainly, with what it left behind.
    const fit = opts.fit ?? ((t: string) => t);
    if (err instanceof InterruptedError) write(`${fit(safe(err.message))}\n`);
    else write(`${red('error:')}${fit(`error: ${safe(err.message)}`).slice('error:'.length)}\n`);
    if (hint) write(`${fit(safe(hint))}\n`);
  }
  if (opts.debug && stack) write(`${safe(stack)}\n`);
  // A body that was not JSON (a proxy's HTML page) is summarised in the message; --debug shows it,
  // cut short and inert.
  const raw = (err as { rawBody?: unknown }).rawBody;
  if (opts.debug && typeof raw === 'string') {
    const shown = safe(raw.slice(0, 4000));
    write(`[debug] body of the answer (${raw.length} characters):\n${shown}${raw.length > 4000 ? '\n…' : ''}\n`);
  }
}

/** The error report as JSON, even when `details` (a service's body) cannot be stringified. */
function safeJson(report: { error: Record<string, unknown> }): string {
  try {
    return JSON.stringify(report);
  } catch {
    return JSON.stringify({ error: { ...report.error, details: '[not shown: too deeply nested or not serialisable]' } });
  }
}

/** Runs one invocation of the CLI and resolves to its exit code. */
export async function main(argv: string[], opts: MainOptions): Promise<number> {
  const { env, io } = opts;
  const controller = new AbortController();
  const invocation: Invocation = { env, streams: io, signal: controller.signal, clock: opts.clock ?? realClock };
  // Decided before commander parses, so that its own errors are reported the same way.
  const report: Report = {
    json: argv.includes('--json') || /(^|\s)(-o|--output)(\s+|=)json(\s|$)/.test(argv.join(' ')),
    debug: argv.includes('--debug') || ['1', 'true'].includes(env.OUTREACH_DEBUG ?? ''),
    color: Boolean((io.stderr as { isTTY?: boolean }).isTTY) && !env.NO_COLOR && !argv.includes('--no-color'),
    stderr: io.stderr,
  };

  // Ctrl-C: the command is aborted; one that records partial work (batch journal) handles it
  // itself and ends on its own, any other run ends here at once.
  let leftEarly = false;
  let onInterrupt = () => {};
  const interrupted = new Promise<number>((resolve) => {
    onInterrupt = () => {
      controller.abort(new InterruptedError());
      if (invocation.current?.handlesInterrupt) return;
      leftEarly = true;
      const note = invocation.current?.interruptNote;
      io.stderr.write(`\nInterrupted.\n${note ? `${terminalSafe(note, { multiline: true })}\n` : ''}`);
      resolve(ExitCode.interrupted);
    };
  });
  if (opts.signal?.aborted) onInterrupt();
  else opts.signal?.addEventListener('abort', onInterrupt, { once: true });

  const run = async (): Promise<number> => {
    const program = buildProgram(__OUTREACH_VERSION__, io, env);
    bindInvocation(program, invocation);
    try {
      await registerFor(program, argv);
      const topic = helpTopic(program, argv);
      if (topic !== undefined) {
        io.stdout.write(topic);
        return ExitCode.ok;
      }
      await program.parseAsync(argv, { from: 'user' });
      return ExitCode.ok;
    } catch (err) {
      // After an interrupt that ended the run, the command's own end is not reported.
      if (leftEarly) return ExitCode.interrupted;
      const { settingsHint } = await import('./help/hints.js');
      const hint = err instanceof CliError ? await settingsHint(err, invocation.current) : undefined;
      return handleError(err, { ...report, fit: await terminalFit(report) }, hint);
    } finally {
      const current = invocation.current as (Invocation['current'] & { closeClients?: () => Promise<void> }) | undefined;
      await current?.closeClients?.();
    }
  };
  try {
    return await Promise.race([run(), interrupted]);
  } finally {
    opts.signal?.removeEventListener('abort', onInterrupt);
  }
}

/**
 * On a terminal, an error's lines are wrapped at words with a hanging indent rather than cut by the
 * terminal mid-word. A line holding a command (`outreach …`) is left whole: broken at a space, a
 * pasted command would run its first half.
 */
async function terminalFit(report: Report): Promise<Report['fit']> {
  const stderr = report.stderr as { isTTY?: boolean; columns?: number };
  if (report.json || !stderr.isTTY) return undefined;
  const { wrapLine } = await import('./output/problems.js');
  const width = Math.max(40, (stderr.columns || 80) - 1);
  return (text) =>
    text
      .split('\n')
      .flatMap((line) => (/(^|\s)outreach\s/.test(line) ? [line] : wrapLine(line, width, '  ')))
      .join('\n');
}

function handleError(err: unknown, opts: Report, hint?: string): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
      return ExitCode.ok;
    }
    // commander already printed its message (with a suggestion for mistyped commands).
    return ExitCode.usage;
  }
  if (err instanceof CliError) {
    printError(err, opts, err.stack, hint);
    return err.exitCode;
  }
  const e = err as Error;
  const wrapped = new CliError(
    `Unexpected error: ${e?.message ?? String(err)}`,
    ExitCode.service,
    { code: 'internal', hint: opts.debug ? undefined : 'Run again with --debug for details.' },
  );
  printError(wrapped, opts, e?.stack);
  return ExitCode.service;
}
