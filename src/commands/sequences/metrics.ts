import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';

export function register(parent: Command): void {
  parent
    .command('metrics')
    .description('Metrics of every sequence of the organisation: status and outreach count')
    .addHelpText('after', examples('outreach sequences metrics', 'outreach sequences metrics -o json'))
    .action(action(run));
}

export async function run(_opts: object, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { sequenceMetrics } = await import('../../api/sequences.js');
  const { items, raw } = await sequenceMetrics(client);
  const { writeList } = await import('../../output/writer.js');
  await writeList(
    ctx,
    items,
    [
      { header: 'ID', key: 'id', value: (m) => m.id },
      { header: 'STATUS', key: 'status', value: (m) => m.status },
      { header: 'CREATED', key: 'created_at', value: (m) => m.created_at, kind: 'datetime', priority: 'useful' },
      { header: 'UPDATED', key: 'last_updated', value: (m) => m.last_updated, kind: 'datetime' },
      // Counts of the outreach list (csv: outreach_count, calls_count; -o json has the list itself).
      { header: 'OUTREACH', key: 'outreach_count', value: (m) => (Array.isArray(m.outreach) ? m.outreach.length : 0) },
      { header: 'CALLS', key: 'calls_count', value: (m) => (Array.isArray(m.outreach) ? m.outreach.filter((x) => (x as { type?: string }).type === 'call').length : 0) },
    ],
    raw,
  );
}
