import type { FastifyInstance } from 'fastify';
import type { ToolFunction, ToolUpdate } from '../../api/types.js';
import { nowIso, orgOf, type SandboxContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';

const schema = {
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
  body: {
    type: 'object',
    minProperties: 1,
    properties: {
      async: { type: 'boolean' },
      function: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            pattern: '^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$',
            'x-hint': 'must start with a letter or _, then letters, digits, _ or -, at most 64 characters',
          },
          strict: { type: 'boolean' },
          description: { type: 'string', maxLength: 1000 },
          parameters: {
            type: 'object',
            required: ['type'],
            properties: {
              type: { type: 'string', enum: ['object'] },
              properties: { type: 'object' },
              required: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

export function toolRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { stores } = ctx;

  app.patch<{ Params: { id: string }; Body: ToolUpdate }>('/tool/:id', { schema }, async (req) => {
    if (!('async' in req.body) && !('function' in req.body)) throw new HttpError(400, 'request body must contain async or function');
    const org = orgOf(req);
    const tool = stores.tools.get(org, req.params.id);
    if (!tool) throw notFound('Tool', req.params.id);
    // function is merged over the stored one, so a PATCH can change just the description.
    const fn: ToolFunction = { strict: false, ...tool.function, ...req.body.function } as ToolFunction;
    if (fn.parameters) {
      const declared = Object.keys(fn.parameters.properties ?? {});
      (fn.parameters.required ?? []).forEach((r, i) => {
        if (!declared.includes(r)) {
          throw new HttpError(400, `body field function.parameters.required[${i}] names "${r}", which is not in function.parameters.properties`, `function.parameters.required[${i}]`);
        }
      });
    }
    return stores.tools.update(org, tool.id, fn, req.body.async ?? tool.async, nowIso());
  });
}
