// The one place that reads a failed request: the service's non-2xx answers become typed errors (one
// class per status family, after openai-node), their bodies are normalised once, and `fateOf` says
// what a failure means for anything the request could have created or changed. Batch creates,
// eligibility bulk, `calls delete`, `assistants create` and `tools patch` all decide with it.
import { STATUS_CODES } from 'node:http';
import {
  ApiError,
  AuthError,
  CliError,
  ExitCode,
  MalformedResponseError,
  NetworkError,
  UnknownOutcomeError,
  type CliErrorOptions,
} from '../errors.js';
import { terminalSafe } from '../output/safe.js';
import { parseRetryAfter, type AttemptFailure } from './retry.js';

type ApiErrorOptions = ConstructorParameters<typeof ApiError>[2];

export class BadRequestError extends ApiError {}
/** 401: the key was refused. */
export class AuthenticationError extends ApiError {}
/** 403: the key is known but may not do this. */
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}
export class UnprocessableEntityError extends ApiError {}
/** 429: refused before acting; `retryAfterMs` says when to come back. */
export class RateLimitError extends ApiError {}
/** 503: refused before acting (overloaded, in maintenance). */
export class ServiceUnavailableError extends ApiError {}
/** Any other 5xx, a gateway's 502/504 included: the service (or what stands before it) may have acted. */
export class InternalServerError extends ApiError {}

function classFor(status: number): new (message: string, exitCode: number, opts: ApiErrorOptions) => ApiError {
  if (status === 400) return BadRequestError;
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 422) return UnprocessableEntityError;
  if (status === 429) return RateLimitError;
  if (status === 503) return ServiceUnavailableError;
  if (status >= 500) return InternalServerError;
  return ApiError;
}

function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 400 || status === 409 || status === 413 || status === 422) return ExitCode.validation;
  return ExitCode.service;
}

/**
 * What a failed request means for what it may have done:
 * - `not-sent`: it never reached the service (connection refused, no key): nothing happened;
 * - `refused`: the service turned it away before acting (429, 503): nothing happened, and asking
 *   again later is safe;
 * - `rejected`: the service answered no (another 4xx): nothing happened; asking again as is will
 *   be refused again;
 * - `unknown`: it may have acted (timeout or connection lost after sending, a 5xx — a gateway's 502
 *   included — an answer we cannot read, a request cut off by Ctrl-C).
 */
export type Fate = 'not-sent' | 'refused' | 'rejected' | 'unknown';

export function fateOf(err: unknown, opts: { aborted?: boolean } = {}): Fate {
  if (err instanceof ApiError) {
    const s = err.status ?? 0;
    if (s === 429 || s === 503) return 'refused';
    if (s >= 400 && s < 500 && s !== 408) return 'rejected';
    return 'unknown';
  }
  if (err instanceof UnknownOutcomeError) return 'unknown';
  // Ctrl-C while the request was in flight: it may have arrived.
  if (opts.aborted) return 'unknown';
  if (err instanceof MalformedResponseError) return 'unknown';
  if (err instanceof AuthError) return 'not-sent';
  // The http core turns a request that may have been received into UnknownOutcomeError; any other
  // network failure of a write means the connection was never made.
  if (err instanceof NetworkError) return 'not-sent';
  return 'unknown';
}

/**
 * The fate of one failed attempt the http core is about to repeat. The core reports it as an
 * AttemptFailure (a status or a lost/unmade connection), not as an error: it is turned into the error
 * it stands for and decided by fateOf.
 */
export function fateOfAttempt(failure: AttemptFailure): Fate {
  if (failure.kind === 'status') return fateOf(new ApiError('', ExitCode.service, { status: failure.status, method: '', path: '' }));
  return fateOf(failure.kind === 'lost' ? new UnknownOutcomeError('') : new NetworkError(''));
}

/**
 * The same failure in other words: a command that knows what a failure means for the user (e.g.
 * "the assistant may have been created") rewords it without losing its class, status, exit code,
 * body or Retry-After. `details`/`body` replace the originals when given (e.g. scrubbed of a secret).
 */
export function reword<E extends CliError>(err: E, message: string, opts: { hint?: string; details?: unknown; body?: unknown } = {}): E {
  const hint = opts.hint ?? err.hint;
  if (err instanceof ApiError) {
    const Cls = err.constructor as new (message: string, exitCode: number, o: ApiErrorOptions) => ApiError;
    const { method, path, rawBody, requestId, retryAfterMs, status, code } = err;
    const details = 'details' in opts ? opts.details : err.details;
    const body = 'body' in opts ? opts.body : err.body;
    return new Cls(message, err.exitCode, { method, path, body, rawBody, requestId, retryAfterMs, status, code, details, hint }) as unknown as E;
  }
  return new CliError(message, err.exitCode, { code: err.code, status: err.status, details: 'details' in opts ? opts.details : err.details, hint }) as E;
}

