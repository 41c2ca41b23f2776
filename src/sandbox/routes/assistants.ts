import type { FastifyInstance } from 'fastify';
import type { AssistantInput } from '../../api/types.js';
import { nowIso, orgOf, type SandboxContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { idParam } from '../validation.js';

const fields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  model: { type: 'object' },
  voice: { type: 'object' },
  first_message: { type: 'string', maxLength: 2000 },
  max_duration_seconds: { type: 'integer', minimum: 10, maximum: 43200 },
  voicemail_message: { type: 'string', maxLength: 2000 },
  webhook_url: { type: 'string', format: 'http-url', maxLength: 2000 },
  analysis_plan: { type: 'object' },
  // Write-only: stored, never returned (is_webhook_secret_set tells). null clears it.
  webhook_secret: { type: ['string', 'null'], minLength: 1, maxLength: 500 },
};

export function assistantRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { stores } = ctx;

  app.post<{ Body: AssistantInput }>(
    '/assistant',
    { schema: { body: { type: 'object', required: ['name'], properties: fields } } },
    async (req, reply) => reply.code(201).send(stores.assistants.create(orgOf(req), req.body, nowIso())),
  );

  app.patch<{ Params: { assistantId: number }; Body: AssistantInput }>(
    '/assistant/:assistantId',
    { schema: { params: idParam('assistantId'), body: { type: 'object', minProperties: 1, properties: fields } } },
    async (req) => {
      if (!Object.keys(fields).some((f) => f in req.body)) {
        throw badRequest(`request body must contain at least one of: ${Object.keys(fields).join(', ')}`);
      }
      const updated = stores.assistants.update(orgOf(req), req.params.assistantId, req.body, nowIso());
      if (!updated) throw notFound('Assistant', req.params.assistantId);
      return updated;
    },
  );
}
