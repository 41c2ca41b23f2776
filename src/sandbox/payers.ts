// The eight payers the service supports (CLI.md), with sandbox payer ids for them and their
// subsidiaries. The ids are plausible clearinghouse ids; only 87726 is confirmed by the service's
// own examples. docs/sandbox.md lists the same table.
import type { SupportedPayer } from '../api/types.js';

export const SUPPORTED_PAYERS: SupportedPayer[] = [
  {
    payer_id: '87726',
    name: 'UnitedHealthcare',
    subsidiaries: [
      { payer_id: '39026', name: 'UMR' },
      { payer_id: '37602', name: 'Golden Rule Insurance Company' },
    ],
  },
  {
    payer_id: '60054',
    name: 'Aetna',
    subsidiaries: [
      { payer_id: '41124', name: 'Meritain Health' },
      { payer_id: '68862', name: 'Aetna Better Health' },
    ],
  },
  {
    payer_id: '62308',
    name: 'Cigna',
    subsidiaries: [
      { payer_id: '63092', name: 'Cigna-HealthSpring' },
      { payer_id: '81040', name: 'Allegiance Benefit Plan Management' },
    ],
  },
  {
    payer_id: 'OSCAR',
    name: 'Oscar Health',
    subsidiaries: [{ payer_id: 'OSCAR-MA', name: 'Oscar Medicare Advantage' }],
  },
  {
    payer_id: '06111',
    name: 'Oxford',
    subsidiaries: [{ payer_id: '06111-L', name: 'Oxford Liberty Plans' }],
  },
  {
    payer_id: '61101',
    name: 'Humana',
    subsidiaries: [
      { payer_id: '95092', name: 'CarePlus Health Plans' },
      { payer_id: '61102', name: 'Humana Military (TRICARE East)' },
    ],
  },
  {
    payer_id: '94265',
    name: 'Medica',
    subsidiaries: [{ payer_id: '39113', name: 'Medica Health Plans of Wisconsin' }],
  },
  {
    payer_id: '94134',
    name: 'Kaiser Permanente',
    subsidiaries: [
      { payer_id: '94135', name: 'Kaiser Permanente Northern California' },
      { payer_id: '91617', name: 'Kaiser Permanente Colorado' },
    ],
  },
];

export interface ResolvedPayer {
  /** The payer or subsidiary that was asked for. */
  payerId: string;
  name: string;
  /** The top-level payer it belongs to. */
  parent: SupportedPayer;
}

const BY_ID = new Map<string, ResolvedPayer>();
for (const p of SUPPORTED_PAYERS) {
  BY_ID.set(p.payer_id.toUpperCase(), { payerId: p.payer_id, name: p.name, parent: p });
  for (const s of p.subsidiaries) BY_ID.set(s.payer_id.toUpperCase(), { payerId: s.payer_id, name: s.name, parent: p });
}

/** Looks a payer id up (case and surrounding spaces ignored); undefined when unsupported. */
export function resolvePayer(payerId: string): ResolvedPayer | undefined {
  return BY_ID.get(payerId.trim().toUpperCase());
}
