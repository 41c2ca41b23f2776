// How checks read at a terminal and in pipes: one check with its coverage and patient costs, or a
// list of checks. Everything goes through the shared writer.
import type { EligibilityCheck, PatientCost } from '../api/types.js';
import type { Context } from '../context.js';
import { writeList, writeRecord, writeSection, type Column } from '../output/writer.js';
import { formatMoney } from '../output/format.js';

const activeStyle = (t: string, _r: unknown, c: import('chalk').ChalkInstance) =>
  t === 'yes' ? c.green(t) : t === 'no' ? c.red(t) : t;

// At 80 columns: which check, where it is, whether the patient is covered; payer and plan when there is room.
export const CHECK_COLUMNS: Column<EligibilityCheck>[] = [
  { header: 'ID', key: 'id', value: (c) => c.id },
  { header: 'STATUS', key: 'status', value: (c) => c.status, style: (t, _r, c) => (t === 'completed' ? t : c.yellow(t)) },
  { header: 'OUTCOME', key: 'outcome', value: (c) => c.outcome },
  { header: 'ACTIVE', key: 'coverage.is_active_today', value: (c) => c.coverage?.is_active_today, kind: 'bool', style: activeStyle },
  { header: 'PATIENT', key: 'customer_patient_id', value: (c) => c.customer_patient_id },
  { header: 'PAYER', key: 'coverage.payer_name', value: (c) => c.coverage?.payer_name, shrink: true, priority: 'useful' },
  { header: 'PLAN', key: 'coverage.plan_name', value: (c) => c.coverage?.plan_name, shrink: true, priority: 'extra' },
  { header: 'CREATED', key: 'created_at', value: (c) => c.created_at, kind: 'datetime', priority: 'useful' },
];

export async function writeChecks(ctx: Context, checks: EligibilityCheck[], raw: unknown = checks): Promise<void> {
  await writeList(ctx, checks, CHECK_COLUMNS, raw);
}

/** An amount as a person reads it: a coinsurance is a percentage, anything else money. */
export function costAmount(c: PatientCost): string {
  if (/coinsurance/i.test(c.type) || /percent/i.test(c.description ?? '')) {
    const n = Number(c.amount);
    return Number.isFinite(n) ? `${n}%` : String(c.amount ?? '');
  }
  return formatMoney(c.amount);
}

// Codes are never cut; the period gives way first, then the description is cut with "…".
const COST_COLUMNS: Column<PatientCost>[] = [
  { header: 'TYPE', key: 'type', value: (c) => c.type },
  // Piped and in csv the service's own number ("1500.00"); on a terminal money or a percentage.
  { header: 'AMOUNT', key: 'amount', value: (c) => c.amount, display: costAmount },
  { header: 'NETWORK', key: 'network', value: (c) => c.network },
  { header: 'LEVEL', key: 'coverage_level', value: (c) => c.coverage_level },
  { header: 'PERIOD', key: 'time_period', value: (c) => c.time_period, priority: 'useful' },
  { header: 'DESCRIPTION', key: 'description', value: (c) => c.description, shrink: true },
];

/** One check: its summary and coverage, then the patient costs as a table. `raw` is the service's body. */
export async function writeCheck(ctx: Context, check: EligibilityCheck, raw: unknown): Promise<void> {
  await writeRecord(
    ctx,
    check,
    [
      { label: 'id', key: 'id', value: (c) => c.id },
      { label: 'status', key: 'status', value: (c) => c.status, style: (t, _r, c) => (t === 'completed' ? t : c.yellow(t)) },
      { label: 'outcome', key: 'outcome', value: (c) => c.outcome, style: (t, _r, c) => (t === 'success' ? t : c.yellow(t)) },
      { label: 'patient id', key: 'customer_patient_id', value: (c) => c.customer_patient_id },
      { label: 'created', key: 'created_at', value: (c) => c.created_at, kind: 'datetime' },
      { label: 'active today', key: 'coverage.is_active_today', value: (c) => c.coverage?.is_active_today, kind: 'bool', style: activeStyle },
      { label: 'checked date', key: 'coverage.checked_date', value: (c) => c.coverage?.checked_date },
      { label: 'plan', key: 'coverage.plan_name', value: (c) => c.coverage?.plan_name },
      { label: 'payer', key: 'coverage.payer_name', value: (c) => c.coverage?.payer_name },
      { label: 'member id', key: 'coverage.member_id', value: (c) => c.coverage?.member_id },
      { label: 'group number', key: 'coverage.group_number', value: (c) => c.coverage?.group_number },
    ],
    raw,
  );
  const costs = Array.isArray(check.coverage?.patient_costs) ? check.coverage.patient_costs : [];
  await writeSection(ctx, { title: 'Patient costs', key: 'coverage.patient_costs', rows: costs, columns: COST_COLUMNS });
}
