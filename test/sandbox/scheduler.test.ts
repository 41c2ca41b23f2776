// The sandbox's outreach scheduler over HTTP, with an injected clock (no real waiting for hours).
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { client, Receiver, sandbox, sleep, waitFor } from './helpers.js';

const open: (RunningSandbox | Receiver)[] = [];
const track = <T extends RunningSandbox | Receiver>(x: T) => (open.push(x), x);
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

/** A clock that starts at `iso` and runs at real speed. */
const clockFrom = (iso: string) => {
  const offset = Date.parse(iso) - Date.now();
  return () => new Date(Date.now() + offset);
};

const row = (phone: string, extra: Record<string, unknown> = {}) => ({
  phoneNumber: phone,
  firstName: 'Pat',
  lastName: 'Example',
  appointmentDate: '2030-06-20',
  ...extra,
});

const TUESDAY_10_LA = '2030-06-11T17:00:00.000Z'; // Tuesday 10:00 PDT
const A_MINUTE_BEFORE = '2030-06-11T16:59:00.000Z'; // the clock starts here, so 10:00 is still ahead

async function finished(c: ReturnType<typeof client>, ids: number[], timeoutMs = 20_000) {
  return (await waitFor(async () => {
    const seqs = await Promise.all(ids.map(async (id) => (await c('GET', `/sequence-manager/sequences/${id}?includeMetrics=true`)).body));
    return seqs.every((s) => s.status === 'completed' || s.status === 'failed') ? seqs : undefined;
  }, timeoutMs, 25)) as any[];
}

