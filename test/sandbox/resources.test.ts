import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { client, org2, sandbox, type Call } from './helpers.js';

let sbx: RunningSandbox;
let c: Call;
beforeAll(async () => {
  sbx = await sandbox();
  c = client(sbx);
});
afterAll(() => sbx.close());

describe('sequence definitions', () => {
  it('lists id, name and inputs_definition; org 1 appointment reminder is id 1', async () => {
    const r = await c('GET', '/sequence-manager/sequence-definitions');
    expect(r.status).toBe(200);
    expect(r.body.map((d: { id: number }) => d.id)).toEqual([1, 2, 3]);
    expect(Object.keys(r.body[0]).sort()).toEqual(['id', 'inputs_definition', 'name']);
    expect(r.body[0].name).toBe('Appointment reminder');
    expect(r.body[0].inputs_definition[0]).toEqual({ id: 'appointmentDate', name: 'Appointment date', type: 'date', required: true });
    const other = await org2(sbx)('GET', '/sequence-manager/sequence-definitions');
    expect(other.body.map((d: { id: number }) => d.id)).toEqual([4, 5, 6]);
  });

  it('reads one definition; 404 {error} when unknown or another organisation\'s', async () => {
    const r = await c('GET', '/sequence-manager/sequence-definitions/2');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 2, name: 'Post-visit follow-up', organization_id: 1 });
    const missing = await c('GET', '/sequence-manager/sequence-definitions/999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Sequence definition 999 not found' });
    expect((await org2(sbx)('GET', '/sequence-manager/sequence-definitions/1')).status).toBe(404);
  });

  it('PUT answers the full record', async () => {
    const r = await c('PUT', '/sequence-manager/sequence-definitions/3', {
      name: 'Wellness outreach v2',
      description: 'Now with a text first',
      steps: [
        { order: 1, type: 'sms', config: {} },
        { order: 2, type: 'voice', config: { delay_hours: 24, voice_assistant_id: 2 } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: 3,
      name: 'Wellness outreach v2',
      status: 'active',
      organization_id: 1,
      is_archived: false,
      allow_repeat_contact: true,
      ehr_action: 'has-ehr-file',
      voice_assistant_id: 1,
      outreach_schedule: { timezone: 'America/Los_Angeles', business_hours: { start: '09:00', end: '17:00' } },
    });
    expect(r.body.outreach_schedule.days_of_week).toContain('monday');
    expect(r.body.steps_definition).toEqual([
      { id: 'step-1', type: 'sms', order: 1, delay_hours: 0, voice_assistant_id: null, messaging_assistant_id: null, inputs: [] },
      { id: 'step-2', type: 'voice', order: 2, delay_hours: 24, voice_assistant_id: 2, messaging_assistant_id: null, inputs: [] },
    ]);
    expect(typeof r.body.created_at).toBe('string');
  });

  it('PUT 400 {error} for a bad step and for another organisation\'s assistant; 404 when unknown', async () => {
    const bad = await c('PUT', '/sequence-manager/sequence-definitions/1', { steps: [{ order: 0, type: 'voice' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/steps\[0\]\.order must be >= 1/);
    const foreign = await c('PUT', '/sequence-manager/sequence-definitions/1', { steps: [{ order: 1, type: 'voice', config: { voice_assistant_id: 3 } }] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatch(/assistant 3 not found/);
    expect((await c('PUT', '/sequence-manager/sequence-definitions/999', { name: 'x' })).status).toBe(404);
  });
});

describe('assistants', () => {
  it('creates an assistant (201) and never returns the webhook secret', async () => {
    const r = await c('POST', '/assistant', {
      name: 'Billing helper',
      model: { provider: 'openai', model: 'gpt-4o' },
      voice: { provider: '11labs', voiceId: 'x' },
      first_message: 'Hello',
      max_duration_seconds: 300,
      voicemail_message: 'Call us',
      webhook_url: 'https://example.test/eoc',
      analysis_plan: { summary: true },
      webhook_secret: 'assistant-secret',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'Billing helper', organization_id: 1, is_webhook_secret_set: true, max_duration_seconds: 300, model: { model: 'gpt-4o' } });
    expect(r.text).not.toContain('assistant-secret');
    expect(r.body.webhook_secret).toBeUndefined();
  });

  it('PATCH changes given fields only; null clears the secret', async () => {
    const { body: a } = await c('POST', '/assistant', { name: 'Patchable', first_message: 'Hi', webhook_secret: 'x1' });
    const r = await c('PATCH', `/assistant/${a.id}`, { first_message: 'Hello again', webhook_secret: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: a.id, name: 'Patchable', first_message: 'Hello again', is_webhook_secret_set: false });
    expect(Date.parse(r.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(a.updated_at));
  });

  it('errors are {error: <integer>, message}', async () => {
    const noName = await c('POST', '/assistant', { first_message: 'Hi' });
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ error: 400, message: expect.stringMatching(/name is required/) });
    const badModel = await c('POST', '/assistant', { name: 'x', model: 'gpt' });
    expect(badModel.body).toMatchObject({ error: 400, message: expect.stringMatching(/model must be object/) });
    const badDuration = await c('PATCH', '/assistant/1', { max_duration_seconds: 1.5 });
    expect(badDuration.body).toMatchObject({ error: 400, message: expect.stringMatching(/max_duration_seconds must be integer/) });
    const empty = await c('PATCH', '/assistant/1', {});
    expect(empty.status).toBe(400);
    const missing = await c('PATCH', '/assistant/9999', { name: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 404, message: 'Assistant 9999 not found' });
    expect((await org2(sbx)('PATCH', '/assistant/1', { name: 'stolen' })).body.error).toBe(404);
    const malformed = await c('POST', '/assistant', '{bad');
    expect(malformed.body.error).toBe(400);
  });
});

describe('calls', () => {
  it('lists 30 seeded calls newest first with the Call fields; default limit 100', async () => {
    const r = await c('GET', '/call');
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(30);
    const times = r.body.map((x: { created_at: string }) => x.created_at);
    expect(times).toEqual([...times].sort().reverse());
    const call = r.body[0];
    for (const k of ['id', 'assistant_id', 'started_at', 'ended_at', 'call_status', 'ended_reason', 'transcript', 'source_number', 'destination_number', 'call_type', 'duration_ms', 'analysis', 'summary', 'outcome']) {
      expect(call, k).toHaveProperty(k);
    }
    expect(call.analysis).toMatchObject({ repetition_count: expect.any(Number), interruption_count: expect.any(Number), custom: expect.any(Object) });
    const reasons = new Set(r.body.map((x: { failure_reason: string | null }) => x.failure_reason).filter(Boolean));
    expect([...reasons].sort()).toEqual(['assistant-ended', 'customer-dropped', 'declined', 'escalated', 'opt-out', 'requested-callback']);
  });

  it('filters by createdAtGe / createdAtLe and limit; 400 for invalid values', async () => {
    const all = (await c('GET', '/call')).body;
    const mid = all[10].created_at;
    const ge = (await c('GET', `/call?createdAtGe=${encodeURIComponent(mid)}`)).body;
    expect(ge.map((x: { id: number }) => x.id)).toEqual(all.slice(0, 11).map((x: { id: number }) => x.id));
    const le = (await c('GET', `/call?createdAtLe=${encodeURIComponent(mid)}&limit=5`)).body;
    expect(le.map((x: { id: number }) => x.id)).toEqual(all.slice(10, 15).map((x: { id: number }) => x.id));
    for (const q of ['createdAtGe=yesterday', 'createdAtLe=2024-13-01', 'limit=0', 'limit=1001']) {
      const bad = await c('GET', `/call?${q}`);
      expect(bad.status, q).toBe(400);
      expect(bad.body).toMatchObject({ error: 'Bad Request', statusCode: 400 });
    }
    const inverted = await c('GET', `/call?createdAtGe=${all[0].created_at}&createdAtLe=${all[5].created_at}`);
    expect(inverted.status).toBe(400);
  });

  it('reads and deletes a call (204); another organisation gets 404', async () => {
    const [first] = (await c('GET', '/call?limit=1')).body;
    expect((await c('GET', `/call/${first.id}`)).body).toEqual(first);
    expect((await org2(sbx)('GET', `/call/${first.id}`)).status).toBe(404);
    expect((await org2(sbx)('DELETE', `/call/${first.id}`)).status).toBe(404);
    const del = await c('DELETE', `/call/${first.id}`, undefined, { 'content-type': 'application/json' });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const gone = await c('GET', `/call/${first.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: 'Not Found', statusCode: 404 });
    expect((await c('DELETE', `/call/${first.id}`)).status).toBe(404);
  });
});

describe('phone numbers', () => {
  it('lists the organisation\'s numbers, filtered by assistantId', async () => {
    const all = await c('GET', '/phone-number');
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(3);
    expect(all.body[0]).toEqual({ id: 1, number: '+14155550100', organization_id: 1, name: 'Main line', assistant_id: 1 });
    const byAssistant = await c('GET', '/phone-number?assistantId=2');
    expect(byAssistant.body.map((p: { number: string }) => p.number)).toEqual(['+14155550101']);
    expect((await org2(sbx)('GET', '/phone-number?assistantId=1')).body).toEqual([]);
    expect((await c('GET', '/phone-number?assistantId=x')).status).toBe(400);
  });
});

describe('tools', () => {
  it('PATCH updates async and merges the function; answers the Tool shape', async () => {
    const id = sbx.organizations[0]!.tool_ids[0]!;
    const r = await c('PATCH', `/tool/${id}`, { async: true, function: { description: 'Finds the next appointment' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ type: 'function', id, orgId: '1', async: true });
    expect(r.body.function).toMatchObject({ name: 'lookup_appointment', description: 'Finds the next appointment', strict: false });
    expect(typeof r.body.createdAt).toBe('string');
    expect(Date.parse(r.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(r.body.createdAt));
    const params = await c('PATCH', `/tool/${id}`, {
      function: { name: 'find_appointment', parameters: { type: 'object', properties: { phone: { type: 'string' } }, required: ['phone'] } },
    });
    expect(params.body.function).toMatchObject({ name: 'find_appointment', parameters: { required: ['phone'] } });
  });

  it('400 naming the field for a bad name, a required property not declared, wrong types', async () => {
    const id = sbx.organizations[0]!.tool_ids[1]!;
    const badName = await c('PATCH', `/tool/${id}`, { function: { name: '9lives' } });
    expect(badName.status).toBe(400);
    expect(badName.body).toMatchObject({ error: 'Bad Request', statusCode: 400, field: 'function.name' });
    const undeclared = await c('PATCH', `/tool/${id}`, { function: { parameters: { type: 'object', properties: { a: {} }, required: ['a', 'b'] } } });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.message).toMatch(/function\.parameters\.required\[1\] names "b"/);
    const notObject = await c('PATCH', `/tool/${id}`, { function: { parameters: { type: 'array', properties: {} } } });
    expect(notObject.body.message).toMatch(/function\.parameters\.type must be one of: object/);
    const badAsync = await c('PATCH', `/tool/${id}`, { async: 'yes' });
    expect(badAsync.body.message).toMatch(/async must be boolean/);
  });

  it('404 for an unknown tool or another organisation\'s', async () => {
    expect((await c('PATCH', '/tool/nope', { async: true })).status).toBe(404);
    const r = await org2(sbx)('PATCH', `/tool/${sbx.organizations[0]!.tool_ids[2]}`, { async: true });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'Not Found', statusCode: 404 });
  });
});
