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
  // The input ids are CSV column names a coordinator types: never cut; the name gives way instead.
  // The status is often absent from the list: a terminal then shows no STATUS column at all.
  await writeList(
    ctx,
    items,
    [
      { header: 'ID', key: 'id', value: (d) => d.id },
      { header: 'NAME', key: 'name', value: (d) => d.name, shrink: true },
      { header: 'STATUS', key: 'status', value: (d) => d.status, priority: 'extra' },
      { header: 'REQUIRED INPUTS', key: 'required_inputs', value: (d) => d.inputs_definition.filter((i) => i.required).map((i) => i.id).join(', ') },
      { header: 'OPTIONAL INPUTS', key: 'optional_inputs', value: (d) => d.inputs_definition.filter((i) => !i.required).map((i) => i.id).join(', ') },
    ],
    raw,
  );
}
