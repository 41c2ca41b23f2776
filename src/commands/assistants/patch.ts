import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { addBodyOptions, buildBody, sendAssistant, writeAssistant, type AssistantFlags } from './body.js';

type Options = AssistantFlags & { args: string[] };

export function register(assistants: Command): void {
  addBodyOptions(
    assistants
      .command('patch')
      .alias('update')
      .description('Change fields of a voice assistant (PATCH /assistant/{id}); fields not given stay as they are')
      .argument('<id>', 'assistant id'),
  )
    .option('--clear-webhook-secret', 'remove the webhook secret')
    .addHelpText(
      'after',
      examples(
        'outreach assistants patch 3 --first-message "Hello from the clinic"',
        'printf %s "$SECRET" | outreach assistants patch 3 --webhook-url https://example.org/hook --webhook-secret-stdin',
        'outreach assistants patch 3 --model @model.json',
      ),
    )
    .action(action(run));
}

function parseAssistantId(raw: string): number {
  const s = raw.trim();
  if (!/^\d+$/.test(s) || Number(s) < 1 || !Number.isSafeInteger(Number(s))) {
    throw new UsageError(`Invalid assistant id "${raw}": assistant ids are positive integers.`);
  }
  return Number(s);
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const id = parseAssistantId(opts.args[0] ?? '');
  const { body, secret } = await buildBody(opts, ctx);
  if (Object.keys(body).length === 0) {
    throw new UsageError('Nothing to change: give at least one field flag (e.g. --first-message, --model @file) or --input FILE.');
  }
  const client = await ctx.client();
  const { patchAssistant } = await import('../../api/assistants.js');
  const { assistant, raw } = await sendAssistant({ verb: 'patch', id }, secret, () => patchAssistant(client, id, body));
  ctx.info(`Updated assistant ${assistant.id ?? id}.`);
  await writeAssistant(ctx, assistant, raw, secret);
}
