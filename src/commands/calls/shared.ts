// Small helpers shared by the calls commands.
import { UsageError } from '../../errors.js';

/** A call id: a positive integer. */
export function parseCallId(raw: string): number {
  const s = raw.trim();
  if (!/^\d+$/.test(s) || Number(s) < 1 || !Number.isSafeInteger(Number(s))) {
    throw new UsageError(`Invalid call id "${raw}": call ids are positive integers.`);
  }
  return Number(s);
}
