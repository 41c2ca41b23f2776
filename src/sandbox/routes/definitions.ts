import type { FastifyInstance } from 'fastify';
import type { SequenceDefinitionUpdate } from '../../api/types.js';
import { orgOf, type SandboxContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { idParam } from '../validation.js';
import { checkStepOrders, stepsSchema } from './sequences.js';

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
          delay_hours: { type: 'integer', minimum: 0, maximum: 8760 },
          voice_assistant_id: { type: ['integer', 'null'], minimum: 1 },
          messaging_assistant_id: { type: ['integer', 'null'], minimum: 1 },
          inputs: { type: 'array', items: { type: 'object' } },
        },
      }),
    },
  },
};

export function definitionRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { stores } = ctx;

  app.get('/sequence-manager/sequence-definitions', async (req) => stores.definitions.list(orgOf(req)));

  app.get<{ Params: { id: number } }>('/sequence-manager/sequence-definitions/:id', { schema: { params: idParam('id') } }, async (req) => {
    const def = stores.definitions.get(orgOf(req), req.params.id);
    if (!def) throw notFound('Sequence definition', req.params.id);
    return def;
  });

  app.put<{ Params: { id: number }; Body: SequenceDefinitionUpdate }>(
    '/sequence-manager/sequence-definitions/:id',
    { schema: updateSchema },
    async (req) => {
      const org = orgOf(req);
      const def = stores.definitions.get(org, req.params.id);
      if (!def) throw notFound('Sequence definition', req.params.id);
      checkStepOrders(req.body.steps);
      for (const [i, s] of (req.body.steps ?? []).entries()) {
        const a = s.config?.voice_assistant_id;
        if (typeof a === 'number' && !stores.assistants.exists(org, a)) {
          throw new HttpError(400, `body field steps[${i}].config.voice_assistant_id: assistant ${a} not found`, `steps[${i}].config.voice_assistant_id`);
        }
      }
      return stores.definitions.update(org, def, req.body);
    },
  );
}
