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
  const { startListener, parseLimits, DEFAULT_LIMITS } = await import('../../webhooks/listener.js');
  const { deliveryLine } = await import('../../webhooks/line.js');
  const { RepeatedWarnings, errorWarning, rejectionWarning, stopSummary } = await import('../../webhooks/report.js');
  const { default: wrapAnsi } = await import('wrap-ansi');
  // A knob for tests (small timeouts and caps); undocumented, the defaults suit real use.
  const limits = { ...DEFAULT_LIMITS, ...parseLimits(ctx.env.OUTREACH_WEBHOOK_LIMITS) };
  const chalk = await ctx.io.chalk();
  const chalkErr = await ctx.io.chalkErr();
  const columns = ctx.io.columns;
  /** Our own words on a terminal's stderr, wrapped to its width, continuation lines indented; one line each in a log. */
  const wrapped = (text: string, indent: number) =>
    ctx.io.isStderrTTY ? wrapAnsi(text, columns - indent, { hard: true }).replace(/\n/g, `\n${' '.repeat(indent)}`) : text;
  // Warnings are said in order, and all of them before the summary at the end.
  let said = Promise.resolve();
  const warnings = new RepeatedWarnings((text) => (said = said.then(() => ctx.warn(wrapped(text, 'warning: '.length)))));

  let listener: Awaited<ReturnType<typeof startListener>>;
  try {
    listener = await startListener({
      port,
      host: opts.host,
      secret,
      forwardTo,
      limits,
      onDelivery: (d) => {
        ctx.io.out(`${human ? deliveryLine(d, columns, chalk) : jsonLine(d)}\n`);
      },
      onRejected: (r) => warnings.warn(rejectionWarning(r, limits)),
      onError: (e, delivery) => warnings.warn(errorWarning(e, delivery)),
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
  // After the terminal's own "^C", our words start on a line of their own.
  if (ctx.signal.aborted && ctx.io.isStderrTTY) ctx.io.err('\n');
  await listener.close();
  warnings.flush();
  await said;
  ctx.info(wrapped(stopSummary(listener.counts(), limits), 2));
}
