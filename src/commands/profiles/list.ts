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
    // Piped and in csv `true`/`false`; a `*` on a terminal.
    { header: 'ACTIVE', key: 'active', value: (r) => r.active, display: (r) => (r.active ? '*' : '') },
    { header: 'NAME', key: 'name', value: (r) => r.name, style: (t, r, c) => (r.active ? c.bold(t) : t) },
    { header: 'BASE URL', key: 'base_url', value: (r) => r.base_url, shrink: true },
    { header: 'KEY', key: 'key', value: (r) => r.key },
  ]);
}
