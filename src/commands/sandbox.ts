// `outreach sandbox`: runs the local service (src/sandbox) in the foreground until Ctrl-C/SIGTERM.
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { action, examples } from '../command.js';
import type { Context } from '../context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { terminalSafe } from '../output/safe.js';
import { readSecret } from '../secret.js';

interface Options {
  port: string;
  host: string;
  db?: string;
  memory?: boolean;
  apiKey?: string;
  speed: string;
  eligibilityDelay: string;
  profile?: boolean;
  scheduler?: boolean;
  sequenceWebhookUrl?: string;
  sequenceWebhookSecretEnv?: string;
}

export function register(program: Command): void {
  program
    .command('sandbox')
    .description('Run the local sandbox service (the whole API, persistent in SQLite) until Ctrl-C')
    .option('--port <port>', 'port to listen on (0 = any free port)', '4010')
    .option('--host <host>', 'address to listen on (anything but loopback lets the network reach it: a warning says so)', '127.0.0.1')
    .option('--db <file>', 'SQLite database file, kept between runs (default: sandbox.db in the user data dir)')
    .option('--memory', 'keep everything in memory: a clean start, lost on exit')
    .option('--api-key <key>', "fix the first organisation's API key")
    .option('--speed <n>', 'time acceleration for processing (e.g. 3600 turns an hour into a second)', '1')
    .option('--eligibility-delay <ms>', 'time for an eligibility check to complete, before --speed', '2000')
    .option('--no-profile', 'do not store a "sandbox" profile pointing at it')
    .option('--no-scheduler', 'do not run created sequences (they stay queued)')
    .option('--sequence-webhook-url <url>', 'POST an end-of-sequence report here when a sequence ends')
    .option('--sequence-webhook-secret-env <VAR>', 'environment variable holding the secret sent as Authorization: Bearer with those reports')
    .addHelpText(
      'after',
      examples(
        'outreach sandbox',
        'outreach sandbox --port 0 --memory -o json   # for scripts: prints base_url and keys as JSON',
        'outreach sandbox --db ./demo.db --speed 3600',
        'SEQ_SECRET=s3cret outreach sandbox --speed 3600 --sequence-webhook-url http://127.0.0.1:4011/ --sequence-webhook-secret-env SEQ_SECRET',
      ),
    )
    .action(action(run));
}

export function defaultDbPath(env: NodeJS.ProcessEnv): string {
  const base = env.OUTREACH_DATA_DIR || join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'outreach');
  return join(base, 'sandbox.db');
}

