import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { client, org2, sandbox, type Call } from './helpers.js';

const row = (i: number, extra: Record<string, unknown> = {}) => ({
  phoneNumber: `+1415555${String(1000 + i).padStart(4, '0')}`,
  firstName: `First${i}`,
  lastName: `Last${i}`,
  appointmentDate: '2030-05-17',
  ...extra,
});
const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => row(from + i));

describe('sequence batch', () => {
  let sbx: RunningSandbox;
  let c: Call;
  beforeAll(async () => {
    sbx = await sandbox();
    c = client(sbx);
  });
  afterAll(() => sbx.close());

  const count = async () => (await c('GET', '/sequence-manager/sequences?limit=1000')).body.data.length;

  it('validate_only checks every row and creates nothing', async () => {
    const before = await count();
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: rows(5), validate_only: true });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ valid: true, total_attempted: 5, valid_count: 5, created_count: 0, created: [], errors: [], warnings: [] });
    expect(await count()).toBe(before);
  });

  it('creates queued sequences with steps, inputs, phone and created_at from the definition', async () => {
    const next = '2030-05-16T15:00:00.000Z';
    const r = await c('POST', '/sequence-manager/sequences/batch', {
      sequence_definition_id: 1,
      rows: [row(1, { clinicName: 'North Clinic' }), row(2)],
      next_activity_date: next,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, total_attempted: 2, valid_count: 2, created_count: 2 });
    expect(r.body.created.map((x: { rowIndex: number }) => x.rowIndex)).toEqual([0, 1]);
    const id = r.body.created[0].sequence_id;
    const seq = (await c('GET', `/sequence-manager/sequences/${id}`)).body;
    expect(seq).toMatchObject({
      id,
      status: 'queued',
      type: 'appointment_reminder',
      sequence_definition_id: 1,
      organization_id: 1,
      is_test_mode: true,
      current_step: 0,
      next_activity: next,
      phone_number: '+14155551001',
      was_contact_reached: false,
      outcome: null,
    });
    expect(Number.isInteger(seq.patient_id)).toBe(true);
    expect(Date.parse(seq.created_at)).toBeLessThanOrEqual(Date.now());
    expect(seq.inputs).toEqual([
      { id: 'appointmentDate', value: '2030-05-17', name: 'Appointment date', type: 'date' },
      { id: 'clinicName', value: 'North Clinic', name: 'Clinic name', type: 'text' },
    ]);
    expect(seq.steps.map((s: { type: string }) => s.type)).toEqual(['voice', 'sms', 'voice']);
    expect(seq.steps[0]).toMatchObject({
      status: 'pending',
      scheduled_at: next,
      destination_number: '+14155551001',
      source_number: '+14155550100',
      voice_assistant_id: 1,
      post_actions: [],
    });
    expect(seq.steps[1].scheduled_at).toBe('2030-05-16T19:00:00.000Z'); // +4 h
    expect(seq.outreach).toBeUndefined();
  });

  it('reports errors per row with codes, creates only the valid rows', async () => {
    const r = await c('POST', '/sequence-manager/sequences/batch', {
      sequence_definition_id: 1,
      rows: [
        row(10),
        row(11, { phoneNumber: '4155550123' }),
        row(12, { appointmentDate: '2030-02-30' }),
        row(13, { firstName: '' }),
        { phoneNumber: '+14155559999', firstName: 'A', lastName: 'B' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: false, total_attempted: 5, valid_count: 1, created_count: 1 });
    expect(r.body.created.map((x: { rowIndex: number }) => x.rowIndex)).toEqual([0]);
    expect(r.body.errors.map((e: any) => [e.rowIndex, e.field, e.code])).toEqual([
      [1, 'phoneNumber', 'invalid_phone'],
      [2, 'appointmentDate', 'invalid_date'],
      [3, 'firstName', 'required'],
      [4, 'appointmentDate', 'required'],
    ]);
    for (const e of r.body.errors) expect(typeof e.message).toBe('string');
  });

  it('checks number and boolean inputs of a definition', async () => {
    const visit = { phoneNumber: '+14155550177', firstName: 'A', lastName: 'B', visitDate: '2030-01-02' };
    const r = await c('POST', '/sequence-manager/sequences/batch', {
      sequence_definition_id: 2,
      rows: [{ ...visit, needsLabWork: 'yes' }, { ...visit, phoneNumber: '+14155550178', needsLabWork: 'TRUE' }, { ...visit, phoneNumber: '+14155550179', needsLabWork: false }],
      validate_only: true,
    });
    expect(r.body.errors).toEqual([{ rowIndex: 0, field: 'needsLabWork', code: 'invalid_boolean', message: expect.any(String) }]);
    const num = await c('POST', '/sequence-manager/sequences/batch', {
      sequence_definition_id: 3,
      rows: [
        { phoneNumber: '+14155550180', firstName: 'A', lastName: 'B', copayAmount: '25.50' },
        { phoneNumber: '+14155550181', firstName: 'A', lastName: 'B', copayAmount: 'twenty' },
        { phoneNumber: '+14155550182', firstName: 'A', lastName: 'B', copayAmount: 30 },
      ],
      validate_only: true,
    });
    expect(num.body.errors.map((e: any) => [e.rowIndex, e.code])).toEqual([[1, 'invalid_number']]);
  });

  it('warnings (duplicate phone, unknown field) do not block creation', async () => {
    const r = await c('POST', '/sequence-manager/sequences/batch', {
      sequence_definition_id: 1,
      rows: [row(20), row(20, { favouriteColour: 'blue' })],
    });
    expect(r.body).toMatchObject({ valid: true, valid_count: 2, created_count: 2, errors: [] });
    expect(r.body.warnings.map((w: any) => [w.rowIndex, w.field, w.code])).toEqual([
      [1, 'phoneNumber', 'duplicate_phone'],
      [1, 'favouriteColour', 'unknown_field'],
    ]);
  });

  it('400 {error} for 101 rows, no rows, a wrong type or malformed JSON', async () => {
    const tooMany = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: rows(101) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/rows must have at most 100 items/);
    expect(tooMany.body.statusCode).toBeUndefined();
    const none = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: [] });
    expect(none.status).toBe(400);
    const wrongType = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: '1', rows: rows(1) });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatch(/sequence_definition_id must be integer/);
    const badFlag = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: rows(1), validate_only: 'yes' });
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error).toMatch(/validate_only must be boolean/);
    const badDate = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: rows(1), next_activity_date: 'tomorrow' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.error).toMatch(/next_activity_date/);
    const malformed = await c('POST', '/sequence-manager/sequences/batch', '{"rows": [');
    expect(malformed.status).toBe(400);
    expect(typeof malformed.body.error).toBe('string');
  });

  it('404 {error} for an unknown definition and for another organisation\'s definition', async () => {
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 9999, rows: rows(1) });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'Sequence definition 9999 not found' });
    const other = await org2(sbx)('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: rows(1) });
    expect(other.status).toBe(404);
  });

  it('concurrent batches lose no rows and do not interleave', async () => {
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, b) => c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: rows(100, 5000 + b * 100) })),
    );
    const ids: number[] = [];
    for (const a of answers) {
      expect(a.body.created_count).toBe(100);
      const mine = a.body.created.map((x: { sequence_id: number }) => x.sequence_id);
      // One batch's ids are consecutive: no other batch wrote in between.
      expect(mine[99] - mine[0]).toBe(99);
      ids.push(...mine);
    }
    expect(new Set(ids).size).toBe(800);
    expect(await count()).toBe(Math.min(1000, before + 800));
  });
});

