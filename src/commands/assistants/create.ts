import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { addBodyOptions, buildBody, sendAssistant, writeAssistant, type AssistantFlags } from './body.js';

type Options = AssistantFlags & { args: string[] };

export function register(assistants: Command): void {
  addBodyOptions(assistants.command('create').description('Create a voice assistant (POST /assistant)'))
    .addHelpText(
      'after',
      examples(
        'outreach assistants create --name "Reminder line" --first-message "Hi, this is the clinic." --model \'{"provider":"openai","model":"gpt-4o"}\'',
        'outreach assistants create --input assistant.json --webhook-url https://example.org/hook --webhook-secret-env HOOK_SECRET',
        'outreach assistants create --name Follow-up --analysis-plan @plan.json -o json',
      ),
    )
    .action(action(run));
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const { body, secret } = await buildBody(opts, ctx);
  if (body.name === undefined || (typeof body.name === 'string' && body.name.trim() === '')) {
    if (!ctx.io.canPrompt) throw new UsageError('An assistant needs a name: pass --name NAME (or "name" in --input).');
    const prompter = await ctx.prompter();
    body.name = await prompter.text('Assistant name', { validate: (v) => (v.trim() ? true : 'A name is required') });
  }
  const client = await ctx.client();
  const { createAssistant } = await import('../../api/assistants.js');
  const { assistant, raw } = await sendAssistant({ verb: 'create' }, secret, () => createAssistant(client, body));
  ctx.info(`Created assistant ${assistant.id}.`);
  await writeAssistant(ctx, assistant, raw, secret);
}
