// --concurrency, read the same way by every command that has it.
import { UsageError } from '../errors.js';

export const MAX_CONCURRENCY = 32;

/** The flag's value: a whole number from 1 to 32; `fallback` when the flag is absent. */
export function parseConcurrency(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) {
    throw new UsageError(`Invalid --concurrency "${raw}": give a whole number from 1 to ${MAX_CONCURRENCY}.`);
  }
  return n;
}
