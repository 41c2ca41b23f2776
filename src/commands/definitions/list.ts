import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';

export function register(parent: Command): void {
  parent
    .command('list')
    .alias('ls')
    .description("List the organisation's sequence definitions and their inputs")
    .addHelpText('after', examples('outreach definitions list', 'outreach definitions list -o json'))
    .action(action(run));
}

export async function run(_opts: object, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { listDefinitions } = await import('../../api/definitions.js');
  const { items, raw } = await listDefinitions(client);
  const { writeList } = await import('../../output/writer.js');
  await writeList(
    ctx,
    items,
    [
      { header: 'ID', value: (d) => d.id },
      { header: 'NAME', value: (d) => d.name },
      { header: 'STATUS', value: (d) => d.status },
      { header: 'REQUIRED INPUTS', value: (d) => d.inputs_definition.filter((i) => i.required).map((i) => i.id).join(', ') },
      { header: 'OPTIONAL INPUTS', value: (d) => d.inputs_definition.filter((i) => !i.required).map((i) => i.id).join(', ') },
    ],
    raw,
  );
}
