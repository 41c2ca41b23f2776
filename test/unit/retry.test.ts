import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  defaultTotalTimeoutMs,
  isRetryable,
  parseRetryAfter,
  retryDelay,
  retryFits,
  type AttemptFailure,
  type Method,
} from '../../src/api/retry.js';

describe('isRetryable', () => {
  const cases: Array<[Method, AttemptFailure, boolean, boolean]> = [
    // method, failure, idempotent flag, expected
    ['GET', { kind: 'status', status: 503 }, false, true],
    ['GET', { kind: 'status', status: 500 }, false, true],
    ['GET', { kind: 'status', status: 429 }, false, true],
    ['GET', { kind: 'status', status: 404 }, false, false],
    ['GET', { kind: 'status', status: 400 }, false, false],
    ['GET', { kind: 'lost', code: 'ECONNRESET' }, false, true],
    ['GET', { kind: 'lost', code: 'timeout' }, false, true],
    ['DELETE', { kind: 'lost', code: 'ECONNRESET' }, false, true],
    ['POST', { kind: 'status', status: 503 }, false, true],
    ['POST', { kind: 'status', status: 429 }, false, true],
    ['POST', { kind: 'status', status: 500 }, false, false],
    ['POST', { kind: 'status', status: 502 }, false, false],
    ['POST', { kind: 'status', status: 504 }, false, false],
    ['POST', { kind: 'lost', code: 'ECONNRESET' }, false, false],
    ['POST', { kind: 'lost', code: 'timeout' }, false, false],
    ['POST', { kind: 'not-sent', code: 'ECONNREFUSED' }, false, true],
    ['PATCH', { kind: 'lost', code: 'timeout' }, false, false],
    ['POST', { kind: 'lost', code: 'timeout' }, true, true],
    ['POST', { kind: 'status', status: 500 }, true, true],
  ];
  it.each(cases)('%s after %j (idempotent=%s) → %s', (method, failure, idempotent, expected) => {
    expect(isRetryable(method, failure, idempotent)).toBe(expected);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it('reads seconds', () => expect(parseRetryAfter('3', now)).toBe(3000));
  it('reads fractional seconds', () => expect(parseRetryAfter('0.5', now)).toBe(500));
  it('reads an HTTP date', () => expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:07 GMT', now)).toBe(7000));
  it('never goes negative for a past date', () => expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0));
  it('ignores garbage and absence', () => {
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('retryDelay', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
  it('grows exponentially with full jitter', () => {
    expect(retryDelay(1, policy, () => 1)).toBe(100);
    expect(retryDelay(2, policy, () => 1)).toBe(200);
    expect(retryDelay(3, policy, () => 1)).toBe(400);
    expect(retryDelay(3, policy, () => 0.5)).toBe(200);
    expect(retryDelay(3, policy, () => 0)).toBe(0);
  });
  it('is capped', () => expect(retryDelay(10, policy, () => 1)).toBe(1000));
  it('honours Retry-After, capped at the policy maximum', () => {
    expect(retryDelay(1, policy, () => 1, 2500)).toBe(2500);
    expect(retryDelay(1, policy, () => 1, 10 * 60_000)).toBe(policy.maxRetryAfterMs);
  });
});

describe('the time allowed for one request', () => {
  it('defaults to the worst case of the schedule: 123.5 s at the defaults, 15.5 s with a 3 s timeout', () => {
    expect(defaultTotalTimeoutMs(30_000, DEFAULT_RETRY_POLICY)).toBe(123_500);
    expect(defaultTotalTimeoutMs(3_000, DEFAULT_RETRY_POLICY)).toBe(15_500);
    expect(defaultTotalTimeoutMs(1_000, { ...DEFAULT_RETRY_POLICY, maxRetries: 0 })).toBe(1_000);
    // the backoff cap applies: 0.5 + 1 + 2 + 4 + 8 + 8 s
    expect(defaultTotalTimeoutMs(1_000, { ...DEFAULT_RETRY_POLICY, maxRetries: 6 })).toBe(7 * 1_000 + 23_500);
  });

  it('the longest schedule always fits, one more attempt never does', () => {
    const policy = DEFAULT_RETRY_POLICY;
    const total = defaultTotalTimeoutMs(3_000, policy);
    let counted = 3_000; // the first attempt timed out
    for (let k = 1; k <= policy.maxRetries; k++) {
      const wait = retryDelay(k, policy, () => 1);
      expect(retryFits(counted, wait, 3_000, total)).toBe(true);
      counted += wait + 3_000;
    }
    expect(counted).toBe(total);
    expect(retryFits(counted, 0, 3_000, total)).toBe(false);
  });

  it('a Retry-After that leaves no room for a full attempt does not fit', () => {
    expect(retryFits(1_000, 13_000, 3_000, 15_500)).toBe(false);
    expect(retryFits(1_000, 11_500, 3_000, 15_500)).toBe(true);
  });
});
