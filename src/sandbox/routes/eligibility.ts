import type { FastifyInstance } from 'fastify';
import { ELIGIBILITY_STATUSES, type EligibilityRequest, type EligibilitySubmitted } from '../../api/types.js';
import { orgOf, type SandboxContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { resolvePayer, SUPPORTED_PAYERS } from '../payers.js';
import { idParam, limitQuery, nonEmptyString } from '../validation.js';

const text = (max = 200) => ({ type: 'string', minLength: 1, maxLength: max });

const submitSchema = {
  body: {
    type: 'object',
    required: ['patient', 'insurance', 'provider'],
    properties: {
      patient: {
        type: 'object',
        required: ['first_name', 'last_name', 'date_of_birth', 'member_id'],
        properties: {
          first_name: text(),
          last_name: text(),
          date_of_birth: { type: 'string', format: 'date' },
          member_id: text(80),
          customer_patient_id: text(),
        },
      },
      insurance: { type: 'object', required: ['payer_id'], properties: { payer_id: text(50) } },
      provider: {
        type: 'object',
        required: ['organization_name', 'npi'],
        properties: {
          organization_name: text(),
          npi: { type: 'string', pattern: '^\\d{10}$', 'x-hint': 'must be exactly 10 digits' },
        },
      },
      webhook_url: { type: 'string', format: 'http-url', maxLength: 2000 },
      webhook_secret: nonEmptyString,
    },
  },
};

export function eligibilityRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { db, stores, worker } = ctx;

  const submit = db.transaction((org: number, body: EligibilityRequest, now: string) => {
    const { status, dueAt } = worker.admit(org);
    const id = stores.eligibility.insert(org, body, status, now, dueAt);
    if (worker.instant && status === 'in-progress') {
      worker.completeNow({
        id,
        organization_id: org,
        payer_id: body.insurance.payer_id,
        member_id: body.patient.member_id,
        webhook_url: body.webhook_url ?? null,
        webhook_secret: body.webhook_secret ?? null,
      });
    }
    return { id, status };
  });

  app.post<{ Body: EligibilityRequest }>('/eligibility', { schema: submitSchema }, async (req, reply) => {
    const org = orgOf(req);
    const body = req.body;
    const payerId = body.insurance.payer_id;
    if (!resolvePayer(payerId)) {
      throw new HttpError(400, `Payer ${payerId} is not supported`, 'insurance.payer_id', { supported_payers: SUPPORTED_PAYERS });
    }
    const now = new Date();
    if (body.patient.date_of_birth > now.toISOString().slice(0, 10)) {
      throw new HttpError(400, 'body field patient.date_of_birth must not be in the future', 'patient.date_of_birth');
    }
    const created_at = now.toISOString();
    const { id, status } = submit(org, body, created_at);
    if (!worker.instant) worker.kick();
    const answer: EligibilitySubmitted = { id, status, created_at };
    if (body.patient.customer_patient_id !== undefined) answer.customer_patient_id = body.patient.customer_patient_id;
    return reply.code(201).send(answer);
  });

  app.get<{ Querystring: { customer_patient_id?: string; status?: string; limit: number } }>(
    '/eligibility',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { customer_patient_id: text(), status: { type: 'string', enum: [...ELIGIBILITY_STATUSES] }, limit: limitQuery },
        },
      },
    },
    async (req) =>
      stores.eligibility.list(orgOf(req), { limit: req.query.limit, status: req.query.status, customerPatientId: req.query.customer_patient_id }),
  );

  // API.md: the single read answers with an array holding the record.
  app.get<{ Params: { id: number } }>('/eligibility/:id', { schema: { params: idParam('id') } }, async (req) => {
    const check = stores.eligibility.get(orgOf(req), req.params.id);
    if (!check) throw notFound('Eligibility check', req.params.id);
    return [check];
  });
}
