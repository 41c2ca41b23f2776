// What the eligibility bulk run and the watch loop do with each fate of a failure (fateOf) and each
// status: refused rows wait as long as Retry-After says and are sent again later; rejected rows keep
// the service's words; unknown rows (5xx, lost answer, answer without an id) are never sent again
// without proof or --resend-unknown; a status this version does not know ends a watch.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiErrorFrom } from '../../../src/api/errors.js';
import type { EligibilityCheck, EligibilitySubmitted } from '../../../src/api/types.js';
import { MalformedResponseError, NetworkError, UnknownOutcomeError } from '../../../src/errors.js';
import { DEFAULT_BACKOFF, watchAll, type Clock } from '../../../src/eligibility/backoff.js';
import { resolveUnknown, submitRows, type BulkRow, type SubmitDeps } from '../../../src/eligibility/bulk.js';
import { replay } from '../../../src/eligibility/bulkJournal.js';
import { JournalWriter, readRecords } from '../../../src/journal/file.js';

/** The journal's state as a re-run would replay it (keys in clear here: no keyOf in these deps). */
const readJournal = async (path: string) => replay((await readRecords(path)) ?? []);
import { pollResultFor, statusKind, verdictFor } from '../../../src/eligibility/verdict.js';

function fakeClock(): Clock & { t: number; sleeps: number[] } {
  const c = {
    t: Date.parse('2026-06-15T12:00:00Z'),
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms;
    },
    random: () => 0.5,
  };
  return c;
}

const URL_ = new URL('http://svc/v1/eligibility');
const answer = (status: number, body: string, headers: Record<string, string> = {}) => apiErrorFrom('POST', URL_, status, body, headers);

function row(line: number, key = `P${line}`): BulkRow {
  return {
    line,
    key,
    fields: { firstName: 'A', lastName: 'B', dateOfBirth: '1980-01-01', memberId: 'M', customerPatientId: key, payerId: '87726', providerName: 'C', npi: '1234567893' },
    problems: [],
  };
}

let dir: string;
let journalPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'elig-fates-'));
  journalPath = join(dir, 'j.ndjson');
});
const opened: JournalWriter[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((j) => j.close())); // close() twice is harmless
  rmSync(dir, { recursive: true, force: true });
});

/** A submit that answers from a script, one entry per call (an Error is thrown). */
function scripted(script: Array<Error | number>) {
  const sent: string[] = [];
  const submit = async (body: { patient: { customer_patient_id?: string } }): Promise<EligibilitySubmitted> => {
    sent.push(body.patient.customer_patient_id ?? '');
    const next = script.shift();
    if (next instanceof Error) throw next;
    return { id: next ?? 1, status: 'in-progress', created_at: '2026-06-15T12:00:00Z' } as EligibilitySubmitted;
  };
  return { sent, submit };
}

async function deps(submit: SubmitDeps['submit'], extra: Partial<SubmitDeps> = {}, lookup: EligibilityCheck[] = []): Promise<SubmitDeps & { clock: ReturnType<typeof fakeClock>; journal: JournalWriter }> {
  return {
    submit,
    lookup: async () => lookup,
    clock: fakeClock(),
    journal: opened[opened.push(await JournalWriter.open(journalPath)) - 1]!,
    state: await readJournal(journalPath),
    concurrency: 1,
    ...extra,
  } as SubmitDeps & { clock: ReturnType<typeof fakeClock>; journal: JournalWriter };
}

