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
      { header: 'ID', value: (m) => m.id },
      { header: 'STATUS', value: (m) => m.status },
      { header: 'CREATED', value: (m) => m.created_at, kind: 'datetime' },
      { header: 'UPDATED', value: (m) => m.last_updated, kind: 'datetime' },
      { header: 'OUTREACH', value: (m) => (Array.isArray(m.outreach) ? m.outreach.length : 0) },
      { header: 'CALLS', value: (m) => (Array.isArray(m.outreach) ? m.outreach.filter((x) => (x as { type?: string }).type === 'call').length : 0) },
    ],
    raw,
  );
}
