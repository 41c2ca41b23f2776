import type { FastifyInstance } from 'fastify';
import { orgOf, type SandboxContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { idParam, limitQuery } from '../validation.js';

const isoOrUndefined = (s: string | undefined) => (s === undefined ? undefined : new Date(s).toISOString());

export function callRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { stores } = ctx;

  // Stored documents are joined into the answer as they are: no parse/stringify per call.
  app.get<{ Querystring: { limit: number; createdAtGe?: string; createdAtLe?: string } }>(
    '/call',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            limit: limitQuery,
            createdAtGe: { type: 'string', format: 'date-time' },
            createdAtLe: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    async (req, reply) => {
      const ge = isoOrUndefined(req.query.createdAtGe);
      const le = isoOrUndefined(req.query.createdAtLe);
      if (ge && le && ge > le) throw new HttpError(400, 'query parameter createdAtGe must not be after createdAtLe', 'createdAtGe');
      const body = stores.calls.listJson(orgOf(req), { limit: req.query.limit, createdAtGe: ge, createdAtLe: le });
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get<{ Params: { callId: number } }>('/call/:callId', { schema: { params: idParam('callId') } }, async (req, reply) => {
    const doc = stores.calls.getJson(orgOf(req), req.params.callId);
    if (!doc) throw notFound('Call', req.params.callId);
    return reply.type('application/json; charset=utf-8').send(doc);
  });

  app.delete<{ Params: { callId: number } }>('/call/:callId', { schema: { params: idParam('callId') } }, async (req, reply) => {
    if (!stores.calls.delete(orgOf(req), req.params.callId)) throw notFound('Call', req.params.callId);
    return reply.code(204).send();
  });
}
