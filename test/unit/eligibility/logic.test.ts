// Pure logic of the eligibility commands: local field checks (NPI, date of birth), the polling
// backoff and the watch loop on an injected clock, shared 429 pacing, verdicts, payer lists.
import { describe, expect, it } from 'vitest';
import { payersFromBody, unsupportedPayerList } from '../../../src/api/eligibility.js';
import { ApiError } from '../../../src/errors.js';
import { DEFAULT_BACKOFF, pollDelay, watchAll, type Clock, type PollResult } from '../../../src/eligibility/backoff.js';
import { checkRow } from '../../../src/eligibility/bulk.js';
import { Pacer } from '../../../src/util/pacer.js';
import { LineIndex } from '../../../src/util/lineIndex.js';
import { buildRequest, checkField, checkFields, fieldsFromBody } from '../../../src/eligibility/request.js';
import { verdictFor, worstExit } from '../../../src/eligibility/verdict.js';

const TODAY = new Date(2026, 5, 15, 12, 0, 0); // 2026-06-15 local

/** A fake clock: sleep advances time at once and records the waits. */
function fakeClock(random = () => 0.5): Clock & { t: number; sleeps: number[] } {
  const c = {
    t: 1_000_000,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms;
    },
    random,
  };
  return c;
}

describe('local field checks', () => {
  it('NPI: 10 digits with a valid Luhn check digit', () => {
    expect(checkField('npi', '1234567893', TODAY)).toEqual({ ok: true, value: '1234567893' });
    expect(checkField('npi', ' 1234567893 ', TODAY)).toEqual({ ok: true, value: '1234567893' });
    expect(checkField('npi', '1234567890', TODAY)).toMatchObject({ ok: false, message: expect.stringContaining('check digit') });
    expect(checkField('npi', '123456789', TODAY)).toMatchObject({ ok: false, message: expect.stringContaining('10 digits') });
    expect(checkField('npi', '12345678a3', TODAY)).toMatchObject({ ok: false });
  });

  it('date of birth: a real YYYY-MM-DD date, not in the future', () => {
    expect(checkField('dateOfBirth', '1980-04-02', TODAY)).toEqual({ ok: true, value: '1980-04-02' });
    expect(checkField('dateOfBirth', '2026-06-15', TODAY)).toEqual({ ok: true, value: '2026-06-15' });
    expect(checkField('dateOfBirth', '2026-06-16', TODAY)).toMatchObject({ ok: false, message: expect.stringContaining('future') });
    expect(checkField('dateOfBirth', '2023-02-29', TODAY)).toMatchObject({ ok: false, message: expect.stringContaining('real date') });
    expect(checkField('dateOfBirth', '04/02/1980', TODAY)).toMatchObject({ ok: false });
    // CSV rows accept the usual spreadsheet spellings, normalised.
    expect(checkField('dateOfBirth', '04/02/1980', TODAY, { looseDates: true })).toEqual({ ok: true, value: '1980-04-02' });
    expect(checkField('dateOfBirth', '04/02/80', TODAY, { looseDates: true })).toMatchObject({ ok: false });
  });

  it('checkFields names every missing or bad field and never echoes values', () => {
    const r = checkFields({ firstName: 'Ana', dateOfBirth: '2999-01-01', npi: '1234567890' }, TODAY);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.field).sort()).toEqual(['dateOfBirth', 'lastName', 'memberId', 'npi', 'payerId', 'providerName']);
    expect(JSON.stringify(r.problems)).not.toContain('2999');
    expect(JSON.stringify(r.problems)).not.toContain('1234567890');
    // customer_patient_id is optional for one check, required in bulk
    const ok = { firstName: 'A', lastName: 'B', dateOfBirth: '1980-01-01', memberId: 'M', payerId: '87726', providerName: 'P', npi: '1234567893' };
    expect(checkFields(ok, TODAY).ok).toBe(true);
    expect(checkFields(ok, TODAY, { requirePatientId: true })).toMatchObject({ ok: false, problems: [{ field: 'customerPatientId' }] });
  });

  it('buildRequest and fieldsFromBody round-trip', () => {
    const f = { firstName: 'A', lastName: 'B', dateOfBirth: '1980-01-01', memberId: 'M', customerPatientId: 'X', payerId: '87726', providerName: 'P', npi: '1234567893' };
    const body = buildRequest(f, { url: 'https://h/x', secret: 's' });
    expect(body).toEqual({
      patient: { first_name: 'A', last_name: 'B', date_of_birth: '1980-01-01', member_id: 'M', customer_patient_id: 'X' },
      insurance: { payer_id: '87726' },
      provider: { organization_name: 'P', npi: '1234567893' },
      webhook_url: 'https://h/x',
      webhook_secret: 's',
    });
    expect(fieldsFromBody(body).fields).toEqual(f);
  });

  it('checkRow flags repeated patient ids with the first line', () => {
    const mapping = ['customerPatientId', 'firstName', 'lastName', 'dateOfBirth', 'memberId', 'payerId', 'providerName', 'npi'].map((field, index) => ({ field, index }));
    const seen = new LineIndex();
    const vals = ['P1', 'A', 'B', '1980-01-01', 'M', '87726', 'Clinic', '1234567893'];
    expect(checkRow(2, vals, mapping, TODAY, seen).result).toBeUndefined();
    const dup = checkRow(3, vals, mapping, TODAY, seen);
    expect(dup.result).toBe('invalid');
    expect(dup.error).toContain('line 2');
  });
});