describe('outreach scheduler', () => {
  it('runs each scenario of the phone-number rule to its documented end', async () => {
    const sbx = track(await sandbox({ scheduler: true, speed: 1_000_000, schedulerTickMs: 5, now: clockFrom(A_MINUTE_BEFORE) }));
    const c = client(sbx);
    const phones = ['+14155552010', '+14155552015', '+14155552016', '+14155552017', '+14155552018', '+14155552019', '+14155552099'];
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: phones.map((p) => row(p)), next_activity_date: TUESDAY_10_LA });
    expect(r.body.created_count).toBe(7);
    const ids: number[] = r.body.created.map((x: { sequence_id: number }) => x.sequence_id);
    const seqs = await finished(c, ids);
    const by = (suffix: string) => seqs[phones.findIndex((p) => p.endsWith(suffix))]!;
    const summary = (s: any) => [s.status, s.ended_reason, s.outcome, s.was_contact_reached, s.steps.map((x: any) => x.status).join(','), s.outreach.map((o: any) => o.type).join(',')];

    expect(summary(by('10'))).toEqual(['completed', 'contact-reached', 'appointment-confirmed', true, 'completed,skipped,skipped', 'call']);
    expect(summary(by('15'))).toEqual(['completed', 'transferred-to-staff', 'escalated', true, 'completed,skipped,skipped', 'call']);
    expect(summary(by('16'))).toEqual(['failed', 'patient-declined', 'declined', true, 'completed,skipped,skipped', 'call']);
    expect(summary(by('17'))).toEqual(['completed', 'all-steps-completed', 'callback-requested', true, 'completed,completed,completed', 'call,sms,call']);
    expect(summary(by('18'))).toEqual(['failed', 'contact-not-reached', 'not-reached', false, 'failed,completed,failed', 'call,sms,call']);
    expect(summary(by('19'))).toEqual(['failed', 'contact-not-reached', 'not-reached', false, 'failed,completed,failed', 'call,sms,call']);
    expect(summary(by('99'))).toEqual(['failed', 'patient-opted-out', 'opted-out', true, 'completed,skipped,skipped', 'call']);
    for (const s of seqs) {
      expect(s.next_activity).toBeNull();
      expect(s.claimed_at).not.toBeNull();
    }

    // Step times: call Tue 10:00 PDT, sms +4 h (14:00), second call +24 h after the sms (Wed 14:00 PDT).
    const slow = by('18');
    expect(slow.steps.map((x: any) => x.scheduled_at)).toEqual(['2030-06-11T17:00:00.000Z', '2030-06-11T21:00:00.000Z', '2030-06-12T21:00:00.000Z']);
    expect(slow.current_step).toBe(3);

    // The call records: ended, with the documented results.
    const call = (await c('GET', `/call/${by('16').outreach[0].call_record_id}`)).body;
    expect(call).toMatchObject({ call_status: 'ended', outcome: 'declined', failure_reason: 'declined', ended_reason: 'customer-ended-call', destination_number: '+14155552016', source_number: '+14155550100', assistant_id: 1, call_type: 'outboundPhoneCall' });
    expect(call.transcript).toContain('AI: ');
    expect(call.analysis).toMatchObject({ repetition_count: expect.any(Number), interruption_count: expect.any(Number), custom: expect.any(Object) });
    expect(call.duration_ms).toBeGreaterThan(0);
    expect(Date.parse(call.ended_at) - Date.parse(call.started_at)).toBe(call.duration_ms);
    const ok = (await c('GET', `/call/${by('10').outreach[0].call_record_id}`)).body;
    expect(ok.failure_reason).toBeNull();
    const vm = (await c('GET', `/call/${by('19').outreach[0].call_record_id}`)).body;
    expect(vm).toMatchObject({ outcome: 'voicemail', failure_reason: 'assistant-ended', ended_reason: 'voicemail' });
    expect(by('17').outreach[1]).toMatchObject({ type: 'sms', step: 2, messaging_encounter_id: expect.any(Number) });

    // Metrics show the same outreach.
    const metrics = (await c('GET', '/sequence-manager/sequences/metrics')).body.data;
    const m = metrics.find((x: any) => x.id === by('17').id);
    expect(m.outreach.map((o: any) => o.type)).toEqual(['call', 'sms', 'call']);
  });

  it('moves an activity due on a weekend to Monday at the opening, in the schedule\'s time zone', async () => {
    // Saturday 2030-06-15 12:00 PDT; the definition's schedule is 09:00-17:00 Mon-Fri, Los Angeles.
    const sbx = track(await sandbox({ scheduler: true, speed: 10_000_000, schedulerTickMs: 5, now: clockFrom('2030-06-15T19:00:00.000Z') }));
    const c = client(sbx);
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 3, rows: [{ phoneNumber: '+14155553011', firstName: 'A', lastName: 'B' }] });
    const id = r.body.created[0].sequence_id;
    const [s] = await finished(c, [id]);
    expect(s.steps[0].scheduled_at).toBe('2030-06-17T16:00:00.000Z'); // Monday 09:00 PDT
    expect(s).toMatchObject({ status: 'completed', outcome: 'completed', current_step: 1 });
    const call = (await c('GET', `/call/${s.outreach[0].call_record_id}`)).body;
    expect(call.created_at).toBe('2030-06-17T16:00:00.000Z');
  });

  it('moves a call through queued → ringing → in-progress → ended as the clock advances', async () => {
    let now = Date.parse(TUESDAY_10_LA);
    const sbx = track(await sandbox({ scheduler: true, speed: 1, schedulerTickMs: 5, now: () => new Date(now) }));
    const c = client(sbx);
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 2, rows: [{ phoneNumber: '+14155554012', firstName: 'A', lastName: 'B', visitDate: '2030-06-01' }], next_activity_date: TUESDAY_10_LA });
    const id = r.body.created[0].sequence_id;
    const seq = () => c('GET', `/sequence-manager/sequences/${id}`).then((x) => x.body);
    const latestCall = async () => (await c('GET', '/call?limit=1')).body[0];
    const s1 = await waitFor(async () => ((await seq()).status === 'in-progress' ? seq() : undefined));
    expect(s1.current_step).toBe(1);
    expect(s1.steps[0].status).toBe('in-progress');
    expect((await latestCall()).call_status).toBe('queued');
    const seen = ['queued'];
    for (let i = 0; i < 400 && seen.at(-1) !== 'ended'; i++) {
      now += 1000;
      await sleep(15);
      const st = (await latestCall()).call_status;
      if (st !== seen.at(-1)) seen.push(st);
    }
    expect(seen).toEqual(['queued', 'ringing', 'in-progress', 'ended']);
    const done = await waitFor(async () => ((await seq()).status === 'completed' ? seq() : undefined));
    expect(done).toMatchObject({ outcome: 'visit-follow-up-completed', was_contact_reached: true, ended_reason: 'contact-reached' });
    expect(done.steps.map((x: any) => x.status)).toEqual(['completed', 'skipped']);
  });

  it('POSTs end-of-call reports to the assistant (with its secret) and end-of-sequence reports to the organisation URL', async () => {
    const rx = track(new Receiver());
    const url = await rx.listen();
    const sbx = track(
      await sandbox({ scheduler: true, speed: 1_000_000, schedulerTickMs: 5, now: clockFrom(TUESDAY_10_LA), sequenceWebhookUrl: `${url}/sequences`, sequenceWebhookSecret: 'seq-secret' }),
    );
    const c = client(sbx);
    expect((await c('PATCH', '/assistant/1', { webhook_url: `${url}/calls`, webhook_secret: 'call-secret' })).status).toBe(200);
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: [row('+14155555010'), row('+14155555018')], next_activity_date: TUESDAY_10_LA });
    const ids: number[] = r.body.created.map((x: { sequence_id: number }) => x.sequence_id);
    await finished(c, ids);
    await waitFor(() => rx.deliveries.length === 5); // 1 + 2 calls, 2 sequence reports
    const calls = rx.deliveries.filter((d) => d.body.type === 'end-of-call-report');
    const ends = rx.deliveries.filter((d) => d.body.outcome_description !== undefined);
    expect(calls).toHaveLength(3);
    expect(ends).toHaveLength(2);
    for (const d of calls) {
      expect(d.headers.authorization).toBe('Bearer call-secret');
      expect(d.headers['x-outreach-event']).toBe('call.ended');
      expect(d.body.call).toMatchObject({ call_status: 'ended', id: expect.any(Number) });
      expect(ids).toContain(d.body.sequence_id);
    }
    for (const d of ends) {
      expect(d.headers.authorization).toBe('Bearer seq-secret');
      expect(Object.keys(d.body).sort()).toEqual(['id', 'last_updated', 'outcome_description', 'outreach', 'status']);
    }
    const reached = ends.find((d) => d.body.id === ids[0])!.body;
    expect(reached).toMatchObject({ status: 'completed', outcome_description: 'Patient reached by phone: appointment-confirmed.' });
    expect(reached.outreach).toHaveLength(1);
    const notReached = ends.find((d) => d.body.id === ids[1])!.body;
    expect(notReached.status).toBe('failed');
    expect(notReached.outreach.map((o: any) => o.type)).toEqual(['call', 'sms', 'call']);
  });

  it('leaves seeded history and created sequences alone when the scheduler is off (the library default)', async () => {
    const sbx = track(await sandbox({ speed: 1_000_000 }));
    const c = client(sbx);
    const r = await c('POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows: [row('+14155556010')] });
    await sleep(200);
    const s = (await c('GET', `/sequence-manager/sequences/${r.body.created[0].sequence_id}`)).body;
    expect(s).toMatchObject({ status: 'queued', current_step: 0 });
  });
});
