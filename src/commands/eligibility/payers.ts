// `eligibility payers`: the supported payers. API.md has no endpoint that lists them; the service
// lists them only in its 400 answer to an unsupported payer. So this command reads: the list the
// service gave last (cached per profile by any check that got such an answer), else the eight payers
// of the service's public documentation, labelled as such. It sends nothing that could create a
// check unless --probe: a service that accepted the made-up payer id would create one.
import { Option, type Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, MalformedResponseError } from '../../errors.js';
import type { HttpClient } from '../../api/http.js';
import type { PayerRow } from '../../api/eligibility.js';
import { terminalSafe } from '../../output/safe.js';

export function register(parent: Command): void {
  parent
    .command('payers')
    .description('The supported payers: the list the service last gave (cached per profile), else those of its public documentation')
    .option('--probe', 'ask the service: submit a check with a made-up payer id, whose 400 answer lists the payers (a service that accepted it would create a check)')
    .addOption(new Option('--refresh', 'same as --probe').hideHelp())
    .addHelpText(
      'after',
      examples('outreach eligibility payers', 'outreach eligibility payers -o json', 'outreach eligibility payers --probe') +
        '\nAPI.md has no endpoint listing payers: the service lists them only in its 400 answer to an unsupported\n' +
        'payer id. Without --probe nothing is sent: the list is the one the service gave in such an answer (cached\n' +
        'in the profile by `eligibility check` or --probe, with when it was learned), otherwise the eight payers\n' +
        "of the service's public documentation, not confirmed by the service (only UnitedHealthcare's id, 87726,\n" +
        'is documented). --probe submits a check for the made-up payer id ' + PROBE_PAYER_ID + ' and says so first;\n' +
        'if the service accepts it instead of answering 400, a check was created: the command says which, exit 1.\n',
    )
    .action(action(run));
}

/** A payer id no service supports: the probe's 400 answer lists the real ones. */
const PROBE_PAYER_ID = 'OUTREACH-CLI-PAYER-PROBE';

/**
 * The payers named in the service's public documentation (CLI.md, "What we know of the real
 * service"). Only UnitedHealthcare's id is documented; the others' ids are unknown.
 */
const DOCUMENTED_PAYERS: readonly PayerRow[] = [
  { payer_id: '87726', name: 'UnitedHealthcare' },
  { payer_id: '', name: 'Aetna' },
  { payer_id: '', name: 'Cigna' },
  { payer_id: '', name: 'Oscar Health' },
  { payer_id: '', name: 'Oxford' },
  { payer_id: '', name: 'Humana' },
  { payer_id: '', name: 'Medica' },
  { payer_id: '', name: 'Kaiser Permanente' },
];

