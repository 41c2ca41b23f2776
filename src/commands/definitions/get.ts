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
  const { writeRecord, writeSection } = await import('../../output/writer.js');
  const schedule = d.outreach_schedule;
  await writeRecord(
    ctx,
    d,
    [
      { label: 'id', key: 'id', value: (x) => x.id },
      { label: 'name', key: 'name', value: (x) => x.name },
      { label: 'status', key: 'status', value: (x) => x.status },
      { label: 'steps', key: 'steps_definition', value: (x) => (Array.isArray(x.steps_definition) ? x.steps_definition.map((s) => s.type).join(' → ') : '') },
      { label: 'days', key: 'outreach_schedule.days_of_week', value: () => schedule?.days_of_week?.join(',') },
      { label: 'hours', key: 'outreach_schedule.business_hours', value: () => (schedule?.business_hours ? `${schedule.business_hours.start ?? ''}-${schedule.business_hours.end ?? ''}` : undefined) },
      { label: 'time zone', key: 'outreach_schedule.timezone', value: () => schedule?.timezone },
    ],
    raw,
  );
  await writeSection(ctx, {
    title: 'Inputs (CSV columns besides firstName, lastName, phoneNumber)',
    key: 'inputs_definition',
    rows: d.inputs_definition,
    empty: '(none)',
    columns: [
      { header: 'ID', key: 'id', value: (i) => i.id },
      { header: 'NAME', key: 'name', value: (i) => i.name, shrink: true },
      { header: 'TYPE', key: 'type', value: (i) => i.type },
      { header: 'REQUIRED', key: 'required', value: (i) => i.required, kind: 'bool' },
    ],
  });
}

export async function run(opts: { args: string[] }, ctx: Context): Promise<void> {
  const id = parseId(opts.args[0], 'definition id');
  const client = await ctx.client();
  const { getDefinition } = await import('../../api/definitions.js');
  const { definition, raw } = await getDefinition(client, id);
  await showDefinition(ctx, definition, raw);
}
