import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { SequenceRecord } from '../../api/sequences.js';
import type { Field } from '../../output/writer.js';

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
  const { writeRecord, writeSection } = await import('../../output/writer.js');
  await writeRecord(
    ctx,
    s,
    [
      { label: 'id', key: 'id', value: (x) => x.id },
      { label: 'status', key: 'status', value: (x) => x.status },
      { label: 'type', key: 'type', value: (x) => x.type },
      { label: 'definition', key: 'sequence_definition_id', value: (x) => x.sequence_definition_id },
      { label: 'patient', key: 'patient_id', value: (x) => x.patient_id },
      { label: 'current step', key: 'current_step', value: (x) => x.current_step },
      { label: 'next activity', key: 'next_activity', value: (x) => x.next_activity, kind: 'datetime' },
      { label: 'outcome', key: 'outcome', value: (x) => x.outcome },
      { label: 'ended reason', key: endedReasonKey(s), value: (x) => x.ended_reason_v2 ?? x.ended_reason },
      { label: 'contact reached', key: 'was_contact_reached', value: (x) => x.was_contact_reached, kind: 'bool' },
      ...inputFields(s),
      { label: 'last updated', key: 'last_updated', value: (x) => x.last_updated, kind: 'datetime' },
    ],
    raw,
  );
  const steps = Array.isArray(s.steps) ? s.steps : [];
  await writeSection(ctx, {
    title: 'Steps',
    key: 'steps',
    rows: steps,
    columns: [
      { header: 'STEP', key: 'order', value: (x) => (x as { order?: number }).order ?? x.id },
      { header: 'TYPE', key: 'type', value: (x) => x.type },
      { header: 'STATUS', key: 'status', value: (x) => x.status },
      { header: 'SCHEDULED', key: 'scheduled_at', value: (x) => x.scheduled_at, kind: 'datetime' },
      { header: 'TO', key: 'destination_number', value: (x) => x.destination_number },
      { header: 'ASSISTANT', key: 'voice_assistant_id', value: (x) => x.voice_assistant_id, priority: 'useful' },
    ],
  });
  if (opts.metrics) {
    await writeSection(ctx, {
      title: 'Outreach',
      key: 'outreach',
      rows: Array.isArray(s.outreach) ? s.outreach : [],
      empty: '(none yet)',
      columns: [
        { header: 'STEP', key: 'step', value: (x) => x.step },
        { header: 'TYPE', key: 'type', value: (x) => x.type },
        { header: 'CALL', key: 'call_record_id', value: (x) => x.call_record_id },
        { header: 'MESSAGES', key: 'messaging_encounter_id', value: (x) => x.messaging_encounter_id },
        { header: 'ANALYSIS', key: 'analysis', value: (x) => x.analysis, shrink: true, priority: 'useful' },
      ],
    });
  }
}

/** The key the ended reason came from: the service's newer field when it sent it. */
function endedReasonKey(s: SequenceRecord): string {
  return s.ended_reason_v2 !== undefined && s.ended_reason_v2 !== null ? 'ended_reason_v2' : 'ended_reason';
}

/** Each input on its own line (`inputs.<name>` piped), so a long list wraps by input, not mid-name. */
function inputFields(s: SequenceRecord): Field<SequenceRecord>[] {
  const inputs = Array.isArray(s.inputs) ? s.inputs : [];
  if (!inputs.length) return [{ label: 'inputs', key: 'inputs', value: () => '' }];
  return inputs.map((i, n) => ({ label: n === 0 ? 'inputs' : '', key: `inputs.${i.id ?? i.name}`, value: () => i.value, display: () => `${i.id ?? i.name}=${i.value ?? ''}` }));
}
