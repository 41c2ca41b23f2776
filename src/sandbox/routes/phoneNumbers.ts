import type { FastifyInstance } from 'fastify';
import { orgOf, type SandboxContext } from '../context.js';

export function phoneNumberRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get<{ Querystring: { assistantId?: number } }>(
    '/phone-number',
    { schema: { querystring: { type: 'object', properties: { assistantId: { type: 'integer', minimum: 1 } } } } },
    async (req) => ctx.stores.phoneNumbers.list(orgOf(req), req.query.assistantId),
  );
}
