// The outreach scheduler: a timer loop that runs the sequences a batch created, step by step.
//
// Time: each sequence lives on its own outreach timeline, which starts at the real time the scheduler
// claims it and then runs `speed` times faster than real time (3600: an hour of delay is a second of
// waiting). Every time the scheduler writes (next_activity, scheduled_at, call times, last_updated) is
// on that timeline: the time the outreach would have had at speed 1. The calendar rules are in
// schedule.ts, the call results in outreachRules.ts; both are pure. Every action on a sequence runs in
// one transaction together with the webhook outbox rows it produces, so a report is never lost.
// Rules are documented in docs/sandbox.md, "How outreach runs".
import type { OutreachItem, OutreachSchedule, SequenceDefinition, SequenceStep } from '../api/types.js';
import { prep, type Db } from './db.js';
import type { Outbox } from './outbox.js';
import { outcomeDescription, planCall, type CallPlan } from './outreachRules.js';
import { nextOpening, realDelayMs } from './schedule.js';
import type { Stores } from './stores.js';
import type { SequenceRow } from './store/sequences.js';

const HOUR_MS = 3_600_000;
const FINISHED = new Set(['completed', 'failed', 'cancelled']);
const BATCH = 200;

export interface SchedulerOptions {
  speed: number;
  /** Longest sleep between looks at the database; default 250 ms. */
  tickMs: number;
  now: () => Date;
  /** Where end-of-sequence reports go (the organisation's configured URL); none = not sent. */
  sequenceWebhookUrl?: string;
  sequenceWebhookSecret?: string;
  log: (line: string) => void;
}

/** A sequence row with the scheduler's own columns (migration 2). */
type Row = Omit<SequenceRow, 'name' | 'description' | 'is_test_mode' | 'created_at'> & {
  due_at: number | null;
  due_sim: number | null;
  active_call_id: number | null;
  call_phase: string | null;
};

/** The mutable state of one sequence during an action. */
interface State {
  row: Row;
  def: SequenceDefinition | undefined;
  schedule: OutreachSchedule | undefined;
  steps: SequenceStep[];
  outreach: OutreachItem[];
  status: string;
  current_step: number;
  next_activity: string | null;
  ended_reason: string | null;
  outcome: string | null;
  reached: boolean;
  claimed_at: string | null;
  due_at: number | null;
  due_sim: number | null;
  active_call_id: number | null;
  call_phase: string | null;
  last_updated: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const stepOrder = (s: SequenceStep, i: number) => s.order ?? i + 1;

export class OutreachScheduler {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private readonly q;
  private readonly advanceTx;

  constructor(
    db: Db,
    private readonly stores: Stores,
    private readonly outbox: Outbox,
    private readonly opts: SchedulerOptions,
  ) {
    this.q = {
      due: prep(db, 'SELECT id FROM sequences WHERE due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, id LIMIT ?', true),
      nextDue: prep(db, 'SELECT MIN(due_at) FROM sequences WHERE due_at IS NOT NULL', true),
      get: prep(db, 'SELECT * FROM sequences WHERE id = ?'),
      firstName: prep(db, 'SELECT first_name FROM patients WHERE id = ?', true),
      save: prep(
        db,
        `UPDATE sequences SET status = @status, current_step = @current_step, next_activity = @next_activity,
           ended_reason = @ended_reason, ended_reason_v2 = @ended_reason, outcome = @outcome, was_contact_reached = @reached,
           claimed_at = @claimed_at, steps = @steps, outreach = @outreach, last_updated = @last_updated,
           due_at = @due_at, due_sim = @due_sim, active_call_id = @active_call_id, call_phase = @call_phase
         WHERE id = @id`,
      ),
      clearDue: prep(db, 'UPDATE sequences SET due_at = NULL WHERE id = ?'),
      message: prep(
        db,
        `INSERT INTO messaging_encounters (organization_id, sequence_id, step, channel, destination, body, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'delivered', ?)`,
      ),
    };
    this.advanceTx = db.transaction((id: number, now: number) => this.advance(id, now));
  }

