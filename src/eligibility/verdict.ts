// What a check's status and result mean for watch / --wait and their exit code. Pure.
import type { EligibilityCheck } from '../api/types.js';
import { terminalSafe } from '../output/safe.js';

/**
 * Where a status leaves a watch: API.md's waiting statuses keep it polling, `completed` ends it,
 * and anything else (`failed`, `cancelled`, a status added later) ends it too: waiting for a status
 * this version cannot read would only run into --timeout.
 */
export type StatusKind = 'waiting' | 'completed' | 'unknown';

const WAITING = new Set(['queued', 'in-progress']);

/** The status as compared: case and `_`/space spellings of API.md's values are the same status. */
function norm(status: unknown): string | undefined {
  if (typeof status !== 'string') return undefined;
  return status.trim().toLowerCase().replace(/[_\s]+/g, '-');
}

export function statusKind(status: unknown): StatusKind {
  const s = norm(status);
  if (s === 'completed') return 'completed';
  if (s !== undefined && WAITING.has(s)) return 'waiting';
  return 'unknown';
}

/** The sentence for a check that stopped on a status this version does not know. */
export function unknownStatusReason(id: number | string, status: unknown): string {
  // The service's word, cut short and inert (shown as `\e`, never acting on a terminal).
  const shown = typeof status === 'string' ? `status "${terminalSafe([...status].slice(0, 60).join(''))}"` : 'no status';
  return `check ${id} has ${shown}, which this version does not know; it is not waiting any more`;
}

export interface Verdict {
  /** 0 fine, 1 a status this version does not know, 3 rejected by --fail-inactive. */
  code: 0 | 1 | 3;
  reason?: string;
}

export function verdictFor(c: EligibilityCheck, failInactive: boolean): Verdict {
  if (statusKind(c.status) === 'unknown') return { code: 1, reason: unknownStatusReason(c.id, c.status) };
  if (!failInactive) return { code: 0 };
  if (c.outcome !== 'success') return { code: 3, reason: `check ${c.id} finished with outcome ${c.outcome ? terminalSafe(c.outcome) : '(none)'}` };
  if (c.coverage?.is_active_today !== true) return { code: 3, reason: `check ${c.id}: coverage is not active today` };
  return { code: 0 };
}

/** The worst of several exit codes: src/errors.ts holds the one policy. */
export { worstExit } from '../errors.js';

/** A read check as a poll result: waiting statuses keep polling; `completed` and any unknown status end it. */
export function pollResultFor<T extends { status?: unknown }>(c: T): { done: true; value: T } | { done: false; status: string } {
  return statusKind(c.status) === 'waiting' ? { done: false, status: String(c.status) } : { done: true, value: c };
}

/** What a check's result is, in the words of the outcome breakdown (counted from what the service said). */
export type CheckResult =
  | 'active'
  | 'inactive'
  | 'not supported'
  | 'no coverage answer'
  | 'other outcome'
  | 'failed'
  | 'unknown status'
  | 'not completed yet'
  | 'could not be read';

/** The order the breakdown lists results in: the answers a coordinator acts on first. */
export const CHECK_RESULTS: readonly CheckResult[] = [
  'active',
  'inactive',
  'not supported',
  'no coverage answer',
  'other outcome',
  'failed',
  'unknown status',
  'not completed yet',
  'could not be read',
];

/**
 * A finished check's result: `completed` with outcome `success` is active or inactive as its
 * coverage says (neither when it does not say); `not-supported` as such; any other outcome or
 * status is reported as what it is, never as active or inactive.
 */
export function resultOf(c: EligibilityCheck): CheckResult {
  const kind = statusKind(c.status);
  if (kind === 'waiting') return 'not completed yet';
  if (kind === 'unknown') return norm(c.status) === 'failed' ? 'failed' : 'unknown status';
  const outcome = norm(c.outcome);
  if (outcome === 'not-supported') return 'not supported';
  if (outcome !== 'success') return 'other outcome';
  const active = c.coverage?.is_active_today;
  return active === true ? 'active' : active === false ? 'inactive' : 'no coverage answer';
}
