// Seed data for a fresh database: two organisations, each with assistants, phone numbers, three
// sequence definitions, three tools, ~30 calls and a few sequences. Everything is derived from the
// loop index (no randomness) and dated relative to the moment of seeding. Ids are stable: org 1's
// rows are inserted first, so org 1's appointment-reminder definition is id 1.
import { createHash } from 'node:crypto';
import type { Call, FailureReason, InputDefinition, OutreachItem, SequenceInput, StepDefinition } from '../api/types.js';
import { prep, type Db } from './db.js';
import type { Stores } from './stores.js';

/** Well-known sandbox API keys (they only ever open the local sandbox). */
export const SANDBOX_KEYS = {
  1: 'sbx_org1_5f2c8e1a9d4b7c03e6f1',
  2: 'sbx_org2_a81d4f6e2b9c0735d4a8',
} as const;

export const SEED_ORGS = [
  { id: 1, name: 'Sandbox Medical Group', area: '415', timezone: 'America/Los_Angeles' },
  { id: 2, name: 'Riverside Family Practice', area: '617', timezone: 'America/New_York' },
] as const;

/** Deterministic UUID-shaped tool ids. */
function toolId(orgId: number, name: string): string {
  const h = createHash('sha256').update(`outreach-sandbox-tool:${orgId}:${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

const input = (id: string, name: string, type: InputDefinition['type'], required: boolean): InputDefinition => ({ id, name, type, required });

const step = (order: number, type: StepDefinition['type'], delay: number, voice: number | null): StepDefinition => ({
  id: `step-${order}`,
  type,
  order,
  delay_hours: delay,
  voice_assistant_id: type === 'voice' ? voice : null,
  messaging_assistant_id: null,
  inputs: [],
});

const PATIENTS = [
  ['Maria', 'Lopez'], ['James', 'Chen'], ['Aisha', 'Patel'], ['Robert', 'Okafor'], ['Emily', 'Novak'],
  ['David', 'Kim'], ['Sofia', 'Rossi'], ['Michael', 'Brown'], ['Grace', 'Nguyen'], ['Daniel', 'Haddad'],
] as const;

interface Scenario {
  outcome: string;
  ended_reason: string;
  failure_reason: FailureReason | null;
  summary: string;
  patient: string;
  sentiment: 'positive' | 'neutral' | 'negative';
  confirmed: boolean;
  callback: boolean;
}

const SCENARIOS: Scenario[] = [
  { outcome: 'appointment-confirmed', ended_reason: 'customer-ended-call', failure_reason: null, summary: 'Patient confirmed the appointment.', patient: 'Yes, I will be there. Thank you.', sentiment: 'positive', confirmed: true, callback: false },
  { outcome: 'appointment-rescheduled', ended_reason: 'assistant-ended-call', failure_reason: null, summary: 'Patient asked to move the appointment; a new time was agreed.', patient: 'Could we make it a day later, in the afternoon?', sentiment: 'positive', confirmed: true, callback: false },
  { outcome: 'declined', ended_reason: 'customer-ended-call', failure_reason: 'declined', summary: 'Patient declined the appointment.', patient: 'No, I do not need it anymore.', sentiment: 'neutral', confirmed: false, callback: false },
  { outcome: 'callback-requested', ended_reason: 'customer-ended-call', failure_reason: 'requested-callback', summary: 'Patient was busy and asked for a call back tomorrow morning.', patient: 'I am driving, can you call me tomorrow morning?', sentiment: 'neutral', confirmed: false, callback: true },
  { outcome: 'voicemail', ended_reason: 'voicemail', failure_reason: null, summary: 'Reached voicemail; left the reminder message.', patient: '(voicemail greeting)', sentiment: 'neutral', confirmed: false, callback: false },
  { outcome: 'incomplete', ended_reason: 'customer-ended-call', failure_reason: 'customer-dropped', summary: 'Patient hung up during identity verification.', patient: 'Who is this? ...', sentiment: 'negative', confirmed: false, callback: false },
  { outcome: 'escalated', ended_reason: 'assistant-forwarded-call', failure_reason: 'escalated', summary: 'Patient had a billing question; transferred to the front desk.', patient: 'I have a question about my last bill.', sentiment: 'neutral', confirmed: false, callback: false },
  { outcome: 'appointment-confirmed', ended_reason: 'customer-ended-call', failure_reason: null, summary: 'Patient confirmed and asked about parking.', patient: 'Confirmed. Is there parking at the clinic?', sentiment: 'positive', confirmed: true, callback: false },
  { outcome: 'opted-out', ended_reason: 'customer-ended-call', failure_reason: 'opt-out', summary: 'Patient asked not to be called again.', patient: 'Please take me off your call list.', sentiment: 'negative', confirmed: false, callback: false },
  { outcome: 'no-response', ended_reason: 'silence-timed-out', failure_reason: 'assistant-ended', summary: 'No answer after the greeting; the assistant ended the call.', patient: '...', sentiment: 'neutral', confirmed: false, callback: false },
];

const CALLS_PER_ORG = 30;

export function isSeeded(db: Db): boolean {
  return (prep(db, 'SELECT COUNT(*) FROM organizations', true).get() as number) > 0;
}

/** Fills an empty database. Runs in one transaction. */
export function seed(db: Db, stores: Stores, at = new Date()): void {
  db.transaction(() => {
    const now = at.toISOString();
    const addOrg = prep(db, 'INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)');
    for (const o of SEED_ORGS) addOrg.run(o.id, o.name, now);
    for (const o of SEED_ORGS) seedOrg(stores, o, at);
  })();
}

function seedOrg(s: Stores, o: (typeof SEED_ORGS)[number], at: Date): void {
  const now = at.toISOString();
  const org = o.id;
  const reminder = s.assistants.create(
    org,
    {
      name: 'Appointment Reminder (Ava)',
      model: { provider: 'openai', model: 'gpt-4o-mini', temperature: 0.3 },
      voice: { provider: '11labs', voiceId: 'ava' },
      first_message: `Hi, this is Ava calling from ${o.name} about your upcoming appointment.`,
      max_duration_seconds: 600,
      voicemail_message: `Hello, this is ${o.name} calling about your upcoming appointment. Please call us back.`,
      analysis_plan: { summary: true, structured_data: ['appointment_confirmed', 'callback_requested'] },
    },
    now,
  );
  const followUp = s.assistants.create(
    org,
    {
      name: 'Follow-up Care (Ben)',
      model: { provider: 'openai', model: 'gpt-4o', temperature: 0.4 },
      voice: { provider: '11labs', voiceId: 'ben' },
      first_message: `Hello, this is Ben from ${o.name}, checking in after your recent visit.`,
      max_duration_seconds: 900,
      voicemail_message: `Hello, this is ${o.name} following up on your recent visit. Please call us back.`,
      analysis_plan: { summary: true, structured_data: ['symptoms_improving', 'needs_follow_up_visit'] },
    },
    now,
  );
  const main = `+1${o.area}5550100`;
  s.phoneNumbers.insert(org, main, 'Main line', reminder.id);
  s.phoneNumbers.insert(org, `+1${o.area}5550101`, 'Care team line', followUp.id);
  s.phoneNumbers.insert(org, `+1${o.area}5550102`, 'Front desk', null);

  const schedule = { timezone: o.timezone, business_hours: { start: '09:00', end: '17:00' }, days_of_week: WEEKDAYS };
  const common = { status: 'active' as const, outreach_schedule: schedule, ehr_action: 'any' as const, is_archived: false };
  const apptId = s.definitions.insert(
    org,
    {
      ...common,
      name: 'Appointment reminder',
      description: 'Calls the patient before an appointment, then texts, then calls again.',
      type: 'appointment_reminder',
      voice_assistant_id: reminder.id,
      allow_repeat_contact: false,
      inputs_definition: [
        input('appointmentDate', 'Appointment date', 'date', true),
        input('appointmentTime', 'Appointment time', 'text', false),
        input('clinicName', 'Clinic name', 'text', false),
        input('providerName', 'Provider name', 'text', false),
      ],
      steps_definition: [step(1, 'voice', 0, reminder.id), step(2, 'sms', 4, null), step(3, 'voice', 24, reminder.id)],
    },
    now,
  );
  const followId = s.definitions.insert(
    org,
    {
      ...common,
      name: 'Post-visit follow-up',
      description: 'Checks on the patient after a visit.',
      type: 'follow_up',
      voice_assistant_id: followUp.id,
      allow_repeat_contact: false,
      inputs_definition: [
        input('visitDate', 'Visit date', 'date', true),
        input('providerName', 'Provider name', 'text', false),
        input('needsLabWork', 'Needs lab work', 'boolean', false),
      ],
      steps_definition: [step(1, 'voice', 0, followUp.id), step(2, 'voice', 48, followUp.id)],
    },
    now,
  );
  s.definitions.insert(
    org,
    {
      ...common,
      name: 'Annual wellness outreach',
      description: 'Invites patients due for their annual wellness visit.',
      type: 'other',
      voice_assistant_id: reminder.id,
      allow_repeat_contact: true,
      ehr_action: 'has-ehr-file',
      inputs_definition: [input('lastVisitDate', 'Last visit date', 'date', false), input('copayAmount', 'Copay amount', 'number', false)],
      steps_definition: [step(1, 'voice', 0, reminder.id), step(2, 'email', 72, null)],
    },
    now,
  );

  s.tools.insert(org, toolId(org, 'lookup_appointment'), {
    name: 'lookup_appointment',
    strict: false,
    description: "Looks up the patient's next appointment.",
    parameters: { type: 'object', properties: { patientId: { type: 'string' } }, required: ['patientId'] },
  }, false, now);
  s.tools.insert(org, toolId(org, 'reschedule_appointment'), {
    name: 'reschedule_appointment',
    strict: true,
    description: 'Moves an appointment to a new date and time.',
    parameters: {
      type: 'object',
      properties: { appointmentId: { type: 'string' }, newDate: { type: 'string', format: 'date' }, newTime: { type: 'string' } },
      required: ['appointmentId', 'newDate'],
    },
  }, false, now);
  s.tools.insert(org, toolId(org, 'send_confirmation_sms'), {
    name: 'send_confirmation_sms',
    strict: false,
    description: 'Texts the patient a confirmation of the appointment.',
    parameters: { type: 'object', properties: { phoneNumber: { type: 'string' }, message: { type: 'string' } }, required: ['phoneNumber'] },
  }, true, now);

  // Calls over the last ~4 days, newest first in index order.
  const callIds: number[] = [];
  for (let i = 0; i < CALLS_PER_ORG; i++) {
    const sc = SCENARIOS[i % SCENARIOS.length]!;
    const [first, last] = PATIENTS[i % PATIENTS.length]!;
    const assistant = i % 3 === 2 ? followUp : reminder;
    const created = new Date(at.getTime() - (i * 3 * 60 + ((i * 37) % 60) + 5) * 60_000);
    const duration = sc.outcome === 'voicemail' ? 24_000 + i * 100 : 35_000 + ((i * 7919) % 180_000);
    const started = new Date(created.getTime() + 2_000);
    const ended = new Date(started.getTime() + duration);
    const inbound = i % 7 === 6;
    const patientNumber = `+1${o.area}55501${String(50 + (i % PATIENTS.length)).padStart(2, '0')}`;
    const call: Omit<Call, 'id'> & { created_at: string } = {
      assistant_id: assistant.id,
      created_at: created.toISOString(),
      started_at: started.toISOString(),
      ended_at: ended.toISOString(),
      call_status: 'ended',
      ended_reason: sc.ended_reason,
      transcript: [
        `AI: ${assistant.first_message}`,
        `AI: Am I speaking with ${first} ${last}?`,
        `User: Yes, speaking.`,
        `AI: ${assistant.id === reminder.id ? 'You have an appointment with us on Thursday at 10:30.' : 'How have you been feeling since your visit?'}`,
        `User: ${sc.patient}`,
        `AI: Thank you, ${first}. Have a good day.`,
      ].join('\n'),
      source_number: inbound ? patientNumber : main,
      destination_number: inbound ? main : patientNumber,
      call_type: inbound ? 'inboundPhoneCall' : 'outboundPhoneCall',
      duration_ms: duration,
      analysis: {
        repetition_count: i % 3,
        interruption_count: (i * 2) % 5,
        custom: {
          appointment_confirmed: sc.confirmed,
          callback_requested: sc.callback,
          sentiment: sc.sentiment,
          ...(sc.callback ? { preferred_callback_time: 'tomorrow 09:00-11:00' } : {}),
        },
      },
      summary: sc.summary,
      outcome: sc.outcome,
      failure_reason: sc.failure_reason,
    };
    callIds.push(s.calls.insert(org, call));
  }

  // A few sequences with history, so metrics and includeMetrics have something to show.
  const appt = s.definitions.get(org, apptId)!;
  const follow = s.definitions.get(org, followId)!;
  const seqs: { def: typeof appt; p: number; status: 'completed' | 'in-progress' | 'failed'; call: number; days: number; outcome: string | null; ended: string | null; inputs: SequenceInput[] }[] = [
    { def: appt, p: 0, status: 'completed', call: callIds[0]!, days: 3, outcome: 'appointment-confirmed', ended: 'completed', inputs: [{ id: 'appointmentDate', name: 'Appointment date', type: 'date', value: dateOffset(at, 2) }] },
    { def: appt, p: 3, status: 'in-progress', call: callIds[3]!, days: 1, outcome: null, ended: null, inputs: [{ id: 'appointmentDate', name: 'Appointment date', type: 'date', value: dateOffset(at, 4) }] },
    { def: follow, p: 8, status: 'failed', call: callIds[8]!, days: 2, outcome: 'opted-out', ended: 'patient-opted-out', inputs: [{ id: 'visitDate', name: 'Visit date', type: 'date', value: dateOffset(at, -5) }] },
  ];
  for (const q of seqs) {
    const [first, last] = PATIENTS[q.p]!;
    const created = new Date(at.getTime() - q.days * 86_400_000).toISOString();
    const outreach: OutreachItem[] = [{ type: 'call', step: 1, call_record_id: q.call, messaging_encounter_id: null, analysis: { outcome: q.outcome ?? 'in-progress' } }];
    s.sequences.create(org, {
      definition: q.def,
      firstName: first,
      lastName: last,
      phone: `+1${o.area}55501${String(50 + q.p).padStart(2, '0')}`,
      inputs: q.inputs,
      nextActivity: created,
      now,
      createdAt: created,
      status: q.status,
      outcome: q.outcome,
      endedReason: q.ended,
      currentStep: 1,
      wasContactReached: q.status !== 'in-progress',
      outreach,
    });
  }
}

function dateOffset(at: Date, days: number): string {
  return new Date(at.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
