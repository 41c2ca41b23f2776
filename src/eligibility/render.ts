// How checks read at a terminal and in pipes: one check with its coverage and patient costs, or a
// list of checks. Everything goes through the shared writer.
import type { EligibilityCheck, PatientCost } from '../api/types.js';
import type { Context } from '../context.js';
import { writeHeading, writeList, writeRecord, type Column } from '../output/writer.js';
import { formatMoney } from '../output/format.js';

const activeStyle = (t: string, _r: unknown, c: import('chalk').ChalkInstance) =>
  t === 'yes' ? c.green(t) : t === 'no' ? c.red(t) : t;

export const CHECK_COLUMNS: Column<EligibilityCheck>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'STATUS', value: (c) => c.status, style: (t, _r, c) => (t === 'completed' ? t : c.yellow(t)) },
  { header: 'OUTCOME', value: (c) => c.outcome },
  { header: 'ACTIVE', value: (c) => c.coverage?.is_active_today, kind: 'bool', style: activeStyle },
  { header: 'PATIENT', value: (c) => c.customer_patient_id },
  { header: 'PAYER', value: (c) => c.coverage?.payer_name },
  { header: 'PLAN', value: (c) => c.coverage?.plan_name },
  { header: 'CREATED', value: (c) => c.created_at, kind: 'datetime' },
];

export async function writeChecks(ctx: Context, checks: EligibilityCheck[], raw: unknown = checks): Promise<void> {
  await writeList(ctx, checks, CHECK_COLUMNS, raw);
}

export function costAmount(c: PatientCost): string {
  if (/coinsurance/i.test(c.type) || /percent/i.test(c.description ?? '')) {
    const n = Number(c.amount);
    return Number.isFinite(n) ? `${n}%` : String(c.amount ?? '');
  }
  return formatMoney(c.amount);
}

const COST_COLUMNS: Column<PatientCost>[] = [
  { header: 'TYPE', value: (c) => c.type },
  { header: 'NETWORK', value: (c) => c.network },
  { header: 'LEVEL', value: (c) => c.coverage_level },
  { header: 'PERIOD', value: (c) => c.time_period },
  // On a terminal the value becomes costAmount (below); a style never builds text of its own, since
  // the writer makes only the value inert before styling.
  { header: 'AMOUNT', value: (c) => c.amount },
  { header: 'DESCRIPTION', value: (c) => c.description },
];

/** One check: its summary and coverage, then the patient costs as a table. `raw` is the service's body. */
export async function writeCheck(ctx: Context, check: EligibilityCheck, raw: unknown): Promise<void> {
  const cov = check.coverage;
  await writeRecord(
    ctx,
    check,
    [
      { label: 'id', value: (c) => c.id },
      { label: 'status', value: (c) => c.status, style: (t, _r, c) => (t === 'completed' ? t : c.yellow(t)) },
      { label: 'outcome', value: (c) => c.outcome, style: (t, _r, c) => (t === 'success' ? t : c.yellow(t)) },
      { label: 'patient id', value: (c) => c.customer_patient_id },
      { label: 'created', value: (c) => c.created_at, kind: 'datetime' },
      { label: 'active today', value: (c) => c.coverage?.is_active_today, kind: 'bool', style: activeStyle },
      { label: 'checked date', value: (c) => c.coverage?.checked_date },
      { label: 'plan', value: (c) => c.coverage?.plan_name },
      { label: 'payer', value: (c) => c.coverage?.payer_name },
      { label: 'member id', value: (c) => c.coverage?.member_id },
      { label: 'group number', value: (c) => c.coverage?.group_number },
    ],
    raw,
  );
  if (ctx.globals.format !== 'table') return;
  const costs = Array.isArray(cov?.patient_costs) ? cov.patient_costs : [];
  if (costs.length === 0) return;
  await writeHeading(ctx, 'Patient costs');
  // Money in the table (a terminal); plain numbers when piped.
  const cols = ctx.io.isStdoutTTY
    ? COST_COLUMNS.map((c) => (c.header === 'AMOUNT' ? { ...c, value: costAmount } : c))
    : COST_COLUMNS;
  await writeList(ctx, costs, cols);
}
