import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';

export function register(profiles: Command): void {
  profiles
    .command('use')
    .description('Make a stored profile the active one')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('outreach profiles use sandbox'))
    .action(action(run));
}

export async function run(opts: { args: string[] }, ctx: Context): Promise<void> {
  const [name] = opts.args;
  const store = await ctx.store();
  store.use(name!);
  ctx.info(`Active profile: ${name}`);
}