describe('backoff schedule', () => {
  it('starts near 1 s, grows, never exceeds the interval, jitters within ±20%', () => {
    const opts = { ...DEFAULT_BACKOFF, maxMs: 5000 };
    const mid = Array.from({ length: 8 }, (_, i) => pollDelay(i, opts, () => 0.5));
    expect(mid).toEqual([1000, 1500, 2250, 3375, 5000, 5000, 5000, 5000]);
    expect(pollDelay(0, opts, () => 0)).toBe(800);
    expect(pollDelay(0, opts, () => 0.999999)).toBe(1200);
    for (let i = 0; i < 20; i++) expect(pollDelay(i, opts, () => 0.999999)).toBeLessThanOrEqual(5000);
    // an interval below a second caps even the first wait
    expect(pollDelay(0, { ...DEFAULT_BACKOFF, maxMs: 300 }, () => 0.999999)).toBe(300);
  });

  it('watchAll polls each pending id once per round until done, with growing waits', async () => {
    const clock = fakeClock();
    const polls: number[] = [];
    const doneAfter = new Map([
      [1, 2],
      [2, 4],
    ]);
    const seen = new Map<number, number>();
    const r = await watchAll<string>({
      ids: [1, 2],
      clock,
      timeoutMs: 60_000,
      backoff: { ...DEFAULT_BACKOFF, maxMs: 2000 },
      poll: async (id): Promise<PollResult<string>> => {
        polls.push(id);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        return n >= doneAfter.get(id)! ? { done: true, value: `done-${id}` } : { done: false, status: 'in-progress' };
      },
    });
    expect(r.timedOut).toBe(false);
    expect(r.rounds).toBe(4);
    expect(polls).toEqual([1, 2, 1, 2, 2, 2]); // a finished id is not polled again
    expect(clock.sleeps).toEqual([1000, 1500, 2000]);
    expect(r.states.get(1)).toEqual({ kind: 'done', value: 'done-1' });
  });

  it('watchAll stops at the timeout (final poll at the deadline) and reports it', async () => {
    const clock = fakeClock();
    const r = await watchAll<string>({
      ids: [7],
      clock,
      timeoutMs: 5000,
      backoff: { ...DEFAULT_BACKOFF, maxMs: 2000 },
      poll: async () => ({ done: false, status: 'queued' }),
    });
    expect(r.timedOut).toBe(true);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(5000);
    expect(clock.sleeps.at(-1)).toBeLessThanOrEqual(2000);
    expect(r.states.get(7)).toEqual({ kind: 'pending', status: 'queued' });
  });
});

