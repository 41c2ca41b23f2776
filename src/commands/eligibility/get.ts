import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { terminalSafe } from '../../output/safe.js';

export function register(parent: Command): void {
  parent
    .command('get')
    .argument('<id>', 'the check id returned at submission')
    .description('Show one check: coverage summary (active today, plan, payer, member and group numbers) and patient costs')
    .addHelpText('after', examples('outreach eligibility get 42', 'outreach eligibility get 42 -o json | jq ".[0].coverage"'))
    .action(action(run));
}

export function parseId(raw: string, what = 'id'): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`Invalid ${what} "${raw}": a check id is a positive whole number.`);
  }
  return Number(raw);
}

export async function run(opts: { args: string[] }, ctx: Context): Promise<void> {
  const id = parseId(opts.args[0] ?? '');
  const client = await ctx.client();
  const { getEligibility } = await import('../../api/eligibility.js');
  const { check, raw } = await getEligibility(client, id);
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    ctx.io.out(`${terminalSafe(check.id)}\t${terminalSafe(check.status)}\n`);
    return;
  }
  const { writeCheck } = await import('../../eligibility/render.js');
  await writeCheck(ctx, check, raw);
}
