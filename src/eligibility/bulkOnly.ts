// `eligibility check --csv --only LIST`: the rows the results (--out, stdout) keep. A row is known
// by what became of its submission (bulk.ts RowResult) and, with --wait, by its check's result
// (verdict.ts CheckResult), spelt as a flag value: `not supported` → `not-supported`. The counts
// and the summary still count every row. Pure.
import type { BulkRow } from './bulk.js';
import type { CheckResult } from './verdict.js';

/** What became of a row's submission; `submitted` is accepted now or by an earlier run. */
const SUBMISSION_VALUES = ['accepted', 'already-submitted', 'submitted', 'invalid', 'rejected', 'unknown', 'not-sent'] as const;
/** A completed check's result: known only with --wait. */
const CHECK_VALUES = ['active', 'inactive', 'not-supported', 'no-coverage-answer', 'other-outcome', 'failed', 'unknown-status'] as const;
/** Submitted, its result not known yet (no --wait, not completed in time, or it could not be read). */
const PENDING = 'pending';

/** Every --only value, in the order help and errors list them. */
export const ONLY_VALUES: readonly string[] = [...CHECK_VALUES, PENDING, ...SUBMISSION_VALUES];

/** A bad --only value; the command makes it a usage error. */
export class OnlyOptionError extends Error {
  override name = 'OnlyOptionError';
}

const spelt = (s: string) => s.trim().toLowerCase().replace(/[\s_]+/g, '-');

/** Parses `--only active,not-supported` (case, spaces and `_` forgiven); a check's result needs --wait. */
export function parseOnly(raw: string, wait: boolean): Set<string> {
  const values = raw.split(',').map(spelt).filter(Boolean);
  if (values.length === 0) throw new OnlyOptionError(`--only needs one or more of: ${ONLY_VALUES.join(', ')} (comma-separated).`);
  const unknown = values.find((v) => !ONLY_VALUES.includes(v));
  if (unknown) throw new OnlyOptionError(`--only "${raw}": "${unknown}" is not a result; use one or more of: ${ONLY_VALUES.join(', ')} (comma-separated).`);
  const needsWait = wait ? undefined : values.find((v) => (CHECK_VALUES as readonly string[]).includes(v));
  if (needsWait) {
    throw new OnlyOptionError(`--only ${needsWait}: a check's result is known only after waiting for it; add --wait (without it, submitted rows are "pending").`);
  }
  return new Set(values);
}

/** The --only values a row answers to. */
export function rowValues(row: Pick<BulkRow, 'result' | 'check'>): string[] {
  const result = row.result ?? 'not-sent';
  if (result !== 'accepted' && result !== 'already-submitted') return [result];
  const check = checkValue(row.check);
  return [result, 'submitted', check];
}

function checkValue(check: CheckResult | undefined): string {
  if (check === undefined || check === 'not completed yet' || check === 'could not be read') return PENDING;
  return spelt(check);
}

/** True when the row is kept: no --only, or one of its values is listed. */
export function keepsRow(only: ReadonlySet<string> | undefined, row: Pick<BulkRow, 'result' | 'check'>): boolean {
  return !only || rowValues(row).some((v) => only.has(v));
}