function intOption(raw: string, flag: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`Invalid ${flag} "${raw}": give a number from ${min} to ${max}.`);
  }
  return n;
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const port = intOption(opts.port, '--port', 0, 65535);
  const speed = intOption(opts.speed, '--speed', 0.001, 10_000_000);
  const eligibilityDelayMs = intOption(opts.eligibilityDelay, '--eligibility-delay', 0, 3_600_000);
  if (opts.db && opts.memory) throw new UsageError('Give --db or --memory, not both.');
  const dbPath = opts.memory ? ':memory:' : (opts.db ?? defaultDbPath(ctx.env));
  if (dbPath !== ':memory:') {
    try {
      // Only new directories get 0700 (the database inside is 0600 in any case).
      mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new UsageError(`Cannot create the directory for --db ${dbPath}: ${(err as Error).message}`);
    }
  }

  const sequenceWebhookUrl = opts.sequenceWebhookUrl;
  if (sequenceWebhookUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(sequenceWebhookUrl)) {
    throw new UsageError(`Invalid --sequence-webhook-url "${sequenceWebhookUrl}": give an http:// or https:// URL.`);
  }
  const sequenceWebhookSecret = await readSecret(ctx, {
    what: 'sequence webhook secret',
    envFlag: '--sequence-webhook-secret-env',
    envVar: opts.sequenceWebhookSecretEnv,
  });

  const host = opts.host.trim();
  if (host === '') throw new UsageError('Give --host an address, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).');

  ctx.handlesInterrupt = true; // shut down cleanly on Ctrl-C instead of exiting mid-write
  const { startSandbox, SandboxUnavailableError, describeListenHost } = await import('../sandbox/index.js');
  const chalk = await ctx.io.chalkErr();
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      port,
      host,
      dbPath,
      apiKey: opts.apiKey,
      speed,
      eligibilityDelayMs,
      scheduler: opts.scheduler !== false,
      sequenceWebhookUrl,
      sequenceWebhookSecret,
      // Log lines can quote what a client sent (an error's message): inert before the dim style.
      log: ctx.globals.quiet ? undefined : (line) => ctx.io.err(`${chalk.dim(terminalSafe(line))}\n`),
    });
  } catch (err) {
    if (err instanceof SandboxUnavailableError) throw new CliError(err.message, ExitCode.service, { code: 'sandbox_unavailable' });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`Port ${port} on ${host} is already in use.`, { hint: 'Pick another with --port (0 = any free port).' });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAFNOSUPPORT' || code === 'EAI_AGAIN') {
      throw new UsageError(`Cannot listen on --host ${host}.`);
    }
    if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_NOTADB' || code === 'EACCES') {
      throw new UsageError(`Cannot use the database ${dbPath}: ${(err as Error).message}`);
    }
    throw err;
  }

  if (opts.profile !== false) {
    try {
      const store = await ctx.store();
      store.save('sandbox', { baseUrl: sandbox.baseUrl, apiKey: sandbox.organizations[0]!.api_key });
    } catch (err) {
      await ctx.warn(`could not store the "sandbox" profile: ${(err as Error).message}`);
    }
  }

  // Beyond loopback, anyone on the network can use the sandbox: organisation 2's key is always the
  // public demo key, and organisation 1's is too unless --api-key was given. Said on stderr, even
  // with --quiet or -o json, before the summary.
  const listen = describeListenHost(host);
  if (!listen.loopback) {
    const where = listen.allInterfaces ? `listens on all network interfaces (${host})` : `listens on ${host}, a network address`;
    const keys = opts.apiKey
      ? "the API key you gave with --api-key, or organisation 2's seeded demo API key, which is public"
      : 'the seeded demo API keys, which are public (printed below and in the docs)';
    await ctx.warn(
      `the sandbox ${where}: anyone on the network can reach it and read or change its data with ${keys}. ` +
        'Use --host 127.0.0.1 to keep it on this machine.',
    );
  }

  const summary = {
    base_url: sandbox.baseUrl,
    host,
    database: dbPath,
    organizations: sandbox.organizations,
  };
  if (ctx.globals.format === 'json' || ctx.globals.format === 'ndjson') {
    ctx.io.out(`${JSON.stringify(summary)}\n`);
  } else {
    const out = await ctx.io.chalk();
    const on = listen.allInterfaces ? `all interfaces (${host}); from this machine: ` : '';
    // One short line per fact, so that nothing wraps at 80 columns (a tool id alone is 36).
    const kept = dbPath === ':memory:' ? 'in memory: lost when it stops' : 'kept between runs; --memory starts clean';
    ctx.io.out(`Sandbox listening on ${on}${out.bold(sandbox.baseUrl)}\n  database  ${dbPath}\n            (${kept})\n`);
    for (const org of sandbox.organizations) {
      const [first, ...rest] = org.tool_ids;
      const tools = [first ?? '-', ...rest.map((id) => `              ${id}`)].join('\n');
      ctx.io.out(`  org ${org.id} ${org.name}\n    api key   ${org.api_key}\n    tool ids  ${tools}\n`);
    }
    ctx.io.out(
      `\nTry it in another terminal:\n  outreach --profile sandbox health\n  outreach --profile sandbox definitions list\n` +
        `Stop with Ctrl-C.\n`,
    );
  }

  await new Promise<void>((resolve) => {
    const stop = () => {
      ctx.signal.removeEventListener('abort', stop);
      process.removeListener('SIGTERM', stop);
      resolve();
    };
    if (ctx.signal.aborted) return stop();
    ctx.signal.addEventListener('abort', stop, { once: true });
    process.once('SIGTERM', stop);
  });
  ctx.info('Stopping the sandbox…');
  await sandbox.close();
  ctx.info('Sandbox stopped.');
}
