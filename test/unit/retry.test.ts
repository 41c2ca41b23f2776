import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, isRetryable, parseRetryAfter, retryDelay, type AttemptFailure, type Method } from '../../src/api/retry.js';

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
