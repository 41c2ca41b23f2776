import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseId } from './get.js';

export function register(parent: Command): void {
  parent
    .command('update')
    .description('Update a sequence (PUT): name, description, steps, from a JSON body')
    .argument('<id>', 'sequence id')
    .requiredOption('--input <file>', 'JSON body: FILE or - for stdin')
    .addHelpText(
      'after',
      examples(
        'outreach sequences update 12 --input body.json',
        `echo '{"steps":[{"order":1,"type":"voice","config":{"scheduled_at":"2030-05-17T16:00:00Z"}}]}' | outreach sequences update 12 --input -`,
      ),
    )
    .action(action(run));
}

export async function run(opts: { args: string[]; input: string }, ctx: Context): Promise<void> {
  const id = parseId(opts.args[0]);
  const { readJsonInput } = await import('../../input.js');
  const body = await readJsonInput(opts.input, '--input', ctx.io);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new UsageError('--input must hold a JSON object (name, description, steps).');
  const client = await ctx.client();
  const { updateSequence } = await import('../../api/sequences.js');
  const { sequence, raw } = await updateSequence(client, id, body as Record<string, unknown>);
  const { writeRecord } = await import('../../output/writer.js');
  await writeRecord(
    ctx,
    sequence ?? { id },
    [
      { label: 'id', key: 'id', value: (x) => x.id },
      { label: 'status', key: 'status', value: (x) => (x as { status?: string }).status },
      { label: 'name', key: 'name', value: (x) => (x as { name?: string }).name },
      { label: 'steps', key: 'steps_count', value: (x) => { const st = (x as { steps?: unknown[] }).steps; return Array.isArray(st) ? st.length : ''; } },
      { label: 'last updated', key: 'last_updated', value: (x) => (x as { last_updated?: string }).last_updated, kind: 'datetime' },
    ],
    raw,
  );
}
