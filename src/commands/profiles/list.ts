import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { writeList } from '../../output/writer.js';

export function register(profiles: Command): void {
  profiles
    .command('list')
    .alias('ls')
    .description('List stored profiles (keys masked)')
    .addHelpText('after', examples('outreach profiles list', 'outreach profiles list -o json'))
    .action(action(run));
}

interface Row {
  name: string;
  active: boolean;
  base_url: string | null;
  key: string | null;
}

export async function run(_opts: object, ctx: Context): Promise<void> {
  const store = await ctx.store();
  const { maskKey } = await import('../../config/profiles.js');
  const active = store.activeName;
  const rows: Row[] = Object.entries(store.profiles()).map(([name, p]) => ({
    name,
    active: name === active,
    base_url: p.baseUrl ?? null,
    key: p.apiKey ? maskKey(p.apiKey) : null,
  }));
  await writeList(ctx, rows, [
    { header: 'ACTIVE', value: (r) => (r.active ? '*' : '') },
    { header: 'NAME', value: (r) => r.name, style: (t, r, c) => (r.active ? c.bold(t) : t) },
    { header: 'BASE URL', value: (r) => r.base_url },
    { header: 'KEY', value: (r) => r.key },
  ]);
}
