// `outreach api METHOD PATH`: a raw request with the profile's auth, for what no command covers yet.
import type { Command } from 'commander';
import { action, examples } from '../command.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readJsonArgument } from '../input.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
type Method = (typeof METHODS)[number];

interface Options {
  data?: string;
  query?: string[];
  args: string[];
}

export function register(program: Command): void {
  program
    .command('api')
    .description('Make a raw request with the profile\'s auth and print the response body')
    .argument('<method>', `HTTP method: ${METHODS.join(', ')}`)
    .argument('<path>', 'path below the base URL, e.g. /call or /eligibility/12')
    .option('-d, --data <json>', 'request body: inline JSON, @file, or - for stdin')
    .option('--query <key=value>', 'query parameter (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .addHelpText(
      'after',
      examples(
        'outreach api GET /phone-number',
        'outreach api GET /call --query limit=5',
        'outreach api PATCH /tool/tool_123 --data \'{"async": true}\'',
        'outreach api POST /sequence-manager/sequences/batch --data @body.json',
      ),
    )
    .action(action(run));
}

export function parseQuery(pairs: string[] = []): Record<string, string> {
  const query: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`Invalid --query "${pair}": use key=value.`);
    query[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return query;
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const [methodRaw, path] = opts.args;
  const method = (methodRaw ?? '').toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new UsageError(`Unknown method "${methodRaw}": use one of ${METHODS.join(', ')}.`);
  if (!path) throw new UsageError('Missing <path>.');
  if (/^https?:\/\//i.test(path)) throw new UsageError('Give a path below the base URL (e.g. /call), not a full URL; use --base-url for the host.');
  const query = parseQuery(opts.query);
  const body = opts.data === undefined ? undefined : await readJsonArgument(opts.data, '--data', ctx.io);
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new UsageError(`${method} requests take no --data.`);
  const client = await ctx.client({ anonymous: path.replace(/^\/(v1\/)?/, '') === 'health' });
  const res = await client.request(method, path, { query, body });
  if (res.text.trim() === '') {
    ctx.info(`${res.status} (no body)`);
    return;
  }
  ctx.io.out(ctx.globals.format === 'ndjson' && Array.isArray(res.data)
    ? res.data.map((r) => JSON.stringify(r)).join('\n') + '\n'
    : `${JSON.stringify(res.data, null, 2)}\n`);
}
