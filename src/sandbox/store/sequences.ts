import type {
  OutreachItem,
  Sequence,
  SequenceDefinition,
  SequenceInput,
  SequenceMetricsEntry,
  SequenceStatus,
  SequenceStep,
  SequenceType,
  StepUpdate,
} from '../../api/types.js';
import { type Db, prep } from '../db.js';

/** A row of the sequences table (the scheduler's own columns are added in scheduler.ts). */
export interface SequenceRow {
  id: number;
  organization_id: number;
  sequence_definition_id: number;
  patient_id: number;
  status: string;
  type: string;
  name: string | null;
  description: string | null;
  phone_number: string;
  current_step: number;
  next_activity: string | null;
  ended_reason: string | null;
  ended_reason_v2: string | null;
  outcome: string | null;
  was_contact_reached: number;
  claimed_at: string | null;
  is_test_mode: number;
  steps: string;
  inputs: string;
  outreach: string;
  created_at: string;
  last_updated: string;
}

function toWire(r: SequenceRow, withOutreach: boolean): Sequence {
  const s: Sequence = {
    id: r.id,
    status: r.status as SequenceStatus,
    ended_reason: r.ended_reason,
    ended_reason_v2: r.ended_reason_v2,
    current_step: r.current_step,
    next_activity: r.next_activity,
    organization_id: r.organization_id,
    patient_id: r.patient_id,
    type: r.type as SequenceType,
    steps: JSON.parse(r.steps) as SequenceStep[],
    sequence_definition_id: r.sequence_definition_id,
    inputs: JSON.parse(r.inputs) as SequenceInput[],
    outcome: r.outcome,
    was_contact_reached: r.was_contact_reached === 1,
    claimed_at: r.claimed_at,
    is_test_mode: r.is_test_mode === 1,
    last_updated: r.last_updated,
    created_at: r.created_at,
    phone_number: r.phone_number,
    name: r.name,
    description: r.description,
  };
  if (withOutreach) s.outreach = JSON.parse(r.outreach) as OutreachItem[];
  return s;
}

export interface NewSequence {
  definition: SequenceDefinition;
  firstName: string;
  lastName: string;
  phone: string;
  inputs: SequenceInput[];
  nextActivity: string;
  now: string;
  /** Seed data only: */
  status?: SequenceStatus;
  createdAt?: string;
  outcome?: string | null;
  endedReason?: string | null;
  currentStep?: number;
  wasContactReached?: boolean;
  outreach?: OutreachItem[];
  /** Run by the outreach scheduler (sequences created by a batch); seeded history is not. */
  runnable?: boolean;
  /** The lookups for the steps, shared by the rows of one batch (see batchContext). */
  stepContext?: StepContext;
}

export interface StepContext {
  /** Outgoing number for a step run by this assistant. */
  sourceFor(assistantId: number | null): string | null;
  voicemailFor(assistantId: number | null): string | null;
}

/** Steps of a new sequence: one per definition step, scheduled from next_activity plus the delays. */
function buildSteps(seqId: number, def: SequenceDefinition, phone: string, nextActivity: string, ctx: StepContext): SequenceStep[] {
  let at = Date.parse(nextActivity);
  return [...def.steps_definition]
    .sort((a, b) => a.order - b.order)
    .map((sd, i) => {
      if (i > 0) at += (sd.delay_hours ?? 0) * 3_600_000;
      const assistant = sd.type === 'voice' ? (sd.voice_assistant_id ?? def.voice_assistant_id) : null;
      const reachesPhone = sd.type === 'voice' || sd.type === 'sms';
      return {
        id: `${seqId}-${sd.order}`,
        order: sd.order,
        type: sd.type,
        inputs: [],
        status: 'pending',
        scheduled_at: new Date(at).toISOString(),
        voicemail_message: sd.type === 'voice' ? ctx.voicemailFor(assistant) : null,
        source_number: reachesPhone ? ctx.sourceFor(assistant) : null,
        destination_number: reachesPhone ? phone : null,
        voice_assistant_id: assistant,
        post_actions: [],
      };
    });
}

/** Steps after a PUT: matched by order to the current ones, config keys override. */
function updatedSteps(seqId: number, current: SequenceStep[], phone: string, updates: StepUpdate[]): SequenceStep[] {
  return [...updates]
    .sort((a, b) => a.order - b.order)
    .map((u) => {
      const old = current.find((s) => s.order === u.order);
      const c = (u.config ?? {}) as Partial<SequenceStep>;
      const reachesPhone = u.type === 'voice' || u.type === 'sms';
      return {
        id: old?.id ?? `${seqId}-${u.order}`,
        order: u.order,
        type: u.type,
        inputs: c.inputs ?? old?.inputs ?? [],
        status: old?.status ?? 'pending',
        scheduled_at: c.scheduled_at ?? old?.scheduled_at ?? null,
        voicemail_message: c.voicemail_message ?? old?.voicemail_message ?? null,
        source_number: c.source_number ?? old?.source_number ?? null,
        destination_number: c.destination_number ?? old?.destination_number ?? (reachesPhone ? phone : null),
        voice_assistant_id: c.voice_assistant_id ?? old?.voice_assistant_id ?? null,
        post_actions: c.post_actions ?? old?.post_actions ?? [],
      };
    });
}