export interface KnownPayers {
  rows: PayerRow[];
  /** When the service gave the list (not set for the documented list). */
  fetchedAt?: string;
  source: 'cache' | 'service' | 'documentation';
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

/**
 * Asks the service for its list: a check with a payer id it cannot support, whose 400 answer lists
 * the real ones. Says so before sending; a service that accepts it has created a check, which is
 * reported loudly (exit 1).
 */
async function probePayers(ctx: Context, client: HttpClient): Promise<KnownPayers> {
  const { submitEligibility, unsupportedPayerList } = await import('../../api/eligibility.js');
  const { fateOf } = await import('../../api/errors.js');
  ctx.io.err(
    `Probing: submitting an eligibility check with the made-up payer id ${PROBE_PAYER_ID} (no patient data); ` +
      'the service should refuse it (400) and list the payers it supports.\n',
  );
  let submitted;
  try {
    ({ submitted } = await submitEligibility(client, {
      patient: { first_name: 'Payer', last_name: 'Probe', date_of_birth: '1900-01-01', member_id: 'PAYER-PROBE' },
      insurance: { payer_id: PROBE_PAYER_ID },
      provider: { organization_name: 'outreach-cli payer probe', npi: '1234567893' },
    }));
  } catch (err) {
    const rows = unsupportedPayerList(err);
    if (rows && rows.length > 0) {
      const fetchedAt = ctx.now().toISOString();
      const c = await cachePayers(ctx, rows, fetchedAt);
      return { rows, fetchedAt, source: 'service', profile: c.profile, cached: c.cached };
    }
    if (err instanceof ApiError && err.status === 400) {
      throw new MalformedResponseError('The service rejected the made-up payer id but did not list the supported payers.', { details: err.body });
    }
    if (err instanceof CliError && fateOf(err) === 'unknown') {
      throw new CliError(
        `The probe's fate is unknown: the service may or may not have created an eligibility check for the made-up payer id ${PROBE_PAYER_ID} (${err.message}).`,
        err.exitCode,
        { code: err.code, status: err.status, hint: 'Look for it with `outreach eligibility list`; `outreach eligibility payers` without --probe shows the cached or documented list.' },
      );
    }
    throw err;
  }
  ctx.io.err(
    `\n!!! WARNING: the service ACCEPTED the made-up payer id ${PROBE_PAYER_ID} and created eligibility check ${submitted.id}.\n` +
      '!!! It did not list its supported payers. That check is not for a real patient; API.md has no way to delete it.\n\n',
  );
  throw new CliError(`The payer probe created eligibility check ${submitted.id} instead of listing the supported payers.`, 1, {
    code: 'probe_created_check',
    details: { id: submitted.id, status: submitted.status ?? null },
    hint: 'Run `outreach eligibility payers` without --probe for the cached or documented list.',
  });
}

/** The supported payers without sending anything: the profile's cached list, else the documented one. */
export async function knownPayers(ctx: Context): Promise<KnownPayers> {
  return (await cachedPayers(ctx)) ?? { rows: [...DOCUMENTED_PAYERS], source: 'documentation', cached: false };
}

export function payerNote(k: KnownPayers): string {
  if (k.source === 'documentation') {
    return (
      "note: payers from the service's public documentation, not confirmed by the service; only UnitedHealthcare's id (87726) " +
      'is documented. `outreach eligibility payers --probe` asks the service (by submitting a made-up payer id).'
    );
  }
  const where = k.cached ? `cached in profile "${k.profile}"` : 'not cached (no stored profile)';
  return k.source === 'cache'
    ? `note: supported payers as the service listed them at ${k.fetchedAt}, ${where}; --probe asks again.`
    : `note: learned from the service's 400 answer to an unsupported payer id (nothing was created); ${where}.`;
}

/** The payers as aligned text (for stderr, where the writer's tables do not go). */
export function payersText(rows: PayerRow[]): string {
  // The service's words: inert before aligning.
  const shown = rows.map((r) => ({ id: terminalSafe(r.payer_id), name: terminalSafe(r.name), parent: terminalSafe(r.parent) }));
  const w = Math.max(8, ...shown.map((r) => r.id.length));
  const lines = [`  ${'PAYER ID'.padEnd(w)}  NAME`];
  for (const r of shown) lines.push(`  ${r.id.padEnd(w)}  ${r.name}${r.parent ? ` (${r.parent})` : ''}`);
  return lines.join('\n') + '\n';
}

interface PayerRecord {
  payer_id: string | null;
  name: string;
  parent?: string;
  source: 'service' | 'documentation';
  learned_at?: string;
}

/** A row as -o json shows it: where it comes from, and an id that is not known as null. */
function jsonRow(r: PayerRow, k: KnownPayers): PayerRecord {
  return {
    payer_id: r.payer_id || null,
    name: r.name,
    ...(r.parent ? { parent: r.parent } : {}),
    source: k.source === 'documentation' ? 'documentation' : 'service',
    ...(k.fetchedAt ? { learned_at: k.fetchedAt } : {}),
  };
}

export async function run(opts: { probe?: boolean; refresh?: boolean }, ctx: Context): Promise<void> {
  const known = opts.probe || opts.refresh ? await probePayers(ctx, await ctx.client()) : await knownPayers(ctx);
  if (known.rows.length === 0) throw new CliError('No supported payers are known.', 1);
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    for (const r of known.rows) if (r.payer_id) ctx.io.out(`${terminalSafe(r.payer_id)}\n`);
    return;
  }
  const { writeList } = await import('../../output/writer.js');
  const records = known.rows.map((r) => jsonRow(r, known));
  await writeList(ctx, records, [
    { header: 'PAYER ID', key: 'payer_id', value: (r) => r.payer_id, display: (r) => r.payer_id ?? '(unknown)' },
    { header: 'NAME', key: 'name', value: (r) => r.name, shrink: true },
    { header: 'PART OF', key: 'parent', value: (r) => r.parent, shrink: true, priority: 'useful' },
  ]);
  // A note of a few lines: wrapped at word boundaries on a terminal, not by the terminal mid-word.
  const note = payerNote(known);
  if (!ctx.io.isStderrTTY) ctx.info(note);
  else {
    const { default: wrapAnsi } = await import('wrap-ansi');
    ctx.info(wrapAnsi(note, Math.max(20, ctx.io.columns), { hard: true }));
  }
}
