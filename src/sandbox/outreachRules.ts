// What a simulated call to a patient gives, derived from the patient's phone number only, so tests
// and users can predict it (documented in docs/sandbox.md, "How outreach runs"). Pure.
//
//   last digit   the call                               outcome                   failure_reason       reached  sequence
//   0-4          answered, confirmed                    appointment-confirmed*    -                    yes      ends: completed
//   5            answered, transferred to staff         escalated                 escalated            yes      ends: completed
//   6            answered, declined                     declined                  declined             yes      ends: failed
//   7            answered, asked for a call back        callback-requested        requested-callback   yes      goes on
//   8            answered, hung up at once              incomplete                customer-dropped     no       goes on
//   9            not answered, voicemail left           voicemail                 assistant-ended      no       goes on
//   ...99        answered, asked not to be called       opted-out                 opt-out              yes      ends: failed
//   * "visit-follow-up-completed" for follow_up sequences, "completed" for other types.
import type { CallAnalysis, FailureReason, SequenceType } from '../api/types.js';

export type CallScenario = 'confirmed' | 'escalated' | 'declined' | 'callback' | 'dropped' | 'voicemail' | 'opt-out';

export interface CallPlan {
  scenario: CallScenario;
  /** Queued → ringing. */
  queuedMs: number;
  /** Ringing → in-progress (answered by the patient, or by voicemail). */
  ringMs: number;
  /** In-progress → ended (or → forwarding for a transfer). */
  talkMs: number;
  /** Forwarding → ended; 0 when the call is not transferred. */
  forwardMs: number;
  outcome: string;
  failure_reason: FailureReason | null;
  ended_reason: string;
  /** The patient took part in a conversation. */
  reached: boolean;
  /** The sequence ends after this call: its final status. null = it goes on to the next step. */
  endsSequence: { status: 'completed' | 'failed'; ended_reason: string } | null;
  summary: string;
  transcript: string;
  analysis: CallAnalysis;
}

export interface CallFacts {
  phone: string;
  firstName: string;
  sequenceType: SequenceType | string;
  firstMessage: string | null;
  voicemailMessage: string | null;
  /** Definition inputs of the sequence, for the transcript (e.g. appointmentDate). */
  inputs: Record<string, string>;
}

const digitsOf = (phone: string) => phone.replace(/\D/g, '');

export function scenarioFor(phone: string): CallScenario {
  const d = digitsOf(phone);
  if (d.endsWith('99')) return 'opt-out';
  const last = Number(d.slice(-1) || '0');
  if (last <= 4) return 'confirmed';
  return (['escalated', 'declined', 'callback', 'dropped', 'voicemail'] as const)[last - 5]!;
}

function successOutcome(type: string): string {
  if (type === 'appointment_reminder') return 'appointment-confirmed';
  if (type === 'follow_up') return 'visit-follow-up-completed';
  return 'completed';
}

