import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseId } from '../sequences/get.js';
import { showDefinition } from './get.js';

export function register(parent: Command): void {
  parent
    .command('update')
    .description('Update a sequence definition (PUT): name, description, steps, from a JSON body')
    .argument('<id>', 'definition id')
    .requiredOption('--input <file>', 'JSON body: FILE or - for stdin')
    .addHelpText('after', examples('outreach definitions update 1 --input def.json', `echo '{"name":"Reminder v2"}' | outreach definitions update 1 --input -`))
    .action(action(run));
}

export async function run(opts: { args: string[]; input: string }, ctx: Context): Promise<void> {
  const id = parseId(opts.args[0], 'definition id');
  const { readJsonInput } = await import('../../input.js');
  const body = await readJsonInput(opts.input, '--input', ctx.io);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new UsageError('--input must hold a JSON object (name, description, steps).');
  const client = await ctx.client();
  const { updateDefinition } = await import('../../api/definitions.js');
  const { definition, raw } = await updateDefinition(client, id, body as Record<string, unknown>);
  await showDefinition(ctx, definition, raw);
}
