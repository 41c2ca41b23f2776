import type { Command } from 'commander';
import { action, examples } from '../command.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

interface Options {
  all?: boolean;
}

export function register(program: Command): void {
  program
    .command('logout')
    .description('Remove a stored profile and its key (the active one unless --profile or --all)')
    .option('--all', 'remove every stored profile')
    .addHelpText('after', examples('outreach logout', 'outreach logout --profile staging', 'outreach logout --all'))
    .action(action(run));
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const store = await ctx.store();
  if (opts.all) {
    if (ctx.globals.profile) throw new UsageError('Give --profile or --all, not both.');
    const n = store.removeAll();
    ctx.info(`Removed ${n} profile${n === 1 ? '' : 's'} from ${store.path}.`);
  } else {
    const name = ctx.globals.profile ?? ctx.env.OUTREACH_PROFILE ?? store.activeName;
    if (!name || !store.remove(name)) {
      const known = Object.keys(store.profiles());
      throw new UsageError(name ? `No profile named "${name}" is stored.` : 'No profile is stored.', {
        hint: known.length ? `Stored profiles: ${known.join(', ')}.` : undefined,
      });
    }
    ctx.info(`Removed profile "${name}".`);
  }
  if (ctx.env.OUTREACH_API_KEY) ctx.info('Note: OUTREACH_API_KEY is still set in this environment and will be used.');
}
