import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export function register(parent: Command): void {
  parent
    .command('get')
    .description('Show one sequence: its steps and, with --metrics, its outreach (calls and messages)')
    .argument('<id>', 'sequence id')
    .option('--metrics', 'include the outreach items (includeMetrics=true)')
    .addHelpText('after', examples('outreach sequences get 12', 'outreach sequences get 12 --metrics', 'outreach sequences get 12 -o json'))
    .action(action(run));
}

export function parseId(raw: string | undefined, what = 'sequence id'): number {
  if (raw === undefined || !/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError(`"${raw ?? ''}" is not a ${what} (a positive integer).`);
  return Number(raw);
}

export async function run(opts: { args: string[]; metrics?: boolean }, ctx: Context): Promise<void> {
  const id = parseId(opts.args[0]);
  const client = await ctx.client();
  const { getSequence } = await import('../../api/sequences.js');
  const { sequence: s, raw } = await getSequence(client, id, Boolean(opts.metrics));
  const { writeRecord, writeList, writeHeading } = await import('../../output/writer.js');
  await writeRecord(
    ctx,
    s,
    [
      { label: 'id', value: (x) => x.id },
      { label: 'status', value: (x) => x.status },
      { label: 'type', value: (x) => x.type },
      { label: 'definition', value: (x) => x.sequence_definition_id },
      { label: 'patient', value: (x) => x.patient_id },
      { label: 'current step', value: (x) => x.current_step },
      { label: 'next activity', value: (x) => x.next_activity, kind: 'datetime' },
      { label: 'outcome', value: (x) => x.outcome },
      { label: 'ended reason', value: (x) => x.ended_reason_v2 ?? x.ended_reason },
      { label: 'contact reached', value: (x) => x.was_contact_reached, kind: 'bool' },
      { label: 'inputs', value: (x) => (Array.isArray(x.inputs) ? x.inputs.map((i) => `${i.name ?? i.id}=${i.value ?? ''}`).join(', ') : '') },
      { label: 'last updated', value: (x) => x.last_updated, kind: 'datetime' },
    ],
    raw,
  );
  if (ctx.globals.format !== 'table') return;
  const steps = Array.isArray(s.steps) ? s.steps : [];
  if (steps.length) {
    await writeHeading(ctx, 'Steps');
    await writeList(ctx, steps, [
      { header: 'STEP', value: (x) => (x as { order?: number }).order ?? x.id },
      { header: 'TYPE', value: (x) => x.type },
      { header: 'STATUS', value: (x) => x.status },
      { header: 'SCHEDULED', value: (x) => x.scheduled_at, kind: 'datetime' },
      { header: 'TO', value: (x) => x.destination_number },
      { header: 'ASSISTANT', value: (x) => x.voice_assistant_id },
    ]);
  }
  if (opts.metrics) {
    const outreach = Array.isArray(s.outreach) ? s.outreach : [];
    await writeHeading(ctx, 'Outreach');
    if (!outreach.length) ctx.io.out('(none yet)\n');
    else
      await writeList(ctx, outreach, [
        { header: 'STEP', value: (x) => x.step },
        { header: 'TYPE', value: (x) => x.type },
        { header: 'CALL', value: (x) => x.call_record_id },
        { header: 'MESSAGES', value: (x) => x.messaging_encounter_id },
        { header: 'ANALYSIS', value: (x) => (x.analysis ? JSON.stringify(x.analysis) : '') },
      ]);
  }
}
