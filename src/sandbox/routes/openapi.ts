import type { FastifyInstance } from 'fastify';

// Filled in later; the route exists so clients can probe for it.
export function openapiRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', async () => ({ openapi: '3.1.0', info: { title: 'Outreach sandbox', version: '1.0.0' }, paths: {} }));
}
