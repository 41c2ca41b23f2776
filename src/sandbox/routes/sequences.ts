import type { FastifyInstance } from 'fastify';
import { SEQUENCE_STATUSES, STEP_TYPES, type BatchRequest, type BatchResponse, type SequenceUpdate } from '../../api/types.js';
import { validateRows, type ValidRow } from '../batch.js';
import { nowIso, orgOf, type SandboxContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import type { SequenceDefinition } from '../../api/types.js';
import { idParam, limitQuery } from '../validation.js';
import type { Db } from '../db.js';
import type { Stores } from '../stores.js';

const MAX_BATCH_ROWS = 100;

const batchSchema = {
  body: {
    type: 'object',
    required: ['sequence_definition_id', 'rows'],
    properties: {
      sequence_definition_id: { type: 'integer', minimum: 1 },
      rows: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_BATCH_ROWS,
        items: { type: 'object' }, // row values are checked per row (errors[]), not here
      },
      next_activity_date: { type: 'string', format: 'date-time' },
      validate_only: { type: 'boolean', default: false },
    },
  },
};

const e164 = { type: 'string', pattern: '^\\+[1-9]\\d{7,14}$', 'x-hint': 'must be an E.164 phone number like +14155550123' };

export const stepsSchema = (config: object) => ({
  type: 'array',
  minItems: 1,
  maxItems: 50,
  items: {
    type: 'object',
    required: ['order', 'type'],
    properties: { order: { type: 'integer', minimum: 1, maximum: 1000 }, type: { type: 'string', enum: [...STEP_TYPES] }, config },
  },
});

const updateSchema = {
  params: idParam('id'),
  body: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      description: { type: 'string', maxLength: 2000 },
      steps: stepsSchema({
        type: 'object',
        properties: {
          scheduled_at: { type: 'string', format: 'date-time' },
          voicemail_message: { type: 'string', maxLength: 2000 },
          source_number: e164,
          destination_number: e164,
          voice_assistant_id: { type: 'integer', minimum: 1 },
          inputs: { type: 'array', items: { type: 'object' } },
          post_actions: { type: 'array', items: { type: 'object' } },
        },
      }),
    },
  },
};

/** Rejects two steps with the same order (schemas cannot say "unique by key"). */
export function checkStepOrders(steps: { order: number }[] | undefined): void {
  const seen = new Set<number>();
  steps?.forEach((s, i) => {
    if (seen.has(s.order)) throw new HttpError(400, `body field steps[${i}].order ${s.order} is used by another step`, `steps[${i}].order`);
    seen.add(s.order);
  });
}

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/**
 * Creates all valid rows of a batch in one transaction: a batch is created whole or not at all, and
 * concurrent batches cannot interleave (the transaction runs synchronously on the one connection).
 */
export function batchCreator(db: Db, stores: Stores) {
  return db.transaction((org: number, def: SequenceDefinition, rows: ValidRow[], nextActivity: string) => {
    const now = nowIso();
    const stepContext = stores.sequences.batchContext(org);
    return rows.map((r) => ({
      rowIndex: r.rowIndex,
      sequence_id: stores.sequences.create(org, {
        definition: def,
        firstName: r.firstName,
        lastName: r.lastName,
        phone: r.phone,
        inputs: r.inputs,
        nextActivity,
        now,
        runnable: true,
        stepContext,
      }),
    }));
  });
}

export function sequenceRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { db, stores } = ctx;

  const createAll = batchCreator(db, stores);

  app.post<{ Body: BatchRequest }>('/sequence-manager/sequences/batch', { schema: batchSchema }, async (req) => {
    const org = orgOf(req);
    const { sequence_definition_id: defId, rows, validate_only } = req.body;
    const def = stores.definitions.get(org, defId);
    if (!def) throw notFound('Sequence definition', defId);
    if (def.is_archived || def.status !== 'active') {
      throw new HttpError(400, `Sequence definition ${defId} is ${def.is_archived ? 'archived' : def.status}; sequences can only be created from an active definition`, 'sequence_definition_id');
    }
    const { errors, warnings, validRows } = validateRows(def, rows);
    const nextActivity = req.body.next_activity_date ? new Date(req.body.next_activity_date).toISOString() : nowIso();
    const created = validate_only || validRows.length === 0 ? [] : createAll(org, def, validRows, nextActivity);
    if (created.length > 0) ctx.scheduler?.kick();
    const answer: BatchResponse = {
      valid: errors.length === 0,
      total_attempted: rows.length,
      valid_count: validRows.length,
      created_count: created.length,
      created,
      errors,
      warnings,
    };
    return answer;
  });

  app.get<{ Querystring: { status?: string; limit: number; sequence_definition_id?: number; phone_number?: string } }>(
    '/sequence-manager/sequences',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: [...SEQUENCE_STATUSES] },
            limit: limitQuery,
            sequence_definition_id: { type: 'integer', minimum: 1 },
            phone_number: { type: 'string', minLength: 1, maxLength: 20 },
          },
        },
      },
    },
    async (req) => ({
      success: true,
      data: stores.sequences.list(orgOf(req), {
        limit: req.query.limit,
        status: req.query.status,
        sequenceDefinitionId: req.query.sequence_definition_id,
        phoneNumber: req.query.phone_number,
      }),
    }),
  );

  // Registered as a static path, which the router always prefers over /:id.
  app.get('/sequence-manager/sequences/metrics', async (req) => ({ data: stores.sequences.metrics(orgOf(req)) }));

  app.get<{ Params: { id: number }; Querystring: { includeMetrics: boolean } }>(
    '/sequence-manager/sequences/:id',
    {
      schema: {
        params: idParam('id'),
        querystring: { type: 'object', properties: { includeMetrics: { type: 'boolean', default: false } } },
      },
    },
    async (req) => {
      const seq = stores.sequences.get(orgOf(req), req.params.id, req.query.includeMetrics);
      if (!seq) throw notFound('Sequence', req.params.id);
      return seq;
    },
  );

  app.put<{ Params: { id: number }; Body: SequenceUpdate }>('/sequence-manager/sequences/:id', { schema: updateSchema }, async (req) => {
    const org = orgOf(req);
    const seq = stores.sequences.get(org, req.params.id);
    if (!seq) throw notFound('Sequence', req.params.id);
    if (FINISHED.has(seq.status)) throw new HttpError(409, `Sequence ${seq.id} is ${seq.status} and can no longer be changed`);
    checkStepOrders(req.body.steps);
    for (const [i, s] of (req.body.steps ?? []).entries()) {
      const a = s.config?.voice_assistant_id;
      if (typeof a === 'number' && !stores.assistants.exists(org, a)) {
        throw new HttpError(400, `body field steps[${i}].config.voice_assistant_id: assistant ${a} not found`, `steps[${i}].config.voice_assistant_id`);
      }
    }
    return { success: true, data: stores.sequences.update(org, seq, req.body, nowIso()) };
  });
}
