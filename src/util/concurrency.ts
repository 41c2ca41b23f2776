// --concurrency, read the same way by every command that has it.
import { UsageError } from '../errors.js';

export const MAX_CONCURRENCY = 32;
/** Requests in flight at once when --concurrency is not given (batch chunks, bulk rows). */
export const DEFAULT_CONCURRENCY = 4;

/** The flag's value: a whole number from 1 to 32; the default when the flag is absent. */
export function parseConcurrency(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_CONCURRENCY;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) {
    throw new UsageError(`Invalid --concurrency "${raw}": give a whole number from 1 to ${MAX_CONCURRENCY}.`);
  }
  return n;
}