export interface SequenceFilter {
  limit: number;
  status?: string;
  sequenceDefinitionId?: number;
  phoneNumber?: string;
}

export function sequenceStore(db: Db, stepCtx: (orgId: number) => StepContext) {
  const insertPatient = prep(db, 'INSERT INTO patients (organization_id, first_name, last_name, phone_number, created_at) VALUES (?, ?, ?, ?, ?)');
  const insertSeq = prep(db, 
    `INSERT INTO sequences (organization_id, sequence_definition_id, patient_id, status, type, phone_number, current_step,
       next_activity, ended_reason, outcome, was_contact_reached, is_test_mode, steps, inputs, outreach, created_at, last_updated, due_at)
     VALUES (@org, @def, @patient, @status, @type, @phone, @step, @next, @ended, @outcome, @reached, 1, '[]', @inputs, @outreach, @created, @now, @due)`,
  );
  const setSteps = prep(db, 'UPDATE sequences SET steps = ? WHERE id = ?');
  const get = prep(db, 'SELECT * FROM sequences WHERE id = ? AND organization_id = ?');
  const list = prep(db, 
    `SELECT * FROM sequences WHERE organization_id = @org
       AND (@status IS NULL OR status = @status) AND (@def IS NULL OR sequence_definition_id = @def)
       AND (@phone IS NULL OR phone_number = @phone)
     ORDER BY id DESC LIMIT @limit`,
  );
  const metrics = prep(db, 'SELECT id, status, created_at, last_updated, outreach FROM sequences WHERE organization_id = ? ORDER BY id DESC');
  const update = prep(db, 
    'UPDATE sequences SET name = @name, description = @description, steps = @steps, last_updated = @now WHERE id = @id AND organization_id = @org',
  );

  return {
    /** Creates the patient and the sequence; call inside a transaction. */
    create(orgId: number, n: NewSequence): number {
      const created = n.createdAt ?? n.now;
      const patientId = Number(insertPatient.run(orgId, n.firstName, n.lastName, n.phone, created).lastInsertRowid);
      const id = Number(
        insertSeq.run({
          org: orgId,
          def: n.definition.id,
          patient: patientId,
          status: n.status ?? 'queued',
          type: n.definition.type ?? 'other',
          phone: n.phone,
          step: n.currentStep ?? 0,
          next: n.nextActivity,
          ended: n.endedReason ?? null,
          outcome: n.outcome ?? null,
          reached: n.wasContactReached ? 1 : 0,
          inputs: JSON.stringify(n.inputs),
          outreach: JSON.stringify(n.outreach ?? []),
          created,
          now: n.now,
          due: n.runnable ? 0 : null,
        }).lastInsertRowid,
      );
      setSteps.run(JSON.stringify(buildSteps(id, n.definition, n.phone, n.nextActivity, n.stepContext ?? stepCtx(orgId))), id);
      return id;
    },
    /**
     * The step lookups for the rows of one batch, each asked once: a 100-row batch of a 3-step
     * definition otherwise reads the same assistant and phone number 600 times. Use within one
     * transaction only (nothing can change the answers meanwhile).
     */
    batchContext(orgId: number): StepContext {
      const base = stepCtx(orgId);
      const sources = new Map<number | null, string | null>();
      const voicemails = new Map<number | null, string | null>();
      const once = (cache: Map<number | null, string | null>, id: number | null, read: (id: number | null) => string | null) => {
        if (!cache.has(id)) cache.set(id, read(id));
        return cache.get(id)!;
      };
      return {
        sourceFor: (id) => once(sources, id, base.sourceFor),
        voicemailFor: (id) => once(voicemails, id, base.voicemailFor),
      };
    },
    get(orgId: number, id: number, withOutreach = false): Sequence | undefined {
      const r = get.get(id, orgId) as SequenceRow | undefined;
      return r && toWire(r, withOutreach);
    },
    list(orgId: number, f: SequenceFilter): Sequence[] {
      const rows = list.all({
        org: orgId,
        status: f.status ?? null,
        def: f.sequenceDefinitionId ?? null,
        phone: f.phoneNumber ?? null,
        limit: f.limit,
      }) as SequenceRow[];
      return rows.map((r) => toWire(r, false));
    },
    metrics(orgId: number): SequenceMetricsEntry[] {
      return (metrics.all(orgId) as Pick<SequenceRow, 'id' | 'status' | 'created_at' | 'last_updated' | 'outreach'>[]).map((r) => ({
        id: r.id,
        status: r.status as SequenceStatus,
        created_at: r.created_at,
        last_updated: r.last_updated,
        outreach: JSON.parse(r.outreach) as OutreachItem[],
      }));
    },
    update(orgId: number, seq: Sequence, body: { name?: string; description?: string; steps?: StepUpdate[] }, now: string): Sequence {
      update.run({
        id: seq.id,
        org: orgId,
        name: body.name ?? seq.name ?? null,
        description: body.description ?? seq.description ?? null,
        steps: JSON.stringify(body.steps ? updatedSteps(seq.id, seq.steps, seq.phone_number ?? '', body.steps) : seq.steps),
        now,
      });
      return this.get(orgId, seq.id)!;
    },
  };
}
