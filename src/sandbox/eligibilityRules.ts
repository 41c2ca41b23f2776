// Deterministic eligibility results, derived from the member id so tests and demos can predict
// them (documented in docs/sandbox.md):
//   member id starts with "NS"  -> outcome "not-supported", no coverage
//   member id ends with "0"     -> outcome "success", coverage inactive (is_active_today false)
//   anything else               -> outcome "success", coverage active
// Amounts and plan tier come from the member id's last digit d (0 when it ends in a letter).
import type { Coverage, EligibilityOutcome, PatientCost } from '../api/types.js';
import type { ResolvedPayer } from './payers.js';

export interface EligibilityResult {
  outcome: EligibilityOutcome;
  coverage: Coverage | null;
}

const TIERS = ['PPO', 'PPO', 'PPO', 'PPO', 'HMO', 'HMO', 'HMO', 'EPO', 'EPO', 'EPO'];

function lastDigit(memberId: string): number {
  const c = memberId.trim().slice(-1);
  return c >= '0' && c <= '9' ? Number(c) : 0;
}

const money = (n: number) => n.toFixed(2);

export function eligibilityResult(memberId: string, payer: ResolvedPayer, checkedAt: Date): EligibilityResult {
  const m = memberId.trim().toUpperCase();
  if (m.startsWith('NS')) return { outcome: 'not-supported', coverage: null };
  const active = !m.endsWith('0');
  const d = lastDigit(m);
  const deductible = 500 + 250 * d;
  const costs: PatientCost[] = active
    ? [
        cost('deductible', 'in_network', 'Annual deductible', deductible, 'individual', 'plan_year'),
        cost('deductible', 'in_network', 'Annual deductible', deductible * 2, 'family', 'plan_year'),
        cost('deductible', 'out_of_network', 'Annual deductible', deductible * 2, 'individual', 'plan_year'),
        cost('out_of_pocket_max', 'in_network', 'Out-of-pocket maximum', 3000 + 500 * d, 'individual', 'plan_year'),
        cost('copay', 'in_network', 'Primary care office visit', 20 + 5 * d, 'individual', 'visit'),
        cost('coinsurance', 'in_network', 'Coinsurance after deductible (percent)', 20, 'individual', 'plan_year'),
      ]
    : [];
  return {
    outcome: 'success',
    coverage: {
      is_active_today: active,
      checked_date: checkedAt.toISOString().slice(0, 10),
      plan_name: `${payer.parent.name} ${TIERS[d]} Plan`,
      payer_name: payer.name,
      patient_costs: costs,
      group_number: `GRP-${m.replace(/[^A-Z0-9]/g, '').slice(0, 5)}`,
      member_id: memberId.trim(),
    },
  };
}

function cost(type: string, network: string, description: string, amount: number, level: string, period: string): PatientCost {
  return { type, network, description, amount: money(amount), coverage_level: level, time_period: period };
}