/** The whole call, decided in advance from the facts. */
export function planCall(f: CallFacts): CallPlan {
  const scenario = scenarioFor(f.phone);
  const d = digitsOf(f.phone);
  const tail = Number(d.slice(-3) || '0'); // 0-999: varies durations and counts between patients
  const talkBase = 40_000 + (tail % 80) * 1000; // 40-119 s of conversation
  const greet = f.firstMessage ?? 'Hello, this is your care team calling.';
  const when = f.inputs.appointmentDate
    ? `on ${f.inputs.appointmentDate}${f.inputs.appointmentTime ? ` at ${f.inputs.appointmentTime}` : ''}`
    : f.inputs.visitDate
      ? `after your visit on ${f.inputs.visitDate}`
      : '';
  const topic = f.sequenceType === 'appointment_reminder' ? `your appointment ${when}`.trim() : f.sequenceType === 'follow_up' ? `how you are doing ${when}`.trim() : 'your annual wellness visit';
  const opening = [`AI: ${greet}`, `AI: Am I speaking with ${f.firstName}?`, 'User: Yes, speaking.', `AI: I am calling about ${topic}.`];
  const base = {
    queuedMs: 1500,
    ringMs: scenario === 'voicemail' ? 20_000 : 6000 + (tail % 10) * 1000,
    forwardMs: 0,
    analysis: {
      repetition_count: tail % 3,
      interruption_count: (tail >> 2) % 4,
      custom: {} as Record<string, unknown>,
    },
  };
  const custom = (confirmed: boolean, callback: boolean, sentiment: string, extra: Record<string, unknown> = {}) => ({
    appointment_confirmed: confirmed,
    callback_requested: callback,
    sentiment,
    ...extra,
  });
  switch (scenario) {
    case 'confirmed':
      return {
        ...base,
        scenario,
        talkMs: talkBase,
        outcome: successOutcome(String(f.sequenceType)),
        failure_reason: null,
        ended_reason: 'customer-ended-call',
        reached: true,
        endsSequence: { status: 'completed', ended_reason: 'contact-reached' },
        summary: f.sequenceType === 'appointment_reminder' ? 'Patient confirmed the appointment.' : 'Patient was reached and the call was completed.',
        transcript: [...opening, 'User: Yes, that works for me. Thank you.', 'AI: Wonderful. Have a good day.'].join('\n'),
        analysis: { ...base.analysis, custom: custom(f.sequenceType === 'appointment_reminder', false, 'positive') },
      };
    case 'escalated':
      return {
        ...base,
        scenario,
        talkMs: talkBase,
        forwardMs: 15_000,
        outcome: 'escalated',
        failure_reason: 'escalated',
        ended_reason: 'assistant-forwarded-call',
        reached: true,
        endsSequence: { status: 'completed', ended_reason: 'transferred-to-staff' },
        summary: 'Patient had a question for the staff; the call was transferred.',
        transcript: [...opening, 'User: I have a question about my bill.', 'AI: Let me transfer you to our front desk.'].join('\n'),
        analysis: { ...base.analysis, custom: custom(false, false, 'neutral', { transferred: true }) },
      };
    case 'declined':
      return {
        ...base,
        scenario,
        talkMs: Math.round(talkBase / 2),
        outcome: 'declined',
        failure_reason: 'declined',
        ended_reason: 'customer-ended-call',
        reached: true,
        endsSequence: { status: 'failed', ended_reason: 'patient-declined' },
        summary: 'Patient declined.',
        transcript: [...opening, 'User: No, I do not need it anymore.', 'AI: Understood. Thank you for your time.'].join('\n'),
        analysis: { ...base.analysis, custom: custom(false, false, 'neutral') },
      };
    case 'callback':
      return {
        ...base,
        scenario,
        talkMs: Math.round(talkBase / 2),
        outcome: 'callback-requested',
        failure_reason: 'requested-callback',
        ended_reason: 'customer-ended-call',
        reached: true,
        endsSequence: null,
        summary: 'Patient was busy and asked to be called back later.',
        transcript: [...opening, 'User: I am busy right now, can you call me later?', 'AI: Of course. We will call you back.'].join('\n'),
        analysis: { ...base.analysis, custom: custom(false, true, 'neutral', { preferred_callback_time: 'later today' }) },
      };
    case 'dropped':
      return {
        ...base,
        scenario,
        talkMs: 8000,
        outcome: 'incomplete',
        failure_reason: 'customer-dropped',
        ended_reason: 'customer-ended-call',
        reached: false,
        endsSequence: null,
        summary: 'The call was answered but the line dropped before the patient was verified.',
        transcript: [`AI: ${greet}`, 'User: Who is this? ...'].join('\n'),
        analysis: { ...base.analysis, custom: custom(false, false, 'negative') },
      };
    case 'voicemail':
      return {
        ...base,
        scenario,
        talkMs: 25_000,
        outcome: 'voicemail',
        failure_reason: 'assistant-ended',
        ended_reason: 'voicemail',
        reached: false,
        endsSequence: null,
        summary: 'No answer; a voicemail message was left.',
        transcript: ['(voicemail greeting)', `AI: ${f.voicemailMessage ?? 'Hello, this is your care team. Please call us back.'}`].join('\n'),
        analysis: { ...base.analysis, custom: custom(false, false, 'neutral', { voicemail_left: true }) },
      };
    case 'opt-out':
      return {
        ...base,
        scenario,
        talkMs: Math.round(talkBase / 2),
        outcome: 'opted-out',
        failure_reason: 'opt-out',
        ended_reason: 'customer-ended-call',
        reached: true,
        endsSequence: { status: 'failed', ended_reason: 'patient-opted-out' },
        summary: 'Patient asked not to be contacted again.',
        transcript: [...opening, 'User: Please take me off your call list.', 'AI: Understood. You will not be called again.'].join('\n'),
        analysis: { ...base.analysis, custom: custom(false, false, 'negative', { opted_out: true }) },
      };
  }
}

/** One sentence for the end-of-sequence report (no patient data). */
export function outcomeDescription(status: string, endedReason: string, outcome: string | null, steps: number): string {
  switch (endedReason) {
    case 'contact-reached':
      return `Patient reached by phone: ${outcome ?? 'completed'}.`;
    case 'transferred-to-staff':
      return 'Patient reached and transferred to staff.';
    case 'patient-declined':
      return 'Patient reached and declined.';
    case 'patient-opted-out':
      return 'Patient reached and asked not to be contacted again.';
    case 'all-steps-completed':
      return `All ${steps} steps ran; the patient was reached (${outcome ?? 'no outcome'}).`;
    case 'contact-not-reached':
      return `All ${steps} steps ran; the patient was not reached by phone.`;
    default:
      return `Sequence ${status}: ${endedReason}.`;
  }
}
