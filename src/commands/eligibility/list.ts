import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { terminalSafe } from '../../output/safe.js';

const STATUSES = ['in-progress', 'completed', 'queued'];

export function register(parent: Command): void {
  parent
    .command('list')
    .alias('ls')
    .description('List eligibility checks of the organisation (newest first as the service orders them)')
    .option('--patient <id>', 'only checks of this customer_patient_id')
    .option('--status <status>', `only checks in this status (${STATUSES.join(', ')})`)
    .option('--limit <n>', 'at most this many (1 to 1000; the service defaults to 100)')
    .addHelpText(
      'after',
      examples('outreach eligibility list --status completed --limit 20', 'outreach eligibility list --patient MRN-1001 -o json | jq ".[].id"'),
    )
    .action(action(run));
}

interface Options {
  patient?: string;
  status?: string;
  limit?: string;
}

function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > 1000) throw new UsageError(`Invalid --limit "${raw}": give a whole number from 1 to 1000.`);
  return n;
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const limit = parseLimit(opts.limit);
  if (opts.status !== undefined && !STATUSES.includes(opts.status)) {
    throw new UsageError(`Invalid --status "${opts.status}": use one of ${STATUSES.join(', ')}.`);
  }
  if (opts.patient !== undefined && opts.patient.trim() === '') throw new UsageError('--patient is empty.');
  const client = await ctx.client();
  const { listEligibility } = await import('../../api/eligibility.js');
  const { checks, raw } = await listEligibility(client, { patient: opts.patient, status: opts.status, limit });
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    for (const c of checks) ctx.io.out(`${terminalSafe(c.id)}\n`);
    return;
  }
  const { writeChecks } = await import('../../eligibility/render.js');
  await writeChecks(ctx, checks, raw);
}
