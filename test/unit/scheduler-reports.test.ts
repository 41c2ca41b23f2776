// Pure parts around the scheduler's reports: the phone-number rule of simulated calls
// (src/sandbox/outreachRules.ts) and how `webhooks listen` recognises and summarises deliveries
// (src/webhooks/classify.ts).
import { describe, expect, it } from 'vitest';
import { outcomeDescription, planCall, scenarioFor } from '../../src/sandbox/outreachRules.js';
import { checkAuthorization, classify, shortDuration, summarise } from '../../src/webhooks/classify.js';

const facts = (phone: string, sequenceType = 'appointment_reminder') => ({
  phone,
  firstName: 'Rosa',
  sequenceType,
  firstMessage: 'Hi, this is Ava.',
  voicemailMessage: 'Please call us back.',
  inputs: { appointmentDate: '2031-01-15' },
});

describe('simulated calls', () => {
  it('the last digit (and a final 99) decides the scenario', () => {
    expect(['+14155550100', '+14155550104', '+14155550105', '+14155550106', '+14155550107', '+14155550108', '+14155550109', '+14155550199', '+14155550189'].map(scenarioFor)).toEqual([
      'confirmed', 'confirmed', 'escalated', 'declined', 'callback', 'dropped', 'voicemail', 'opt-out', 'voicemail',
    ]);
  });

  it('plans are deterministic and follow the documented table', () => {
    expect(planCall(facts('+14155550123'))).toEqual(planCall(facts('+14155550123')));
    const ok = planCall(facts('+14155550123'));
    expect(ok).toMatchObject({ outcome: 'appointment-confirmed', failure_reason: null, reached: true, endsSequence: { status: 'completed', ended_reason: 'contact-reached' }, talkMs: 40_000 + (123 % 80) * 1000, forwardMs: 0 });
    expect(ok.analysis).toMatchObject({ repetition_count: 123 % 3, interruption_count: (123 >> 2) % 4 });
    expect(ok.transcript).toContain('2031-01-15');
    expect(planCall(facts('+14155550123', 'follow_up')).outcome).toBe('visit-follow-up-completed');
    expect(planCall(facts('+14155550125'))).toMatchObject({ outcome: 'escalated', failure_reason: 'escalated', forwardMs: 15_000, ended_reason: 'assistant-forwarded-call' });
    expect(planCall(facts('+14155550126')).endsSequence).toEqual({ status: 'failed', ended_reason: 'patient-declined' });
    expect(planCall(facts('+14155550127'))).toMatchObject({ failure_reason: 'requested-callback', reached: true, endsSequence: null });
    expect(planCall(facts('+14155550128'))).toMatchObject({ failure_reason: 'customer-dropped', reached: false, endsSequence: null });
    const vm = planCall(facts('+14155550129'));
    expect(vm).toMatchObject({ outcome: 'voicemail', failure_reason: 'assistant-ended', ended_reason: 'voicemail', reached: false, ringMs: 20_000 });
    expect(vm.transcript).toContain('Please call us back.');
    expect(planCall(facts('+14155550199'))).toMatchObject({ failure_reason: 'opt-out', endsSequence: { status: 'failed', ended_reason: 'patient-opted-out' } });
  });

  it('outcome descriptions carry no patient data', () => {
    expect(outcomeDescription('completed', 'contact-reached', 'appointment-confirmed', 3)).toBe('Patient reached by phone: appointment-confirmed.');
    expect(outcomeDescription('failed', 'contact-not-reached', 'not-reached', 3)).toBe('All 3 steps ran; the patient was not reached by phone.');
  });
});

describe('webhook deliveries', () => {
  const check = { id: 5, status: 'completed', outcome: 'success', customer_patient_id: 'P-1', coverage: { is_active_today: true, member_id: 'W123456783', payer_name: 'UMR' } };
  const call = { type: 'end-of-call-report', sequence_id: 3, step: 1, call: { id: 9, call_status: 'ended', outcome: 'voicemail', failure_reason: 'assistant-ended', duration_ms: 25_000, assistant_id: 2, destination_number: '+14155550129', transcript: 'AI: Am I speaking with Rosa?' } };
  const seq = { id: 3, status: 'failed', outcome_description: 'All 3 steps ran.', last_updated: '2030-01-01T00:00:00Z', outreach: [{ type: 'call', step: 1, analysis: { outcome: 'voicemail' } }, { type: 'sms', step: 2 }] };

  it('recognises each kind by shape', () => {
    expect(classify(check)).toBe('eligibility');
    expect(classify([check])).toBe('eligibility');
    expect(classify({ id: 6, status: 'completed', outcome: 'not-supported' })).toBe('eligibility');
    expect(classify(call)).toBe('end-of-call');
    expect(classify({ message: { type: 'end-of-call-report', call: { id: 1 } } })).toBe('end-of-call');
    expect(classify(seq)).toBe('end-of-sequence');
    expect(classify({ id: 3, status: 'completed', outreach: [] })).toBe('end-of-sequence');
    expect(classify({ hello: 'world' })).toBe('unrecognised');
    expect(classify([1, 2])).toBe('unrecognised');
    expect(classify({ id: 1, status: 'completed', steps: [] })).toBe('unrecognised');
  });

  it('summaries hold ids, statuses, outcomes and durations, never names, numbers or member ids', () => {
    // No customer_patient_id or payer either (issue 11): ids of checks, calls and sequences only.
    expect(summarise('eligibility', check)).toBe('eligibility      check 5  completed  success  active');
    expect(summarise('end-of-call', call)).toBe('end-of-call      call 9  ended  voicemail  failure: assistant-ended  25s  sequence 3  step 1');
    expect(summarise('end-of-sequence', seq)).toBe('end-of-sequence  sequence 3  failed  outreach call:voicemail, sms');
    expect(summarise('unrecognised', {})).toBe('unrecognised delivery');
    const all = [summarise('eligibility', check), summarise('end-of-call', call)].join(' ');
    for (const pii of ['W123456783', '+14155550129', 'Rosa', 'P-1', 'UMR']) expect(all).not.toContain(pii);
    expect(shortDuration(92_000)).toBe('1m32s');
    expect(shortDuration('x')).toBeUndefined();
  });

  it('checks the bearer secret', () => {
    expect(checkAuthorization(undefined, undefined)).toBe('not-checked');
    expect(checkAuthorization('Bearer x', undefined)).toBe('not-checked');
    expect(checkAuthorization(undefined, 's3cret')).toBe('missing');
    expect(checkAuthorization('  ', 's3cret')).toBe('missing');
    expect(checkAuthorization('Bearer s3cret', 's3cret')).toBe('ok');
    expect(checkAuthorization('bearer   s3cret ', 's3cret')).toBe('ok');
    expect(checkAuthorization('Bearer s3cre', 's3cret')).toBe('mismatch');
    expect(checkAuthorization('Bearer s3creT', 's3cret')).toBe('mismatch');
    expect(checkAuthorization('s3cret', 's3cret')).toBe('mismatch');
  });
});