  start(): void {
    this.stopped = false;
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Looks for due work now instead of at the next timer (e.g. right after a batch). */
  kick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), 0);
  }

  /** Performs every action due at the scheduler's now; returns how many were performed. */
  runDue(): number {
    const now = this.opts.now().getTime();
    const ids = this.q.due.all(now, BATCH) as number[];
    for (const id of ids) {
      try {
        this.advanceTx(id, now);
      } catch (e) {
        // One broken sequence must not stop the others: it is taken off the schedule.
        this.q.clearDue.run(id);
        this.opts.log(`scheduler: sequence ${id} stopped: ${(e as Error).message}`);
      }
    }
    return ids.length;
  }

  private tick(): void {
    if (this.stopped) return;
    const done = this.runDue();
    const now = this.opts.now().getTime();
    const next = this.q.nextDue.get() as number | null;
    const wait = done >= BATCH ? 0 : next == null ? this.opts.tickMs : Math.min(this.opts.tickMs, Math.max(1, next - now));
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }

  // ---------- one action on one sequence ----------

  private advance(id: number, now: number): void {
    const row = this.q.get.get(id) as Row | undefined;
    if (!row || row.due_at == null || row.due_at > now) return;
    if (FINISHED.has(row.status)) {
      this.q.clearDue.run(id);
      return;
    }
    const def = this.stores.definitions.get(row.organization_id, row.sequence_definition_id);
    const st: State = {
      row,
      def,
      schedule: def?.outreach_schedule,
      steps: JSON.parse(row.steps) as SequenceStep[],
      outreach: JSON.parse(row.outreach) as OutreachItem[],
      status: row.status,
      current_step: row.current_step,
      next_activity: row.next_activity,
      ended_reason: row.ended_reason,
      outcome: row.outcome,
      reached: row.was_contact_reached === 1,
      claimed_at: row.claimed_at,
      due_at: row.due_at,
      due_sim: row.due_sim,
      active_call_id: row.active_call_id,
      call_phase: row.call_phase,
      last_updated: row.last_updated,
    };
    if (st.due_sim == null) this.claim(st, now);
    else if (st.active_call_id != null) this.callPhase(st, now);
    else this.runStep(st, now);
    this.save(st);
  }

  /** First look at a new sequence: its timeline starts now; the first activity goes to an opening. */
  private claim(st: State, now: number): void {
    const asked = st.next_activity ? Date.parse(st.next_activity) : now;
    const first = nextOpening(st.schedule, Math.max(Number.isFinite(asked) ? asked : now, now));
    st.claimed_at = iso(now);
    st.last_updated = iso(now);
    if (!this.pending(st)) return this.finishAll(st, now, now);
    this.plan(st, first, now, now);
  }

  private pending(st: State): SequenceStep | undefined {
    return st.steps
      .map((s, i) => ({ s, o: stepOrder(s, i) }))
      .filter((x) => x.s.status === 'pending')
      .sort((a, b) => a.o - b.o)[0]?.s;
  }

  private delayHoursOf(st: State, order: number): number {
    const d = st.def?.steps_definition.find((s) => s.order === order)?.delay_hours;
    return typeof d === 'number' && d > 0 ? d : 0;
  }

  /** The next activity at outreach time `at`; `sim` is the sequence's outreach time now. */
  private plan(st: State, at: number, sim: number, now: number): void {
    st.next_activity = iso(at);
    st.due_sim = at;
    st.due_at = now + realDelayMs(at - sim, this.opts.speed);
    // Pending steps show when they will run if nothing moves them: the next one at `at`, the rest
    // after their delays, each at an opening.
    let t = at;
    let first = true;
    const pending = st.steps.map((s, i) => ({ s, o: stepOrder(s, i) })).filter((x) => x.s.status === 'pending').sort((a, b) => a.o - b.o);
    for (const { s, o } of pending) {
      if (!first) t = nextOpening(st.schedule, t + this.delayHoursOf(st, o) * HOUR_MS);
      s.scheduled_at = iso(t);
      first = false;
    }
  }

  /** The pending step with the lowest order runs at outreach time due_sim. */
  private runStep(st: State, now: number): void {
    const at = st.due_sim!;
    const step = this.pending(st);
    if (!step) return this.finishAll(st, at, now);
    const order = stepOrder(step, st.steps.indexOf(step));
    st.status = 'in-progress';
    st.current_step = order;
    st.last_updated = iso(at);
    step.scheduled_at = iso(at);
    const org = st.row.organization_id;

    if (step.type === 'voice') {
      const assistantId = step.voice_assistant_id ?? st.def?.voice_assistant_id ?? null;
      if (assistantId == null || !this.stores.assistants.exists(org, assistantId)) {
        step.status = 'failed';
        this.opts.log(`scheduler: sequence ${st.row.id} step ${order}: no assistant to make the call; step failed`);
        return this.next(st, at, at, now);
      }
      step.status = 'in-progress';
      const callId = this.stores.calls.insert(org, {
        assistant_id: assistantId,
        created_at: iso(at),
        started_at: null,
        ended_at: null,
        call_status: 'queued',
        ended_reason: null,
        transcript: null,
        source_number: step.source_number ?? this.stores.phoneNumbers.sourceFor(org, assistantId),
        destination_number: step.destination_number ?? st.row.phone_number,
        call_type: 'outboundPhoneCall',
        duration_ms: 0,
        analysis: null,
        summary: null,
        outcome: null,
        failure_reason: null,
      } as never);
      st.active_call_id = callId;
      st.call_phase = 'queued';
      st.due_sim = at + this.callPlan(st, assistantId).queuedMs;
      st.due_at = now + realDelayMs(st.due_sim - at, this.opts.speed);
      this.opts.log(`scheduler: sequence ${st.row.id} step ${order}: call ${callId} queued`);
      return;
    }

    if (step.type === 'sms' || step.type === 'email') {
      const body = messageText(st);
      const encounter = Number(
        this.q.message.run(org, st.row.id, order, step.type, step.type === 'sms' ? (step.destination_number ?? st.row.phone_number) : null, body, iso(at))
          .lastInsertRowid,
      );
      step.status = 'completed';
      st.outreach.push({
        type: step.type,
        step: order,
        call_record_id: null,
        messaging_encounter_id: encounter,
        analysis: { status: 'delivered', channel: step.type },
      });
      this.opts.log(`scheduler: sequence ${st.row.id} step ${order}: ${step.type} ${encounter} delivered`);
      return this.next(st, at, at, now);
    }

    // task: nothing reaches the patient; the step is done when it is due.
    step.status = 'completed';
    return this.next(st, at, at, now);
  }

  private callPlan(st: State, assistantId: number): CallPlan {
    const org = st.row.organization_id;
    const msgs = this.stores.assistants.messages(org, assistantId);
    const inputs: Record<string, string> = {};
    for (const i of JSON.parse(st.row.inputs) as { id: string; value: string }[]) inputs[i.id] = i.value;
    return planCall({
      phone: st.row.phone_number,
      firstName: (this.q.firstName.get(st.row.patient_id) as string | undefined) ?? 'there',
      sequenceType: st.row.type,
      firstMessage: msgs?.first_message ?? null,
      voicemailMessage: msgs?.voicemail_message ?? null,
      inputs,
    });
  }

  /** queued → ringing → in-progress (→ forwarding) → ended, at the plan's times. */
  private callPhase(st: State, now: number): void {
    const at = st.due_sim!;
    const callId = st.active_call_id!;
    const step = st.steps.find((s, i) => stepOrder(s, i) === st.current_step);
    const doc = this.stores.calls.doc(callId) ?? {}; // a call deleted mid-flight still finishes its step
    const assistantId = (doc.assistant_id as number | undefined) ?? step?.voice_assistant_id ?? st.def?.voice_assistant_id ?? 0;
    const plan = this.callPlan(st, assistantId);
    st.last_updated = iso(at);
    const move = (phase: string, forMs: number) => {
      st.call_phase = phase;
      st.due_sim = at + forMs;
      st.due_at = now + realDelayMs(forMs, this.opts.speed);
      this.stores.calls.replace(callId, { ...doc, call_status: phase });
    };
    switch (st.call_phase) {
      case 'queued':
        doc.started_at = iso(at);
        return move('ringing', plan.ringMs);
      case 'ringing':
        return move('in-progress', plan.talkMs);
      case 'in-progress':
        if (plan.forwardMs > 0) return move('forwarding', plan.forwardMs);
        break;
      default:
        break;
    }
    // Ended.
    const started = Date.parse(String(doc.started_at ?? iso(at)));
    const call = {
      ...doc,
      id: callId,
      started_at: iso(started),
      ended_at: iso(at),
      call_status: 'ended',
      ended_reason: plan.ended_reason,
      transcript: plan.transcript,
      duration_ms: at - started,
      analysis: plan.analysis,
      summary: plan.summary,
      outcome: plan.outcome,
      failure_reason: plan.failure_reason,
    };
    this.stores.calls.replace(callId, call);
    st.active_call_id = null;
    st.call_phase = null;
    st.outcome = plan.outcome;
    if (plan.reached) st.reached = true;
    if (step) step.status = plan.reached ? 'completed' : 'failed';
    st.outreach.push({
      type: 'call',
      step: st.current_step,
      call_record_id: callId,
      messaging_encounter_id: null,
      analysis: {
        outcome: plan.outcome,
        failure_reason: plan.failure_reason,
        was_contact_reached: plan.reached,
        duration_ms: at - started,
        ...plan.analysis,
      },
    });
    const target = this.stores.assistants.webhookTarget(st.row.organization_id, assistantId);
    if (target) {
      this.outbox.enqueue(st.row.organization_id, 'call.ended', callId, target.url, target.secret, {
        type: 'end-of-call-report',
        sequence_id: st.row.id,
        step: st.current_step,
        call,
      });
    }
    this.opts.log(`scheduler: sequence ${st.row.id} step ${st.current_step}: call ${callId} ended: ${plan.outcome}`);
    if (plan.endsSequence) return this.finish(st, plan.endsSequence.status, plan.endsSequence.ended_reason, at, now);
    const stepStart = step?.scheduled_at ? Date.parse(step.scheduled_at) : started;
    return this.next(st, stepStart, at, now);
  }

  /** After a step: the next pending step at (its start + the next delay), never before `end`. */
  private next(st: State, stepStart: number, end: number, now: number): void {
    const step = this.pending(st);
    if (!step) return this.finishAll(st, end, now);
    const delay = this.delayHoursOf(st, stepOrder(step, st.steps.indexOf(step)));
    const at = nextOpening(st.schedule, Math.max(stepStart + delay * HOUR_MS, end));
    st.last_updated = iso(end);
    this.plan(st, at, end, now);
  }

  /** Every step ran. */
  private finishAll(st: State, at: number, now: number): void {
    const called = st.outreach.some((o) => o.type === 'call');
    if (!called || st.reached) {
      if (!called) st.outcome = st.outreach.length > 0 ? 'messages-sent' : 'no-outreach';
      return this.finish(st, 'completed', 'all-steps-completed', at, now);
    }
    st.outcome = 'not-reached';
    return this.finish(st, 'failed', 'contact-not-reached', at, now);
  }

  private finish(st: State, status: 'completed' | 'failed', endedReason: string, at: number, _now: number): void {
    st.status = status;
    st.ended_reason = endedReason;
    st.next_activity = null;
    st.due_at = null;
    st.due_sim = null;
    st.last_updated = iso(at);
    for (const s of st.steps) if (s.status === 'pending') s.status = 'skipped';
    this.opts.log(`scheduler: sequence ${st.row.id} ${status}: ${endedReason}`);
    if (this.opts.sequenceWebhookUrl) {
      this.outbox.enqueue(st.row.organization_id, 'sequence.ended', st.row.id, this.opts.sequenceWebhookUrl, this.opts.sequenceWebhookSecret ?? null, {
        id: st.row.id,
        status,
        outcome_description: outcomeDescription(status, endedReason, st.outcome, st.steps.length),
        last_updated: st.last_updated,
        outreach: st.outreach,
      });
    }
  }

  private save(st: State): void {
    this.q.save.run({
      id: st.row.id,
      status: st.status,
      current_step: st.current_step,
      next_activity: st.next_activity,
      ended_reason: st.ended_reason,
      outcome: st.outcome,
      reached: st.reached ? 1 : 0,
      claimed_at: st.claimed_at,
      steps: JSON.stringify(st.steps),
      outreach: JSON.stringify(st.outreach),
      last_updated: st.last_updated,
      due_at: st.due_at,
      due_sim: st.due_sim,
      active_call_id: st.active_call_id,
      call_phase: st.call_phase,
    });
  }
}

/** The text of an SMS or email step (no patient data beyond the sequence's own inputs). */
function messageText(st: State): string {
  const inputs: Record<string, string> = {};
  for (const i of JSON.parse(st.row.inputs) as { id: string; value: string }[]) inputs[i.id] = i.value;
  if (st.row.type === 'appointment_reminder') {
    return `Reminder: you have an appointment${inputs.appointmentDate ? ` on ${inputs.appointmentDate}` : ''}${inputs.appointmentTime ? ` at ${inputs.appointmentTime}` : ''}. Reply C to confirm or call us to reschedule.`;
  }
  if (st.row.type === 'follow_up') return 'We hope you are feeling better after your visit. Reply or call us if you have any questions.';
  return 'You are due for your annual wellness visit. Call us to book a time that suits you.';
}
