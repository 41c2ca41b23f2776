import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { PhoneNumber } from '../../api/types.js';
import { writeList } from '../../output/writer.js';
import { terminalSafe } from '../../output/safe.js';

interface Options {
  assistant?: string;
  args: string[];
}

export function register(phoneNumbers: Command): void {
  phoneNumbers
    .command('list', { isDefault: true })
    .alias('ls')
    .description('List phone numbers (the default: `outreach phone-numbers` alone lists too)')
    .option('--assistant <id>', 'only the numbers whose inbound calls go to this assistant')
    .addHelpText('after', examples('outreach phone-numbers', 'outreach phone-numbers list --assistant 3', 'outreach phone-numbers -o json'))
    .action(action(run));
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  let assistantId: number | undefined;
  if (opts.assistant !== undefined) {
    const s = opts.assistant.trim();
    if (!/^\d+$/.test(s) || Number(s) < 1) throw new UsageError(`Invalid --assistant "${opts.assistant}": assistant ids are positive integers.`);
    assistantId = Number(s);
  }
  const client = await ctx.client();
  const { listPhoneNumbers } = await import('../../api/phoneNumbers.js');
  const { items, raw } = await listPhoneNumbers(client, { assistantId });
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    for (const p of items) if (p.number !== undefined) ctx.io.out(`${terminalSafe(p.number)}\n`);
    return;
  }
  await writeList<PhoneNumber>(
    ctx,
    items,
    [
      { header: 'ID', key: 'id', value: (p) => p.id },
      { header: 'NUMBER', key: 'number', value: (p) => p.number },
      { header: 'NAME', key: 'name', value: (p) => p.name, shrink: true },
      { header: 'ASSISTANT', key: 'assistant_id', value: (p) => p.assistant_id },
    ],
    raw,
  );
}
