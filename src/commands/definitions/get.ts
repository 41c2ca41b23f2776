import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import type { DefinitionRecord } from '../../api/definitions.js';
import { parseId } from '../sequences/get.js';

export function register(parent: Command): void {
  parent
    .command('get')
    .description('Show a sequence definition, with its inputs as a table: the columns a CSV needs')
    .argument('<id>', 'definition id')
    .addHelpText('after', examples('outreach definitions get 1', 'outreach definitions get 1 -o json > def1.json'))
    .action(action(run));
}

export async function showDefinition(ctx: Context, d: DefinitionRecord, raw: unknown): Promise<void> {
  const { writeRecord, writeList, writeHeading } = await import('../../output/writer.js');
  await writeRecord(
    ctx,
    d,
    [
      { label: 'id', value: (x) => x.id },
      { label: 'name', value: (x) => x.name },
      { label: 'status', value: (x) => x.status },
      { label: 'steps', value: (x) => (Array.isArray(x.steps_definition) ? x.steps_definition.map((s) => s.type).join(' → ') : '') },
      { label: 'schedule', value: (x) => (x.outreach_schedule ? `${x.outreach_schedule.days_of_week?.join(',') ?? ''} ${x.outreach_schedule.business_hours?.start ?? ''}-${x.outreach_schedule.business_hours?.end ?? ''} ${x.outreach_schedule.timezone ?? ''}`.trim() : '') },
    ],
    raw,
  );
  if (ctx.globals.format !== 'table') return;
  await writeHeading(ctx, 'Inputs (CSV columns besides firstName, lastName, phoneNumber)');
  if (!d.inputs_definition.length) {
    ctx.io.out('(none)\n');
    return;
  }
  await writeList(ctx, d.inputs_definition, [
    { header: 'ID', value: (i) => i.id },
    { header: 'NAME', value: (i) => i.name },
    { header: 'TYPE', value: (i) => i.type },
    { header: 'REQUIRED', value: (i) => (i.required ? 'yes' : 'no') },
  ]);
}

export async function run(opts: { args: string[] }, ctx: Context): Promise<void> {
  const id = parseId(opts.args[0], 'definition id');
  const client = await ctx.client();
  const { getDefinition } = await import('../../api/definitions.js');
  const { definition, raw } = await getDefinition(client, id);
  await showDefinition(ctx, definition, raw);
}
