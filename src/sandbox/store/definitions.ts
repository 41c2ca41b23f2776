import type {
  InputDefinition,
  OutreachSchedule,
  SequenceDefinition,
  SequenceDefinitionSummary,
  SequenceType,
  StepDefinition,
  StepUpdate,
} from '../../api/types.js';
import { type Db, prep } from '../db.js';

interface Row {
  id: number;
  organization_id: number;
  name: string;
  description: string | null;
  type: string;
  status: string;
  steps_definition: string;
  inputs_definition: string;
  outreach_schedule: string;
  voice_assistant_id: number | null;
  ehr_action: string;
  is_archived: number;
  allow_repeat_contact: number;
  created_at: string;
}

const toWire = (r: Row): SequenceDefinition => ({
  id: r.id,
  name: r.name,
  description: r.description,
  type: r.type as SequenceType,
  status: r.status as SequenceDefinition['status'],
  steps_definition: JSON.parse(r.steps_definition) as StepDefinition[],
  inputs_definition: JSON.parse(r.inputs_definition) as InputDefinition[],
  outreach_schedule: JSON.parse(r.outreach_schedule) as OutreachSchedule,
  voice_assistant_id: r.voice_assistant_id,
  organization_id: r.organization_id,
  ehr_action: r.ehr_action as SequenceDefinition['ehr_action'],
  created_at: r.created_at,
  is_archived: r.is_archived === 1,
  allow_repeat_contact: r.allow_repeat_contact === 1,
});

export type NewDefinition = Omit<SequenceDefinition, 'id' | 'organization_id' | 'created_at'>;

/** Definition steps from the PUT body's {order, type, config}; unknown config keys are ignored. */
function stepsFromUpdate(steps: StepUpdate[], defaultAssistant: number | null): StepDefinition[] {
  return [...steps]
    .sort((a, b) => a.order - b.order)
    .map((s) => {
      const c = (s.config ?? {}) as Partial<StepDefinition>;
      return {
        id: `step-${s.order}`,
        type: s.type,
        order: s.order,
        delay_hours: c.delay_hours ?? 0,
        voice_assistant_id: s.type === 'voice' ? (c.voice_assistant_id ?? defaultAssistant) : (c.voice_assistant_id ?? null),
        messaging_assistant_id: c.messaging_assistant_id ?? null,
        inputs: c.inputs ?? [],
      };
    });
}

export function definitionStore(db: Db) {
  const get = prep(db, 'SELECT * FROM sequence_definitions WHERE id = ? AND organization_id = ?');
  const list = prep(db, 'SELECT id, name, inputs_definition FROM sequence_definitions WHERE organization_id = ? ORDER BY id');
  const insert = prep(db, 
    `INSERT INTO sequence_definitions (organization_id, name, description, type, status, steps_definition, inputs_definition,
       outreach_schedule, voice_assistant_id, ehr_action, is_archived, allow_repeat_contact, created_at)
     VALUES (@org, @name, @description, @type, @status, @steps, @inputs, @schedule, @assistant, @ehr, @archived, @repeat, @now)`,
  );
  const update = prep(db, 
    'UPDATE sequence_definitions SET name = @name, description = @description, steps_definition = @steps WHERE id = @id AND organization_id = @org',
  );
  return {
    get(orgId: number, id: number): SequenceDefinition | undefined {
      const r = get.get(id, orgId) as Row | undefined;
      return r && toWire(r);
    },
    list(orgId: number): SequenceDefinitionSummary[] {
      return (list.all(orgId) as { id: number; name: string; inputs_definition: string }[]).map((r) => ({
        id: r.id,
        name: r.name,
        inputs_definition: JSON.parse(r.inputs_definition) as InputDefinition[],
      }));
    },
    insert(orgId: number, d: NewDefinition, now: string): number {
      return Number(
        insert.run({
          org: orgId,
          name: d.name,
          description: d.description ?? null,
          type: d.type ?? 'other',
          status: d.status,
          steps: JSON.stringify(d.steps_definition),
          inputs: JSON.stringify(d.inputs_definition),
          schedule: JSON.stringify(d.outreach_schedule),
          assistant: d.voice_assistant_id,
          ehr: d.ehr_action,
          archived: d.is_archived ? 1 : 0,
          repeat: d.allow_repeat_contact ? 1 : 0,
          now,
        }).lastInsertRowid,
      );
    },
    update(orgId: number, def: SequenceDefinition, body: { name?: string; description?: string; steps?: StepUpdate[] }) {
      const steps = body.steps ? stepsFromUpdate(body.steps, def.voice_assistant_id) : def.steps_definition;
      update.run({
        id: def.id,
        org: orgId,
        name: body.name ?? def.name,
        description: body.description ?? def.description ?? null,
        steps: JSON.stringify(steps),
      });
      return this.get(orgId, def.id)!;
    },
  };
}
