// GET /v1/openapi.json: an OpenAPI 3.1 document built from the routes' own JSON schemas, so it
// cannot drift from what the sandbox validates. Responses are described, not schematised.
import type { FastifyInstance, RouteOptions } from 'fastify';

interface Collected {
  method: string;
  url: string;
  schema: { body?: object; querystring?: { properties?: Record<string, object>; required?: string[] }; params?: { properties?: Record<string, object> } };
}

/** One per server: `collect` is its onRoute hook, `routes` registers GET /openapi.json. */
export function openApi() {
  const collected: Collected[] = [];
  return {
    collect(r: RouteOptions): void {
      const methods = Array.isArray(r.method) ? r.method : [r.method];
      for (const m of methods) {
        if (m === 'HEAD' || !r.url.startsWith('/v1/')) continue;
        collected.push({ method: m.toLowerCase(), url: r.url, schema: (r.schema ?? {}) as Collected['schema'] });
      }
    },
    routes(app: FastifyInstance): void {
      let cached: object | undefined;
      app.get('/openapi.json', async () => (cached ??= document(collected)));
    },
  };
}

const strip = (s: object): object => JSON.parse(JSON.stringify(s, (k, v) => (k === 'x-hint' ? undefined : v)));

function document(routes: Collected[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.url === '/v1/openapi.json') continue;
    const path = r.url.slice(3).replace(/:(\w+)/g, '{$1}');
    const parameters = [
      ...Object.entries(r.schema.params?.properties ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema: strip(schema) })),
      ...Object.entries(r.schema.querystring?.properties ?? {}).map(([name, schema]) => ({
        name,
        in: 'query',
        required: r.schema.querystring?.required?.includes(name) ?? false,
        schema: strip(schema),
      })),
    ];
    const isPublic = path === '/health';
    paths[path] ??= {};
    paths[path][r.method] = {
      ...(parameters.length ? { parameters } : {}),
      ...(r.schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: strip(r.schema.body) } } } } : {}),
      ...(isPublic ? { security: [] } : {}),
      responses: {
        [r.method === 'delete' ? '204' : r.method === 'post' && path !== '/sequence-manager/sequences/batch' ? '201' : '200']: { description: 'Success' },
        ...(r.schema.body || parameters.length ? { 400: { description: 'Invalid request; the message names the field' } } : {}),
        ...(isPublic ? {} : { 401: { description: 'Missing or unknown API key' } }),
        ...(path.includes('{') ? { 404: { description: 'Not found in the caller\'s organisation' } } : {}),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Patient Outreach and Insurance Eligibility Service (local sandbox)', version: '1.0.0' },
    servers: [{ url: '/v1' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
