// `outreach webhooks listen`: a local receiver that shows each webhook delivery, checks the bearer
// secret, and can forward deliveries unchanged to your own server.
import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readSecret } from '../../secret.js';

interface Options {
  port: string;
  host: string;
  secretEnv?: string;
  forwardTo?: string;
  args: string[];
}

export function register(parent: Command): void {
  parent
    .command('listen')
    .description('Receive webhooks on a local port and print each delivery (Ctrl-C to stop)')
    .option('--port <port>', 'port to listen on (0 = any free port)', '4011')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--secret-env <VAR>', 'environment variable holding the webhook secret; deliveries without Authorization: Bearer <it> get 401')
    .option('--forward-to <url>', 'also POST each accepted delivery, unchanged, to this URL and show its answer (redirects are not followed)')
    .addHelpText(
      'after',
      '\nOn a terminal each delivery is one short line (ids of checks, calls and sequences, status, outcome,\n' +
        'duration; no patient data).\n' +
        'Piped, or with -o ndjson, each delivery is one JSON line with the body in full.\n' +
        examples(
          'outreach webhooks listen',
          'WEBHOOK_SECRET=s3cret outreach webhooks listen --port 4011 --secret-env WEBHOOK_SECRET',
          'outreach webhooks listen --forward-to http://localhost:3000/hooks',
          "outreach webhooks listen -o ndjson | jq 'select(.kind == \"end-of-call\") | .body.call.outcome'",
          'outreach eligibility check --input req.json --webhook-url http://127.0.0.1:4011/ --webhook-secret-env WEBHOOK_SECRET',
        ),
    )
    .action(action(run));
}

function parsePort(raw: string): number {
  const s = raw.trim();
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65535) throw new UsageError(`Invalid --port "${raw}": give a whole number from 0 to 65535 (0 = any free port).`);
  return n;
}

function parseForward(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`Invalid --forward-to "${raw}": give an http:// or https:// URL.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`Invalid --forward-to "${raw}": give an http:// or https:// URL.`);
  return u.toString();
}

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * A delivery as one JSON line, the body as received. The listener refuses bodies nested too deep
 * to serialise, but should one get through, the line is still written, its body replaced by a note.
 */
function jsonLine(d: object): string {
  try {
    return JSON.stringify(d);
  } catch {
    return JSON.stringify({ ...d, body: null, body_note: 'not shown: too deeply nested to serialise' });
  }
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const port = parsePort(opts.port);
  const forwardTo = parseForward(opts.forwardTo);
  const secret = await readSecret(ctx, { what: 'webhook secret', envFlag: '--secret-env', envVar: opts.secretEnv });
  const { format, formatExplicit } = ctx.globals;
  if (format === 'csv' || format === 'tsv') throw new UsageError(`-o ${format} does not suit a stream of deliveries: use -o ndjson (or table on a terminal).`);
  // Short lines on a terminal (or when asked for a table); one JSON line per delivery otherwise.
  const human = format === 'table' && (ctx.io.isStdoutTTY || formatExplicit);

  ctx.handlesInterrupt = true; // Ctrl-C closes the server and exits 0
  const { startListener, parseLimits, DEFAULT_LIMITS, shown } = await import('../../webhooks/listener.js');
  // A knob for tests (small timeouts and caps); undocumented, the defaults suit real use.
  const limits = { ...DEFAULT_LIMITS, ...parseLimits(ctx.env.OUTREACH_WEBHOOK_LIMITS) };
  const chalk = await ctx.io.chalk();
  const chalkErr = await ctx.io.chalkErr();
  const KIND_COLOUR = { eligibility: chalk.cyan, 'end-of-call': chalk.green, 'end-of-sequence': chalk.magenta, unrecognised: chalk.yellow };

  let listener: Awaited<ReturnType<typeof startListener>>;
  try {
    listener = await startListener({
      port,
      host: opts.host,
      secret,
      forwardTo,
      limits,
      onDelivery: (d) => {
        if (!human) {
          ctx.io.out(`${jsonLine(d)}\n`);
          return;
        }
        // The summary is already terminal-safe and free of patient data (webhooks/classify.ts);
        // anything else from the delivery passes through `shown` (terminalSafe, clipped) here.
        const time = d.received_at.slice(11, 19);
        const colour = KIND_COLOUR[d.kind];
        const cut = d.summary.indexOf(' ');
        const kind = cut < 0 ? d.summary : d.summary.slice(0, cut);
        let line = `${chalk.dim(time)}  ${colour(kind)}${cut < 0 ? '' : d.summary.slice(cut)}`;
        if (d.kind === 'unrecognised' && d.event) line += `  (event ${shown(d.event)})`;
        if (d.attempt && d.attempt > 1) line += chalk.dim(`  attempt ${d.attempt}`);
        if (d.forward) {
          const f = d.forward;
          if (f.status === undefined) line += `  → ${chalk.red(`forward failed: ${shown(f.error)}`)}`;
          else {
            const ok = f.status >= 200 && f.status < 300;
            line += `  → ${(ok ? chalk.green : chalk.red)(String(f.status))}${f.note ? ` (${shown(f.note)})` : ''}`;
          }
        }
        ctx.io.out(`${line}\n`);
      },
      onRejected: (r) => {
        const why =
          r.reason === 'missing'
            ? 'no Authorization header'
            : r.reason === 'mismatch'
              ? 'wrong secret'
              : r.reason === 'too-deep'
                ? `body nested too deeply (over ${limits.maxDepth} levels)`
                : `body over ${sizeText(limits.maxBodyBytes)}`;
        void ctx.warn(`rejected a delivery to ${shown(r.path)} from ${shown(r.remote)}: ${why} (answered ${r.status})`);
      },
      onError: (e) => {
        void ctx.warn(`could not handle a delivery: ${shown((e as Error)?.message ?? e)}`);
      },
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`Port ${port} on ${opts.host} is already in use.`, { hint: 'Pick another with --port (0 = any free port).' });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') throw new UsageError(`Cannot listen on --host ${opts.host} --port ${port} (${code}).`);
    throw err;
  }

  // The URL to give the service is essential: printed even with --quiet.
  ctx.io.err(`Listening for webhooks on ${chalkErr.bold(listener.url)}\n`);
  ctx.info(
    (secret ? `Checking Authorization: Bearer <secret from $${opts.secretEnv}>; other deliveries get 401.\n` : 'No --secret-env: every delivery is accepted unchecked.\n') +
      (forwardTo ? `Forwarding each accepted delivery to ${forwardTo}\n` : '') +
      'Press Ctrl-C to stop.',
  );

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', stop, { once: true });
    process.once('SIGTERM', stop);
  });
  await listener.close();
  ctx.info(`Stopped: ${listener.deliveries} deliver${listener.deliveries === 1 ? 'y' : 'ies'} received, ${listener.rejected} rejected.`);
}