/** One sentence for a fate, to follow "the rows were …" or "the call was …" style messages. */
export function fateText(fate: Fate): string {
  switch (fate) {
    case 'not-sent':
      return 'the request never reached the service';
    case 'refused':
      return 'the service refused it before acting (it is safe to send again later)';
    case 'rejected':
      return 'the service rejected it';
    case 'unknown':
      return 'the service may or may not have acted on it';
  }
}

// ---- error bodies ------------------------------------------------------------------------------

/**
 * The service's own message from any of API.md's error bodies, or undefined. It becomes an error
 * message shown on a terminal, so it is made inert (escape sequences shown as `\e`, on one line);
 * the body itself stays as sent in the error's `body`/`details`.
 */
export function errorMessageFromBody(body: unknown): string | undefined {
  const found = rawMessageFromBody(body);
  return found === undefined ? undefined : terminalSafe(found);
}

function rawMessageFromBody(body: unknown): string | undefined {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (typeof b.message === 'string' && b.message.trim()) return b.message.trim();
    if (Array.isArray(b.message) && b.message.length) return b.message.map(String).join('; ');
    if (typeof b.error === 'string' && b.error.trim()) return b.error.trim();
    if (b.error && typeof b.error === 'object' && typeof (b.error as { message?: unknown }).message === 'string') {
      return (b.error as { message: string }).message;
    }
    if (typeof b.detail === 'string' && b.detail.trim()) return b.detail.trim();
  }
  return undefined;
}

const MAX_TEXT_MESSAGE = 200;

/**
 * A non-JSON error body in one line: a short plain-text answer as it is (first line, cut), an HTML
 * page (a proxy's or gateway's error page) as what it is, never the page itself.
 */
function summariseTextBody(text: string, contentType: string | undefined): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (/html/i.test(contentType ?? '') || /^<(!doctype|html|head|body|\?xml)/i.test(trimmed) || /<\/(html|body|h1|title)>/i.test(trimmed)) {
    return 'an HTML page, probably from a proxy or gateway in front of the service';
  }
  // Cut first (at a code point), then made inert: the line may hold escape sequences.
  const firstLine = [...trimmed.split(/\r?\n/, 1)[0]!.trim()];
  return terminalSafe(firstLine.length > MAX_TEXT_MESSAGE ? `${firstLine.slice(0, MAX_TEXT_MESSAGE).join('')}…` : firstLine.join(''));
}

/** The first value of a header that may repeat. */
export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The typed error for a non-2xx answer. */
export function apiErrorFrom(
  method: string,
  url: URL,
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined> = {},
): ApiError {
  let body: unknown;
  let isJson = false;
  if (text.trim()) {
    try {
      body = JSON.parse(text);
      isJson = true;
    } catch {
      body = text;
    }
  }
  const reason = STATUS_CODES[status] ?? 'error';
  const serviceMessage = isJson ? errorMessageFromBody(body) : summariseTextBody(text, headerValue(headers['content-type']));
  const message = serviceMessage ?? `HTTP ${status} ${reason}${isJson ? '' : text.trim() ? '' : ' with an empty body'}`;
  const requestId = headerValue(headers['x-request-id']);
  const where = `${method} ${url.pathname}`;
  const hint =
    status === 401 || status === 403
      ? 'Check the API key: run `outreach login`, or set OUTREACH_API_KEY.'
      : status === 429
        ? 'The service is rate limiting; try again later.'
        : !isJson && text.trim()
          ? 'Run again with --debug to see the body of the answer.'
          : undefined;
  const opts: ApiErrorOptions & CliErrorOptions = {
    status,
    code: `http_${status}`,
    // A page that is not JSON is not echoed (it can be large, and hostile): --debug shows it.
    details: isJson ? body : { status, reason, body: 'not JSON' },
    body: isJson ? body : undefined,
    rawBody: isJson ? undefined : text,
    method,
    path: url.pathname,
    requestId,
    hint,
    retryAfterMs: parseRetryAfter(headerValue(headers['retry-after']), Date.now()),
  };
  const Cls = classFor(status);
  return new Cls(`${message} (${where}: ${status}${serviceMessage && !isJson ? ` ${reason}` : ''})`, exitCodeForStatus(status), opts);
}