function events(): Array<Record<string, unknown>> {
  return readFileSync(journalPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

describe('bulk submit: each fate', () => {
  it('a 429 with Retry-After pauses the whole run that long, then the row is sent again', async () => {
    const s = scripted([answer(429, '{"message":"slow down"}', { 'retry-after': '3' }), 7]);
    const d = await deps(s.submit as SubmitDeps['submit']);
    const rows = [row(2)];
    const summary = await submitRows(rows, d);
    expect(summary.throttled).toBe(1);
    expect(d.clock.sleeps).toContain(3000); // not the 500 ms pause used without Retry-After
    expect(rows[0]).toMatchObject({ result: 'accepted', id: 7 });
    expect(s.sent).toEqual(['P2', 'P2']);
  });

  it('a 503 refused every time: not-sent (nothing created), and a re-run sends it', async () => {
    const refusals = Array.from({ length: 3 }, () => answer(503, '{"message":"maintenance"}'));
    const d = await deps(scripted(refusals).submit as SubmitDeps['submit'], { maxRefusals: 3 });
    const rows = [row(2)];
    await submitRows(rows, d);
    expect(rows[0]!.result).toBe('not-sent');
    expect(rows[0]!.error).toContain('refused it 3 times before acting');
    await d.journal.close();
    expect((await readJournal(journalPath)).unknown.size).toBe(0);
    const again = scripted([9]);
    const rows2 = [row(2)];
    await submitRows(rows2, await deps(again.submit as SubmitDeps['submit']));
    expect(again.sent).toEqual(['P2']);
    expect(rows2[0]).toMatchObject({ result: 'accepted', id: 9 });
  });

  it('a 400 is rejected with the service\'s own message; the run goes on', async () => {
    const d = await deps(scripted([answer(400, '{"message":"Payer 1 is not supported","statusCode":400}'), 4]).submit as SubmitDeps['submit']);
    const rows = [row(2), row(3)];
    await submitRows(rows, d);
    expect(rows.map((r) => r.result)).toEqual(['rejected', 'accepted']);
    expect(rows[0]!.error).toContain('Payer 1 is not supported');
  });

  it.each([
    ['a 500', answer(500, '{"message":"internal","statusCode":500}')],
    ['a gateway\'s 502 page', answer(502, '<html><title>502 Bad Gateway</title></html>', { 'content-type': 'text/html' })],
    ['a lost answer', new UnknownOutcomeError('POST /v1/eligibility timed out; the service may or may not have acted on it.')],
    ['an answer without an id', new MalformedResponseError('no id')],
  ])('%s: unknown, journalled as unknown, never "not-sent"; the next row is still sent', async (_name, err) => {
    const d = await deps(scripted([err, 5]).submit as SubmitDeps['submit']);
    const rows = [row(2), row(3)];
    const summary = await submitRows(rows, d);
    expect(summary.fatal).toBeUndefined();
    expect(rows.map((r) => r.result)).toEqual(['unknown', 'accepted']);
    expect(rows[0]!.error).toContain('may or may not have created the check');
    await d.journal.close();
    expect(events().filter((e) => e.key === 'P2').map((e) => e.type)).toEqual(['sending', 'unknown']);
    expect([...(await readJournal(journalPath)).unknown.keys()]).toEqual(['P2']);
  });

  it('a connection never made: not-sent, and the run stops (the service is unreachable)', async () => {
    const d = await deps(scripted([new NetworkError('refused the connection')]).submit as SubmitDeps['submit']);
    const rows = [row(2), row(3)];
    const summary = await submitRows(rows, d);
    expect(summary.fatal).toBeInstanceOf(NetworkError);
    expect(rows.map((r) => r.result)).toEqual(['not-sent', 'not-sent']);
  });
});

describe('bulk re-run: unknown rows', () => {
  async function firstRunLeavesUnknown(): Promise<void> {
    const d = await deps(scripted([answer(502, 'Bad gateway', { 'content-type': 'text/plain' })]).submit as SubmitDeps['submit']);
    await submitRows([row(2)], d);
    await d.journal.close();
  }

  it('without proof the row is not sent again; --resend-unknown sends it', async () => {
    await firstRunLeavesUnknown();
    const again = scripted([8]);
    const d = await deps(again.submit as SubmitDeps['submit'], {}, []);
    const rows = [row(2)];
    await resolveUnknown(rows, d);
    await submitRows(rows, d);
    expect(again.sent).toEqual([]);
    expect(rows[0]!.result).toBe('unknown');
    expect(rows[0]!.error).toContain('--resend-unknown');
    await d.journal.close();
    const resend = scripted([8]);
    const d2 = await deps(resend.submit as SubmitDeps['submit'], { resendUnknown: true });
    const rows2 = [row(2)];
    await submitRows(rows2, d2);
    expect(resend.sent).toEqual(['P2']);
    expect(rows2[0]).toMatchObject({ result: 'accepted', id: 8 });
  });

  it('a resent row refused again stays unknown for the next run (its first attempt is still unknown)', async () => {
    await firstRunLeavesUnknown();
    const d = await deps(scripted([answer(400, '{"message":"nope"}')]).submit as SubmitDeps['submit'], { resendUnknown: true });
    const rows = [row(2)];
    await submitRows(rows, d);
    expect(rows[0]!.result).toBe('rejected');
    await d.journal.close();
    expect([...(await readJournal(journalPath)).unknown.keys()]).toEqual(['P2']);
  });

  it('proof is a check for the same patient created since it was sent; records without those fields prove nothing', async () => {
    await firstRunLeavesUnknown();
    const sentAt = Date.parse(String(events()[0]!.at));
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[EligibilityCheck[], string]> = [
      [[{ id: 40, status: 'in-progress' } as EligibilityCheck], 'unknown'], // no customer_patient_id, no created_at
      [[{ id: 41, status: 'in-progress', customer_patient_id: 'P2' } as EligibilityCheck], 'unknown'], // no created_at
      [[{ id: 42, status: 'completed', customer_patient_id: 'P2', created_at: iso(sentAt - 3_600_000) } as EligibilityCheck], 'unknown'], // an older check
      [[{ id: 43, status: 'completed', customer_patient_id: 'OTHER', created_at: iso(sentAt + 1000) } as EligibilityCheck], 'unknown'],
      [[{ id: 44, status: 'completed', customer_patient_id: 'P2', created_at: iso(sentAt + 1000) } as EligibilityCheck], 'already-submitted'],
    ];
    for (const [records, expected] of cases) {
      const s = scripted([]);
      const d = await deps(s.submit as SubmitDeps['submit'], {}, records);
      const rows = [row(2)];
      await resolveUnknown(rows, d);
      await submitRows(rows, d);
      await d.journal.close();
      expect([records[0]!.id, rows[0]!.result]).toEqual([records[0]!.id, expected]);
      expect(s.sent).toEqual([]);
    }
    expect((await readJournal(journalPath)).accepted.get('P2')).toMatchObject({ id: 44 });
  });
});

describe('statuses', () => {
  it('queued and in-progress wait; completed ends; anything else ends with exit 1 naming it', () => {
    expect(['queued', 'in-progress', 'In_Progress', 'completed', 'failed', 'cancelled', undefined, 7].map(statusKind)).toEqual([
      'waiting', 'waiting', 'waiting', 'completed', 'unknown', 'unknown', 'unknown', 'unknown',
    ]);
    const failed = { id: 12, status: 'failed', created_at: '' } as unknown as EligibilityCheck;
    expect(verdictFor(failed, false)).toEqual({ code: 1, reason: 'check 12 has status "failed", which this version does not know; it is not waiting any more' });
    expect(verdictFor({ id: 3, created_at: '' } as unknown as EligibilityCheck, true).reason).toContain('check 3 has no status');
    expect(pollResultFor(failed)).toEqual({ done: true, value: failed });
    expect(pollResultFor({ status: 'queued' })).toEqual({ done: false, status: 'queued' });
  });

  it('watchAll stops polling an id whose status is unknown, and a refusal\'s Retry-After slows the next round', async () => {
    const clock = fakeClock();
    const reads = new Map<number, number>();
    const polls: number[] = [];
    const r = await watchAll<{ id: number; status: string }>({
      ids: [1, 2],
      clock,
      timeoutMs: 300_000,
      backoff: { ...DEFAULT_BACKOFF, maxMs: 1000 },
      poll: async (id) => {
        polls.push(id);
        const n = (reads.get(id) ?? 0) + 1;
        reads.set(id, n);
        if (id === 1) return pollResultFor({ id, status: n === 1 ? 'in-progress' : 'failed' });
        if (n === 1) return { refused: true, retryAfterMs: 7000 };
        return pollResultFor({ id, status: n < 3 ? 'queued' : 'completed' });
      },
    });
    expect(r.timedOut).toBe(false);
    expect(polls).toEqual([1, 2, 1, 2, 2]);
    expect(clock.sleeps[0]).toBe(7000); // the Retry-After, not the 1 s backoff
    expect(clock.sleeps.slice(1).every((ms) => ms <= 1000)).toBe(true);
    expect(r.states.get(1)).toEqual({ kind: 'done', value: { id: 1, status: 'failed' } });
    expect(r.states.get(2)).toMatchObject({ kind: 'done' });
  });
});
