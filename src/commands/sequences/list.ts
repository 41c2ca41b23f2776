import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { SequenceRecord } from '../../api/sequences.js';
import { terminalSafe } from '../../output/safe.js';

const STATUSES = ['in-progress', 'completed', 'failed', 'cancelled', 'queued', 'paused'];

export function register(parent: Command): void {
  parent
    .command('list')
    .alias('ls')
    .description("List the organisation's sequences")
    .option('--status <status>', `only this status (${STATUSES.join(', ')})`)
    .option('--limit <n>', 'at most N sequences (1-1000)')
    .addHelpText('after', examples('outreach sequences list', 'outreach sequences list --status in-progress --limit 20', 'outreach sequences list -o json | jq ".data | length"'))
    .action(action(run));
}

function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 1000) throw new UsageError(`--limit "${raw}" must be a whole number from 1 to 1000.`);
  return n;
}

function currentStep(s: SequenceRecord): string {
  if (typeof s.current_step !== 'number') return '';
  const steps = Array.isArray(s.steps) ? s.steps : [];
  const st = steps.find((x) => (x as { order?: number }).order === s.current_step) ?? steps[s.current_step - 1];
  return st ? `${s.current_step} (${st.type})` : String(s.current_step);
}

export async function run(opts: { status?: string; limit?: string }, ctx: Context): Promise<void> {
  if (opts.status !== undefined && !STATUSES.includes(opts.status)) throw new UsageError(`--status "${opts.status}" is not one of ${STATUSES.join(', ')}.`);
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const { listSequences } = await import('../../api/sequences.js');
  const { items, raw } = await listSequences(client, { status: opts.status, limit });
  // A service that ignores the query: filter and cut here too.
  let shown = opts.status ? items.filter((s) => s.status === undefined || s.status === opts.status) : items;
  if (limit) shown = shown.slice(0, limit);
  const { writeList } = await import('../../output/writer.js');
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    for (const s of shown) ctx.io.out(`${terminalSafe(s.id)}\n`);
    return;
  }
  await writeList(
    ctx,
    shown,
    [
      { header: 'ID', key: 'id', value: (s) => s.id },
      { header: 'STATUS', key: 'status', value: (s) => s.status, style: (t, _s, c) => (t === 'completed' ? c.green(t) : t === 'failed' || t === 'cancelled' ? c.red(t) : t) },
      { header: 'TYPE', key: 'type', value: (s) => s.type, priority: 'extra' },
      { header: 'STEP', key: 'current_step', value: (s) => s.current_step, display: currentStep, priority: 'useful' },
      { header: 'NEXT ACTIVITY', key: 'next_activity', value: (s) => s.next_activity, kind: 'datetime' },
      { header: 'OUTCOME', key: 'outcome', value: (s) => s.outcome },
      { header: 'REACHED', key: 'was_contact_reached', value: (s) => s.was_contact_reached, kind: 'bool' },
    ],
    raw,
  );
}