describe('sequence reads and updates', () => {
  let sbx: RunningSandbox;
  let c: Call;
  let created: number[];
  beforeAll(async () => {
    sbx = await sandbox();
    c = client(sbx);
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 2, rows: [
      { phoneNumber: '+14155550190', firstName: 'A', lastName: 'B', visitDate: '2030-01-02' },
      { phoneNumber: '+14155550191', firstName: 'C', lastName: 'D', visitDate: '2030-01-03' },
    ] });
    created = r.body.created.map((x: { sequence_id: number }) => x.sequence_id);
  });
  afterAll(() => sbx.close());

  it('lists {success, data} newest first, with status, definition, phone and limit filters', async () => {
    const all = await c('GET', '/sequence-manager/sequences');
    expect(all.status).toBe(200);
    expect(all.body.success).toBe(true);
    const ids = all.body.data.map((s: { id: number }) => s.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(ids.slice(0, 2)).toEqual([created[1], created[0]]);
    const byDef = await c('GET', '/sequence-manager/sequences?sequence_definition_id=2&status=queued');
    expect(byDef.body.data.map((s: { id: number }) => s.id)).toEqual([created[1], created[0]]);
    const byPhone = await c('GET', '/sequence-manager/sequences?phone_number=%2B14155550191');
    expect(byPhone.body.data.map((s: { id: number }) => s.id)).toEqual([created[1]]);
    expect((await c('GET', '/sequence-manager/sequences?limit=1')).body.data).toHaveLength(1);
    const bad = await c('GET', '/sequence-manager/sequences?status=finished');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/query parameter status must be one of/);
  });

  it('reads one sequence bare; includeMetrics=true adds outreach', async () => {
    const seeded = (await c('GET', '/sequence-manager/sequences?status=completed')).body.data[0];
    const bare = await c('GET', `/sequence-manager/sequences/${seeded.id}`);
    expect(bare.body.success).toBeUndefined();
    expect(bare.body.outreach).toBeUndefined();
    const withMetrics = await c('GET', `/sequence-manager/sequences/${seeded.id}?includeMetrics=true`);
    expect(withMetrics.body.outreach[0]).toMatchObject({ type: 'call', step: 1 });
    expect(Number.isInteger(withMetrics.body.outreach[0].call_record_id)).toBe(true);
  });

  it('GET /metrics is not taken for an id and answers {data:[...]}', async () => {
    const r = await c('GET', '/sequence-manager/sequences/metrics');
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(['created_at', 'id', 'last_updated', 'outreach', 'status']);
    expect(r.body.data.map((m: { id: number }) => m.id)).toContain(created[0]);
  });

  it('404 {error} for an unknown id or another organisation\'s, 400 for a non-integer id', async () => {
    const r = await c('GET', '/sequence-manager/sequences/999999');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'Sequence 999999 not found' });
    expect((await org2(sbx)('GET', `/sequence-manager/sequences/${created[0]}`)).status).toBe(404);
    expect((await org2(sbx)('PUT', `/sequence-manager/sequences/${created[0]}`, { name: 'x' })).status).toBe(404);
    expect((await org2(sbx)('GET', '/sequence-manager/sequences?limit=1000')).body.data.map((s: { organization_id: number }) => s.organization_id)).not.toContain(1);
    const nonInt = await c('GET', '/sequence-manager/sequences/abc');
    expect(nonInt.status).toBe(400);
    expect(typeof nonInt.body.error).toBe('string');
  });

  it('PUT updates name, description and steps and answers {success, data}', async () => {
    const id = created[0]!;
    const r = await c('PUT', `/sequence-manager/sequences/${id}`, {
      name: 'Renamed',
      description: 'Updated by test',
      steps: [
        { order: 1, type: 'voice', config: { voicemail_message: 'Please call back' } },
        { order: 2, type: 'sms', config: {} },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toMatchObject({ id, name: 'Renamed', description: 'Updated by test' });
    expect(r.body.data.steps.map((s: any) => [s.order, s.type])).toEqual([[1, 'voice'], [2, 'sms']]);
    expect(r.body.data.steps[0]).toMatchObject({ voicemail_message: 'Please call back', destination_number: '+14155550190' });
    expect(Date.parse(r.body.data.last_updated)).toBeGreaterThanOrEqual(Date.parse(r.body.data.created_at));
  });

  it('PUT rejects bad steps with 400 {error} and a finished sequence with 409', async () => {
    const id = created[1]!;
    const badType = await c('PUT', `/sequence-manager/sequences/${id}`, { steps: [{ order: 1, type: 'fax' }] });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toMatch(/steps\[0\]\.type must be one of: voice, email, sms, task/);
    const dup = await c('PUT', `/sequence-manager/sequences/${id}`, { steps: [{ order: 1, type: 'voice' }, { order: 1, type: 'sms' }] });
    expect(dup.status).toBe(400);
    const badPhone = await c('PUT', `/sequence-manager/sequences/${id}`, { steps: [{ order: 1, type: 'voice', config: { source_number: '555' } }] });
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.error).toMatch(/source_number must be an E\.164/);
    const done = (await c('GET', '/sequence-manager/sequences?status=completed')).body.data[0];
    const finished = await c('PUT', `/sequence-manager/sequences/${done.id}`, { name: 'x' });
    expect(finished.status).toBe(409);
    expect(finished.body.error).toMatch(/completed/);
  });
});
