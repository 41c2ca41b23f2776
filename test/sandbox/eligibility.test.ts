import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { client, org2, sandbox, validEligibility, waitFor, type Call } from './helpers.js';

describe('eligibility (instant completion)', () => {
  let sbx: RunningSandbox;
  let c: Call;
  beforeAll(async () => {
    sbx = await sandbox({ eligibilityDelayMs: 0 });
    c = client(sbx);
  });
  afterAll(() => sbx.close());

  it('accepts a check: 201 with id, status in-progress, created_at, customer_patient_id', async () => {
    const r = await c('POST', '/eligibility', validEligibility());
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['created_at', 'customer_patient_id', 'id', 'status']);
    expect(r.body.status).toBe('in-progress');
    expect(r.body.customer_patient_id).toBe('P-001');
    expect(Number.isInteger(r.body.id)).toBe(true);
    expect(Number.isNaN(Date.parse(r.body.created_at))).toBe(false);
  });

  it('GET /eligibility/{id} answers an array holding the completed, active check', async () => {
    const { body: sub } = await c('POST', '/eligibility', validEligibility('W99887763'));
    const r = await c('GET', `/eligibility/${sub.id}`);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    const check = r.body[0];
    expect(check).toMatchObject({ id: sub.id, status: 'completed', outcome: 'success', customer_patient_id: 'P-001' });
    expect(check.coverage).toMatchObject({
      is_active_today: true,
      plan_name: 'UnitedHealthcare PPO Plan',
      payer_name: 'UnitedHealthcare',
      member_id: 'W99887763',
      group_number: 'GRP-W9988',
    });
    expect(check.coverage.checked_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const deductible = check.coverage.patient_costs[0];
    expect(deductible).toEqual({
      type: 'deductible',
      network: 'in_network',
      description: 'Annual deductible',
      amount: '1250.00', // 500 + 250 x last digit 3
      coverage_level: 'individual',
      time_period: 'plan_year',
    });
  });

  it('member id ending in 0 gives inactive coverage; starting with NS gives not-supported', async () => {
    const inactive = await c('POST', '/eligibility', validEligibility('ABC1230'));
    const ns = await c('POST', '/eligibility', validEligibility('NS4455'));
    const [a] = (await c('GET', `/eligibility/${inactive.body.id}`)).body;
    const [b] = (await c('GET', `/eligibility/${ns.body.id}`)).body;
    expect(a.outcome).toBe('success');
    expect(a.coverage.is_active_today).toBe(false);
    expect(a.coverage.patient_costs).toEqual([]);
    expect(b.outcome).toBe('not-supported');
    expect(b.coverage).toBeUndefined();
  });

  it('accepts a subsidiary payer id and names the subsidiary as payer', async () => {
    const r = await c('POST', '/eligibility', { ...validEligibility('Z5'), insurance: { payer_id: '39026' } });
    expect(r.status).toBe(201);
    const [check] = (await c('GET', `/eligibility/${r.body.id}`)).body;
    expect(check.coverage.payer_name).toBe('UMR');
    expect(check.coverage.plan_name).toBe('UnitedHealthcare HMO Plan');
  });

  it('rejects an unsupported payer with 400 listing the supported payers', async () => {
    const r = await c('POST', '/eligibility', { ...validEligibility(), insurance: { payer_id: '00000' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'Bad Request', statusCode: 400, message: 'Payer 00000 is not supported' });
    expect(r.body.supported_payers).toHaveLength(8);
    expect(r.body.supported_payers[0]).toMatchObject({ payer_id: '87726', name: 'UnitedHealthcare' });
    expect(r.body.supported_payers.map((p: { name: string }) => p.name)).toEqual([
      'UnitedHealthcare', 'Aetna', 'Cigna', 'Oscar Health', 'Oxford', 'Humana', 'Medica', 'Kaiser Permanente',
    ]);
    for (const p of r.body.supported_payers) expect(Array.isArray(p.subsidiaries)).toBe(true);
  });

  it.each([
    ['missing npi', (b: any) => delete b.provider.npi, /provider\.npi is required/, 'provider.npi'],
    ['npi not 10 digits', (b: any) => (b.provider.npi = '12345'), /provider\.npi must be exactly 10 digits/, 'provider.npi'],
    ['impossible date of birth', (b: any) => (b.patient.date_of_birth = '1980-02-30'), /patient\.date_of_birth must be a real date/, 'patient.date_of_birth'],
    ['date of birth in the future', (b: any) => (b.patient.date_of_birth = '2999-01-01'), /must not be in the future/, 'patient.date_of_birth'],
    ['member id of wrong type', (b: any) => (b.patient.member_id = 12345), /patient\.member_id must be string/, 'patient.member_id'],
    ['empty first name', (b: any) => (b.patient.first_name = ''), /patient\.first_name must not be empty/, 'patient.first_name'],
    ['missing insurance', (b: any) => delete b.insurance, /insurance is required/, 'insurance'],
    ['webhook_url not a URL', (b: any) => (b.webhook_url = 'not a url'), /webhook_url must be an http\(s\) URL/, 'webhook_url'],
  ])('400 for %s, naming the field', async (_name, mutate, message, field) => {
    const body = validEligibility();
    mutate(body);
    const r = await c('POST', '/eligibility', body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'Bad Request', statusCode: 400, field });
    expect(r.body.message).toMatch(message);
  });

  it('400 for malformed JSON and for no body; 413 for a body over 1 MiB', async () => {
    const bad = await c('POST', '/eligibility', '{"patient": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'Bad Request', statusCode: 400 });
    expect(bad.body.message).toMatch(/not valid JSON/);
    const none = await c('POST', '/eligibility', '');
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/request body must be object/);
    const big = await c('POST', '/eligibility', { ...validEligibility(), padding: 'x'.repeat(1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ error: 'Payload Too Large', statusCode: 413 });
  });

  it('lists checks newest first, filtered by customer_patient_id, status and limit', async () => {
    const mine = await c('POST', '/eligibility', validEligibility('L1', { patient: { ...validEligibility().patient, member_id: 'L1', customer_patient_id: 'LIST-1' } }));
    await c('POST', '/eligibility', validEligibility('L2', { patient: { ...validEligibility().patient, member_id: 'L2', customer_patient_id: 'LIST-1' } }));
    const filtered = await c('GET', '/eligibility?customer_patient_id=LIST-1');
    expect(filtered.status).toBe(200);
    expect(filtered.body.map((x: { id: number }) => x.id)).toEqual([mine.body.id + 1, mine.body.id]);
    expect((await c('GET', '/eligibility?limit=1')).body).toHaveLength(1);
    const completed = await c('GET', '/eligibility?status=completed');
    expect(completed.body.length).toBeGreaterThan(2);
    expect((await c('GET', '/eligibility?status=queued')).body).toEqual([]);
    expect((await c('GET', '/eligibility?customer_patient_id=nobody')).body).toEqual([]);
  });

  it('400 for a bad status or a limit outside 1..1000', async () => {
    for (const q of ['status=done', 'limit=0', 'limit=1001', 'limit=abc']) {
      const r = await c('GET', `/eligibility?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.message, q).toMatch(/query parameter (status|limit)/);
    }
  });

  it('404 for an unknown id, 400 for a non-integer id, and 404 for another organisation', async () => {
    const r = await c('GET', '/eligibility/999999');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'Not Found', statusCode: 404 });
    expect(r.body.message).toMatch(/999999/);
    expect((await c('GET', '/eligibility/abc')).status).toBe(400);
    const mine = await c('POST', '/eligibility', validEligibility());
    const other = await org2(sbx)('GET', `/eligibility/${mine.body.id}`);
    expect(other.status).toBe(404);
    expect((await org2(sbx)('GET', '/eligibility')).body).toEqual([]);
  });
});

// Each test has its own sandbox and waits on real time: side by side.
describe.concurrent('eligibility (delayed, queued)', () => {
  it('goes in-progress, then completed after the delay divided by speed', async () => {
    const sbx = await sandbox({ eligibilityDelayMs: 20_000, speed: 20 }); // 1 s
    try {
      const c = client(sbx);
      const r = await c('POST', '/eligibility', validEligibility());
      const [first] = (await c('GET', `/eligibility/${r.body.id}`)).body;
      expect(first.status).toBe('in-progress');
      expect(first.coverage).toBeUndefined();
      const done = await waitFor(async () => {
        const [x] = (await c('GET', `/eligibility/${r.body.id}`)).body;
        return x.status === 'completed' ? x : undefined;
      });
      expect(done.outcome).toBe('success');
    } finally {
      await sbx.close();
    }
  });

  it('queues checks beyond 20 in progress per organisation and completes them all', async () => {
    // Long enough for all 22 submissions to land before the first completes, even on a busy machine.
    const sbx = await sandbox({ eligibilityDelayMs: 1500 });
    try {
      const c = client(sbx);
      const answers = [];
      for (let i = 0; i < 22; i++) answers.push((await c('POST', '/eligibility', validEligibility(`Q${i}1`))).body);
      expect(answers.slice(0, 20).every((a) => a.status === 'in-progress')).toBe(true);
      expect(answers.slice(20).map((a) => a.status)).toEqual(['queued', 'queued']);
      // Another organisation is not held up by this one.
      expect((await org2(sbx)('POST', '/eligibility', validEligibility())).body.status).toBe('in-progress');
      await waitFor(async () => (await c('GET', '/eligibility?status=completed')).body.length === 22, 15_000, 100);
    } finally {
      await sbx.close();
    }
  });
});
