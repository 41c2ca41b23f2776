import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Call } from '../../api/types.js';
import { writeList, type Column } from '../../output/writer.js';
import { parseWhen, TimeParseError } from '../../util/relativeTime.js';
import { terminalSafe } from '../../output/safe.js';

interface Options {
  since?: string;
  until?: string;
  limit?: string;
  args: string[];
}

export function register(calls: Command): void {
  calls
    .command('list')
    .alias('ls')
    .description('List call records, newest first')
    .option('--since <date>', 'created on or after: ISO 8601 date/date-time, or 30m, 12h, 2d, 1w, today, yesterday')
    .option('--until <date>', 'created on or before (a day means the end of that day)')
    .option('--limit <n>', 'at most this many calls, 1 to 1000 (service default 100)')
    .addHelpText(
      'after',
      examples(
        'outreach calls list',
        'outreach calls list --since 2d --limit 500',
        'outreach calls list --since yesterday --until yesterday -o csv > calls.csv',
        'outreach calls list --since 2024-05-01T00:00:00Z -o json | jq \'.[] | select(.failure_reason)\'',
      ),
    )
    .action(action(run));
}

export function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const s = raw.trim();
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < 1 || n > 1000) throw new UsageError(`Invalid --limit "${raw}": give a whole number from 1 to 1000.`);
  return n;
}

export function dateFlag(raw: string | undefined, flag: string, now: Date, edge: 'start' | 'end'): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseWhen(raw, now, edge).toISOString();
  } catch (err) {
    if (err instanceof TimeParseError) throw new UsageError(`Invalid ${flag} "${raw}": ${err.message}.`);
    throw err;
  }
}

// At 80 columns: who was called, when, for how long and how it went. The rest when there is room.
const CALL_COLUMNS: Column<Call>[] = [
  { header: 'ID', key: 'id', value: (c) => c.id },
  { header: 'STARTED', key: 'started_at', value: (c) => c.started_at, kind: 'datetime' },
  { header: 'TO', key: 'destination_number', value: (c) => c.destination_number },
  { header: 'DURATION', key: 'duration_ms', value: (c) => c.duration_ms, kind: 'duration', priority: 'useful' },
  { header: 'OUTCOME', key: 'outcome', value: (c) => c.outcome },
  {
    header: 'FAILURE',
    key: 'failure_reason',
    value: (c) => c.failure_reason,
    style: (t, _c, chalk) => chalk.yellow(t),
    priority: 'useful',
  },
  { header: 'STATUS', key: 'call_status', value: (c) => c.call_status, priority: 'extra' },
  { header: 'FROM', key: 'source_number', value: (c) => c.source_number, priority: 'extra' },
  { header: 'ASSISTANT', key: 'assistant_id', value: (c) => c.assistant_id, priority: 'extra' },
];

export async function run(opts: Options, ctx: Context): Promise<void> {
  const limit = parseLimit(opts.limit);
  const now = ctx.now();
  const createdAtGe = dateFlag(opts.since, '--since', now, 'start');
  const createdAtLe = dateFlag(opts.until, '--until', now, 'end');
  if (createdAtGe && createdAtLe && createdAtGe > createdAtLe) {
    throw new UsageError(`--since (${createdAtGe}) is after --until (${createdAtLe}): nothing can match.`);
  }
  const client = await ctx.client();
  const { listCalls } = await import('../../api/calls.js');
  const { items, raw } = await listCalls(client, { limit, createdAtGe, createdAtLe });
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    for (const c of items) if (c.id !== undefined) ctx.io.out(`${terminalSafe(c.id)}\n`);
    return;
  }
  await writeList(ctx, items, CALL_COLUMNS, raw);
}
