import { describe, expect, it } from 'vitest';
import {
  apiErrorFrom,
  AuthenticationError,
  BadRequestError,
  errorMessageFromBody,
  fateOf,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
} from '../../src/api/errors.js';
import { AuthError, MalformedResponseError, NetworkError, UnknownOutcomeError } from '../../src/errors.js';

const url = new URL('http://x/v1/sequence-manager/sequences/batch');

describe('error bodies of API.md are normalised', () => {
  it.each([
    [{ error: 'Bad Request', message: 'Payer 123 is not supported', statusCode: 400 }, 'Payer 123 is not supported'],
    [{ message: 'Check 9 not found', statusCode: 404, error: 'Not Found' }, 'Check 9 not found'],
    [{ error: 'Sequence not found' }, 'Sequence not found'],
    [{ error: 422, message: 'name is required' }, 'name is required'],
    [{ message: ['a is bad', 'b is bad'] }, 'a is bad; b is bad'],
    [{}, undefined],
    [[], undefined],
  ])('%j → %s', (body, msg) => {
    expect(errorMessageFromBody(body)).toBe(msg);
  });

  it.each([
    [400, 3, BadRequestError],
    [401, 4, AuthenticationError],
    [403, 4, Error],
    [404, 5, NotFoundError],
    [409, 3, Error],
    [413, 3, Error],
    [429, 1, RateLimitError],
    [500, 1, InternalServerError],
    [502, 1, InternalServerError],
    [503, 1, ServiceUnavailableError],
  ])('status %i → exit %i, typed', (status, exit, Cls) => {
    const err = apiErrorFrom('GET', url, status, '{"error":"x"}');
    expect(err.exitCode).toBe(exit);
    expect(err.status).toBe(status);
    expect(err).toBeInstanceOf(Cls);
  });
});

describe('non-JSON error bodies are summarised in one line', () => {
  const page = `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n${'<!-- padding -->\n'.repeat(20)}`;

  it('an nginx 502 page: status, reason, what it is; the page only for --debug', () => {
    const err = apiErrorFrom('POST', url, 502, page, { 'content-type': 'text/html' });
    expect(err.message).toBe('an HTML page, probably from a proxy or gateway in front of the service (POST /v1/sequence-manager/sequences/batch: 502 Bad Gateway)');
    expect(err.message).not.toContain('<');
    expect(err.message.split('\n')).toHaveLength(1);
    expect(err.rawBody).toBe(page);
    expect(JSON.stringify(err.details)).not.toContain('nginx');
    expect(err.hint).toContain('--debug');
  });

  it('HTML without a content type is still recognised', () => {
    expect(apiErrorFrom('GET', url, 500, '<!DOCTYPE html><p>x</p>').message).toMatch(/^an HTML page/);
  });

  it('a short plain-text answer is kept, first line only, cut at 200 characters', () => {
    expect(apiErrorFrom('GET', url, 500, 'upstream connect error\nreset reason: overflow', { 'content-type': 'text/plain' }).message).toBe(
      'upstream connect error (GET /v1/sequence-manager/sequences/batch: 500 Internal Server Error)',
    );
    const long = apiErrorFrom('GET', url, 500, 'x'.repeat(5000)).message;
    expect(long.length).toBeLessThan(300);
  });

  it('an empty body says so', () => {
    expect(apiErrorFrom('GET', url, 502, '').message).toBe('HTTP 502 Bad Gateway with an empty body (GET /v1/sequence-manager/sequences/batch: 502)');
  });
});

describe('fateOf: one decision for every write', () => {
  const status = (s: number) => apiErrorFrom('POST', url, s, '{"error":"x"}');
  it.each([
    [400, 'rejected'],
    [401, 'rejected'],
    [403, 'rejected'],
    [404, 'rejected'],
    [409, 'rejected'],
    [422, 'rejected'],
    [408, 'unknown'],
    [429, 'refused'],
    [503, 'refused'],
    [500, 'unknown'],
    [502, 'unknown'],
    [504, 'unknown'],
  ])('status %i → %s', (s, fate) => {
    expect(fateOf(status(s))).toBe(fate);
  });

  it('a 502 HTML page from a gateway is unknown, not "not created"', () => {
    expect(fateOf(apiErrorFrom('POST', url, 502, '<html><body>bad gateway</body></html>'))).toBe('unknown');
  });

  it('transport failures', () => {
    expect(fateOf(new UnknownOutcomeError('lost'))).toBe('unknown');
    expect(fateOf(new NetworkError('refused'))).toBe('not-sent');
    expect(fateOf(new AuthError('no key'))).toBe('not-sent');
    expect(fateOf(new MalformedResponseError('not JSON'))).toBe('unknown');
    expect(fateOf(new NetworkError('refused'), { aborted: true })).toBe('unknown');
    expect(fateOf(new Error('anything else'))).toBe('unknown');
    // A refusal stays a refusal even when Ctrl-C came meanwhile: the service answered.
    expect(fateOf(status(429), { aborted: true })).toBe('refused');
  });
});

describe('reword keeps what the error is', () => {
  it('an ApiError subclass keeps its class, status, exit code, Retry-After and raw body', async () => {
    const { reword } = await import('../../src/api/errors.js');
    const err = apiErrorFrom('POST', url, 503, '<html>busy</html>', { 'retry-after': '7' });
    const r = reword(err, 'The assistant may have been created: busy.', { hint: 'check first' });
    expect(r).toBeInstanceOf(ServiceUnavailableError);
    expect([r.message, r.hint, r.status, r.exitCode, r.retryAfterMs, r.rawBody]).toEqual(['The assistant may have been created: busy.', 'check first', 503, 1, 7000, '<html>busy</html>']);
    expect(fateOf(r)).toBe('refused');
  });
  it('other errors keep their exit code and code', async () => {
    const { reword } = await import('../../src/api/errors.js');
    const r = reword(new UnknownOutcomeError('lost', { hint: 'h' }), 'may have been applied');
    expect([r.message, r.exitCode, r.code, r.hint]).toEqual(['may have been applied', 6, 'unknown_outcome', 'h']);
  });
});
