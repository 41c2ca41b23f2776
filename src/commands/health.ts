import type { Command } from 'commander';
import { action, examples } from '../command.js';
import type { Context } from '../context.js';
import { writeRecord } from '../output/writer.js';
import { terminalSafe } from '../output/safe.js';

export function register(program: Command): void {
  program
    .command('health')
    .description('Check that the service answers (GET /health, no key needed); exit 0 when it does')
    .addHelpText('after', examples('outreach health', 'outreach health --base-url http://127.0.0.1:4010/v1 -o json'))
    .action(action(run));
}

export async function run(_opts: object, ctx: Context): Promise<void> {
  const client = await ctx.client({ anonymous: true });
  const { getHealth } = await import('../api/health.js');
  const started = performance.now();
  const health = await getHealth(client);
  const elapsed = Math.round(performance.now() - started);
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    ctx.io.out(`${terminalSafe(health.status ?? 'ok')}\n`);
    return;
  }
  await writeRecord(
    ctx,
    health,
    [
      { label: 'service', key: 'base_url', value: () => client.baseUrl },
      { label: 'status', key: 'status', value: (h) => h.status ?? '', style: (t, _r, c) => (t === 'ok' ? c.green(t) : c.yellow(t)) },
      { label: 'time', key: 'time_ms', value: () => elapsed, display: () => `${elapsed}ms` },
    ],
    health,
  );
}
