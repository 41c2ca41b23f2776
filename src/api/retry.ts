// The retry policy, kept pure so it can be tested without a network: which failures may be
// repeated, and how long to wait before the next attempt.

export type Method = 'GET' | 'HEAD' | 'DELETE' | 'PUT' | 'POST' | 'PATCH';

/** How a failed attempt ended. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfter?: string | null }
  /** The connection was never made: nothing reached the service. */
  | { kind: 'not-sent'; code: string }
  /** Sent, but the answer never came or broke off: the service may have acted. */
  | { kind: 'lost'; code: string };

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After we are willing to honour. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

const SAFE_METHODS = new Set<Method>(['GET', 'HEAD', 'DELETE', 'PUT']);
const RETRYABLE_STATUS_SAFE = new Set([408, 425, 429, 500, 502, 503, 504]);
/** Statuses that mean the service refused before acting: safe to repeat even a POST. */
const REFUSED_BEFORE_ACTING = new Set([429, 503]);

/**
 * May this failure be repeated? `idempotent` marks requests that change nothing even when they are
 * POSTs (e.g. a batch with validate_only).
 */
export function isRetryable(method: Method, failure: AttemptFailure, idempotent = false): boolean {
  const safe = idempotent || SAFE_METHODS.has(method);
  switch (failure.kind) {
    case 'not-sent':
      return true;
    case 'lost':
      return safe;
    case 'status':
      return safe ? RETRYABLE_STATUS_SAFE.has(failure.status) : REFUSED_BEFORE_ACTING.has(failure.status);
  }
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds, or undefined. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Delay before retry number `attempt` (1-based): exponential backoff with full jitter, capped; a
 * Retry-After from the service wins when it is present and not absurd.
 */
export function retryDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
  retryAfterMs?: number,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/**
 * The time allowed for one logical request, every attempt and every wait between them included.
 * By default it is the worst case of the retry schedule itself, so the normal retries always fit:
 *   (maxRetries + 1) × timeoutMs + Σ_{k=1..maxRetries} min(maxDelayMs, baseDelayMs × 2^(k−1))
 * (123.5 s at the defaults: 4 × 30 s + 0.5 + 1 + 2 s). What it adds is a bound on Retry-After
 * waits, which could otherwise add maxRetries × maxRetryAfterMs to a run.
 */
export function defaultTotalTimeoutMs(timeoutMs: number, policy: RetryPolicy): number {
  let waits = 0;
  for (let k = 1; k <= policy.maxRetries; k++) waits += Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (k - 1));
  return (policy.maxRetries + 1) * timeoutMs + waits;
}

/**
 * The rule that keeps one request within its time allowed (totalTimeoutMs): each attempt counts for
 * at most its timeout and each wait for its length, and a retry is begun only when the time counted
 * so far, its wait and one full attempt fit in the time allowed; otherwise the request fails with
 * its last failure. Attempts are never cut short, so the default schedule always fits exactly.
 */
export function retryFits(countedMs: number, waitMs: number, timeoutMs: number, totalTimeoutMs: number): boolean {
  return countedMs + waitMs + timeoutMs <= totalTimeoutMs;
}