describe('shared pacing', () => {
  it('a refusal pauses everyone, spaces starts, and recovers after successes', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { basePauseMs: 500, maxPauseMs: 10_000, minGapMs: 25, maxGapMs: 1000, recoverAfter: 2 });
    await pacer.acquire();
    await pacer.acquire();
    expect(clock.sleeps).toEqual([]); // no gap before any refusal
    pacer.refused();
    expect(pacer.currentGapMs).toBe(25);
    const t0 = clock.t;
    await pacer.acquire();
    expect(clock.t - t0).toBe(500); // the pause applies to every worker
    await pacer.acquire();
    expect(clock.t - t0).toBe(525); // then starts are spaced by the gap
    pacer.refused();
    pacer.refused(); // a second in-flight request refused during the same pause: no further escalation
    expect(pacer.currentGapMs).toBe(50);
    const t1 = clock.t;
    await pacer.acquire();
    expect(clock.t - t1).toBe(1000); // second refusal without a success between: 2x the base pause
    pacer.refused();
    expect(pacer.currentGapMs).toBe(100);
    const t2 = clock.t;
    await pacer.acquire();
    expect(clock.t - t2).toBe(2000);
    for (let i = 0; i < 12; i++) pacer.succeeded();
    expect(pacer.currentGapMs).toBe(0);
    expect(pacer.throttled).toBe(4);
  });

  it('honours an explicit retry-after', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock);
    pacer.refused(3000);
    const t0 = clock.t;
    await pacer.acquire();
    expect(clock.t - t0).toBe(3000);
  });
});

describe('verdicts and payer lists', () => {
  const base = { id: 1, status: 'completed' as const, created_at: '' };
  it('fail-inactive rejects inactive coverage and non-success outcomes', () => {
    const active = { ...base, outcome: 'success', coverage: { is_active_today: true } } as never;
    const inactive = { ...base, outcome: 'success', coverage: { is_active_today: false } } as never;
    const ns = { ...base, outcome: 'not-supported' } as never;
    expect(verdictFor(active, true).code).toBe(0);
    expect(verdictFor(inactive, true).code).toBe(3);
    expect(verdictFor(ns, true).code).toBe(3);
    expect(verdictFor(inactive, false).code).toBe(0);
    expect(worstExit([0, 3, 124, 5])).toBe(124);
    expect(worstExit([])).toBe(0);
  });

  it('reads a payer list out of any shape of 400 body', () => {
    expect(payersFromBody({ supported_payers: [{ payer_id: '1', name: 'A', subsidiaries: [{ payer_id: '2', name: 'B' }] }] })).toEqual([
      { payer_id: '1', name: 'A' },
      { payer_id: '2', name: 'B', parent: 'A' },
    ]);
    expect(payersFromBody({ message: 'x', details: { payers: [{ id: 'X', payerName: 'Y' }] } })).toEqual([{ payer_id: 'X', name: 'Y' }]);
    expect(payersFromBody({ supportedPayers: ['Aetna', 'Cigna'] })).toEqual([
      { payer_id: '', name: 'Aetna' },
      { payer_id: '', name: 'Cigna' },
    ]);
    expect(payersFromBody({ error: 'Bad Request', message: 'nope' })).toBeUndefined();
    const err = new ApiError('x', 3, { status: 400, method: 'POST', path: '/v1/eligibility', body: { supported_payers: [{ payer_id: '9', name: 'Z' }] } });
    expect(unsupportedPayerList(err)).toEqual([{ payer_id: '9', name: 'Z' }]);
    expect(unsupportedPayerList(new Error('x'))).toBeUndefined();
  });
});
