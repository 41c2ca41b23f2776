// The Fastify app: auth, JSON parsing, validation, and one plugin per route family so each family
// answers errors in the body shape API.md gives it.
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { setOrg, type SandboxContext } from './context.js';
import { errorBody, makeErrorHandler, type ErrorShape } from './errors.js';
import { assistantRoutes } from './routes/assistants.js';
import { callRoutes } from './routes/calls.js';
import { definitionRoutes } from './routes/definitions.js';
import { eligibilityRoutes } from './routes/eligibility.js';
import { healthRoutes } from './routes/health.js';
import { openApi } from './routes/openapi.js';
import { phoneNumberRoutes } from './routes/phoneNumbers.js';
import { sequenceRoutes } from './routes/sequences.js';
import { toolRoutes } from './routes/tools.js';
import { schemaErrorFormatter, validatorCompiler } from './validation.js';
import { nestedDeeperThan } from '../util/jsonDepth.js';

const BODY_LIMIT = 1024 * 1024;
/** Objects and arrays inside one another, at most (the deepest real body is about 6). */
const MAX_JSON_DEPTH = 64;

const PUBLIC_PATHS = new Set(['/v1/health', '/v1/openapi.json']);
const BEARER = /^Bearer\s+(\S+)\s*$/i;

type RouteFamily = (app: FastifyInstance, ctx: SandboxContext) => void;
const FAMILIES: [ErrorShape, RouteFamily][] = [
  ['standard', healthRoutes],
  ['standard', eligibilityRoutes],
  ['simple', sequenceRoutes],
  ['simple', definitionRoutes],
  ['assistant', assistantRoutes],
  ['standard', callRoutes],
  ['standard', phoneNumberRoutes],
  ['standard', toolRoutes],
];

export function buildServer(ctx: SandboxContext): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, schemaErrorFormatter, return503OnClosing: true });
  app.setValidatorCompiler(validatorCompiler);

  // Our own JSON parser: an empty body is "no body" (DELETE with a content-type header is fine),
  // and a malformed or too deeply nested one is a 400 that says so.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      const err = new Error(`request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays`) as FastifyError;
      err.statusCode = 400;
      return done(err, undefined);
    }
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      const err = new Error(`request body is not valid JSON: ${(e as Error).message}`) as FastifyError;
      err.statusCode = 400;
      done(err, undefined);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?', 1)[0]!;
    if (PUBLIC_PATHS.has(path)) return;
    const m = BEARER.exec(req.headers.authorization ?? '');
    const org = m ? ctx.stores.orgs.orgForKey(m[1]!) : undefined;
    if (org === undefined) {
      const message = m ? 'The API key is not valid' : 'Missing Authorization header: send Authorization: Bearer <API key>';
      return reply.code(401).header('www-authenticate', 'Bearer').send(errorBody('standard', 401, message));
    }
    setOrg(req, org);
  });

  // Method, path (no query string: it can hold patient ids), status, time. Never headers or bodies.
  if (ctx.logRequests) {
    app.addHook('onResponse', async (req, reply) => {
      ctx.log(`${req.method} ${req.url.split('?', 1)[0]} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
    });
  }

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody('standard', 404, `No route ${req.method} ${req.url.split('?', 1)[0]}`));
  });
  app.setErrorHandler(makeErrorHandler('standard', ctx.log));

  const openapi = openApi();
  app.addHook('onRoute', openapi.collect);
  for (const [shape, routes] of [...FAMILIES, ['standard', openapi.routes] as [ErrorShape, RouteFamily]]) {
    app.register(
      async (scope) => {
        scope.setErrorHandler(makeErrorHandler(shape, ctx.log));
        routes(scope, ctx);
      },
      { prefix: '/v1' },
    );
  }
  return app;
}
