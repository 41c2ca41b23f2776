// What a finished check means for the exit code of watch / --wait. Pure.
import type { EligibilityCheck } from '../api/types.js';

export interface Verdict {
  /** 0 fine, 3 rejected by --fail-inactive. */
  code: 0 | 3;
  reason?: string;
}

export function isCompleted(c: Pick<EligibilityCheck, 'status'>): boolean {
  return c.status === 'completed';
}

export function verdictFor(c: EligibilityCheck, failInactive: boolean): Verdict {
  if (!failInactive) return { code: 0 };
  if (c.outcome !== 'success') return { code: 3, reason: `check ${c.id} finished with outcome ${c.outcome ?? '(none)'}` };
  if (c.coverage?.is_active_today !== true) return { code: 3, reason: `check ${c.id}: coverage is not active today` };
  return { code: 0 };
}

/** The worst of several exit codes: any non-zero beats 0, then the highest. */
export function worstExit(codes: Iterable<number>): number {
  let worst = 0;
  for (const c of codes) if (c > worst) worst = c;
  return worst;
}
