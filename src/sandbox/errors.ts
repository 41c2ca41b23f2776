// Errors and the per-family error bodies of API.md:
//   standard   {error: "Bad Request", message, statusCode}   eligibility, calls, tools, phone numbers, auth
//   simple     {error: "<message>"}                          sequences, sequence definitions
//   assistant  {error: 400, message}                         assistants
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorField } from './validation.js';

export type ErrorShape = 'standard' | 'simple' | 'assistant';

/** An error a handler throws on purpose; `extra` is merged into the body (e.g. supported_payers). */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly field?: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: number | string) => new HttpError(404, `${what} ${id} not found`);
export const badRequest = (message: string, field?: string) => new HttpError(400, message, field);

export function errorBody(shape: ErrorShape, status: number, message: string, field?: string, extra?: Record<string, unknown>) {
  const withField = field ? { field } : {};
  switch (shape) {
    case 'simple':
      return { error: message, ...withField, ...extra };
    case 'assistant':
      return { error: status, message, ...withField, ...extra };
    default:
      return status >= 500
        ? { message, statusCode: status }
        : { error: STATUS_CODES[status] ?? 'Error', message, statusCode: status, ...withField, ...extra };
  }
}

// Friendlier texts for errors Fastify raises before a handler runs.
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request body is empty but content-type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body is larger than the 1 MiB limit',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content-type: send application/json',
};

export function makeErrorHandler(shape: ErrorShape, log: (line: string) => void) {
  return (err: FastifyError | HttpError, _req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).send(errorBody(shape, err.statusCode, err.message, err.field, err.extra));
    }
    const fe = err as FastifyError;
    if (fe.validation && fe.validation.length > 0) {
      return reply.code(400).send(errorBody(shape, 400, fe.message, errorField(fe.validation[0]!)));
    }
    const status = typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
    if (status === 500) {
      // Only the error's own text: request bodies may hold patient data.
      log(`internal error: ${fe.code ?? fe.name}: ${fe.message}`);
      return reply.code(500).send(errorBody(shape, 500, 'internal error in the sandbox'));
    }
    const message = (fe.code && FASTIFY_MESSAGES[fe.code]) || fe.message;
    return reply.code(status).send(errorBody(shape, status, message));
  };
}
