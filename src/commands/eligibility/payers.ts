import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, MalformedResponseError } from '../../errors.js';
import type { HttpClient } from '../../api/http.js';
import type { PayerRow } from '../../api/eligibility.js';

export function register(parent: Command): void {
  parent
    .command('payers')
    .description('The supported payers (learned from the service and cached per profile)')
    .option('--refresh', 'ask the service again instead of using the cached list')
    .addHelpText(
      'after',
      examples('outreach eligibility payers', 'outreach eligibility payers --refresh -o json') +
        '\nAPI.md has no endpoint listing payers: the list is what the service sends back in its 400 answer to an\n' +
        'unsupported payer id (a probe that creates nothing, or the last real check that got one). It is cached in\n' +
        'the profile and a note says when it was learned.\n',
    )
    .action(action(run));
}

/** A payer id no service supports: the probe's 400 answer lists the real ones. */
export const PROBE_PAYER_ID = 'OUTREACH-CLI-PAYER-PROBE';

export interface KnownPayers {
  rows: PayerRow[];
  fetchedAt: string;
  source: 'cache' | 'service';
  profile?: string;
  cached: boolean;
}

/** Stores a list learned from an unsupported-payer answer in the profile (when one is stored). */
export async function cachePayers(ctx: Context, rows: PayerRow[], fetchedAt: string): Promise<{ profile: string; cached: boolean }> {
  const settings = await ctx.settings();
  const profile = settings.profileName;
  try {
    const store = await ctx.store();
    if (!store.get(profile)) return { profile, cached: false };
    store.update(profile, { payersCache: { fetchedAt, payers: rows } });
    return { profile, cached: true };
  } catch {
    return { profile, cached: false }; // a read-only config must not fail the command
  }
}

async function cachedPayers(ctx: Context): Promise<KnownPayers | undefined> {
  const settings = await ctx.settings();
  try {
    const store = await ctx.store();
    const c = store.get(settings.profileName)?.payersCache;
    if (!c || !Array.isArray(c.payers) || c.payers.length === 0) return undefined;
    return { rows: c.payers as PayerRow[], fetchedAt: c.fetchedAt, source: 'cache', profile: settings.profileName, cached: true };
  } catch {
    return undefined;
  }
}

/** Asks the service for its list: a check with a payer id it cannot support; the 400 creates nothing. */
async function probePayers(ctx: Context, client: HttpClient): Promise<KnownPayers> {
  const { submitEligibility, unsupportedPayerList } = await import('../../api/eligibility.js');
  try {
    const { submitted } = await submitEligibility(client, {
      patient: { first_name: 'Payer', last_name: 'Probe', date_of_birth: '1900-01-01', member_id: 'PAYER-PROBE' },
      insurance: { payer_id: PROBE_PAYER_ID },
      provider: { organization_name: 'outreach-cli payer probe', npi: '1234567893' },
    });
    throw new MalformedResponseError(
      `The service accepted a check for the made-up payer id ${PROBE_PAYER_ID} (check ${submitted.id}) instead of listing the supported payers.`,
    );
  } catch (err) {
    const rows = unsupportedPayerList(err);
    if (rows && rows.length > 0) {
      const fetchedAt = ctx.now().toISOString();
      const c = await cachePayers(ctx, rows, fetchedAt);
      return { rows, fetchedAt, source: 'service', profile: c.profile, cached: c.cached };
    }
    if (err instanceof ApiError && err.status === 400) {
      throw new MalformedResponseError('The service rejected an unsupported payer id but did not list the supported payers.', { details: err.body });
    }
    throw err;
  }
}

/** The supported payers: the profile's cached list, else learned from the service. */
export async function knownPayers(ctx: Context, client: HttpClient, opts: { refresh?: boolean } = {}): Promise<KnownPayers> {
  if (!opts.refresh) {
    const cached = await cachedPayers(ctx);
    if (cached) return cached;
  }
  return probePayers(ctx, client);
}

export function payerNote(k: KnownPayers): string {
  const where = k.cached ? `cached in profile "${k.profile}"` : 'not cached (no stored profile)';
  return k.source === 'cache'
    ? `note: supported payers as the service listed them at ${k.fetchedAt}, ${where}; --refresh asks again.`
    : `note: learned from the service's 400 answer to an unsupported payer id (nothing was created); ${where}.`;
}

/** The payers as aligned text (for stderr, where the writer's tables do not go). */
export function payersText(rows: PayerRow[]): string {
  const w = Math.max(8, ...rows.map((r) => r.payer_id.length));
  const lines = [`  ${'PAYER ID'.padEnd(w)}  NAME`];
  for (const r of rows) lines.push(`  ${r.payer_id.padEnd(w)}  ${r.name}${r.parent ? ` (${r.parent})` : ''}`);
  return lines.join('\n') + '\n';
}

export async function run(opts: { refresh?: boolean }, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const known = await knownPayers(ctx, client, { refresh: opts.refresh });
  if (known.rows.length === 0) throw new CliError('No supported payers are known.', 1);
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    for (const r of known.rows) ctx.io.out(`${r.payer_id}\n`);
    return;
  }
  const { writeList } = await import('../../output/writer.js');
  await writeList(ctx, known.rows, [
    { header: 'PAYER ID', value: (r) => r.payer_id },
    { header: 'NAME', value: (r) => r.name },
    { header: 'PART OF', value: (r) => r.parent },
  ]);
  ctx.info(payerNote(known));
}
