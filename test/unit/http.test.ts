// The retry and timeout policy, through real HTTP against a server that misbehaves on request.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { drop, json, slow, startFaultServer, text, truncated, type FaultServer } from '../helpers/faultServer.js';

let server: FaultServer | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

function makeClient(baseUrl: string, opts: { timeoutMs?: number; sleeps?: number[] } = {}) {
  client = new HttpClient({
    baseUrl,
    apiKey: 'test-key-1234',
    timeoutMs: opts.timeoutMs ?? 2000,
    retry: { baseDelayMs: 5, maxRetries: 3 },
    sleep: async (ms) => {
      opts.sleeps?.push(ms);
    },
  });
  return client;
}

describe('GET recovers from transient failures', () => {
  it('retries 503s and succeeds', async () => {
    server = await startFaultServer([json(503, { message: 'busy' }), json(503, { message: 'busy' }), json(200, [{ id: 1 }])]);
    const res = await makeClient(server.url).get('/call');
    expect(res.data).toEqual([{ id: 1 }]);
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After on 429', async () => {
    const sleeps: number[] = [];
    server = await startFaultServer([json(429, { message: 'slow down' }, { 'retry-after': '2' }), json(200, [])]);
    await makeClient(server.url, { sleeps }).get('/call');
    expect(sleeps).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a dropped connection', async () => {
    server = await startFaultServer([drop, json(200, { ok: true })]);
    const res = await makeClient(server.url).get('/phone-number');
    expect(res.data).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it('times out slow answers and retries them', async () => {
    server = await startFaultServer([slow(1500, json(200, [])), json(200, ['fast'])]);
    const res = await makeClient(server.url, { timeoutMs: 300 }).get('/call');
    expect(res.data).toEqual(['fast']);
  });

  it('gives up after the retries with a network error naming the host (exit 6)', async () => {
    server = await startFaultServer(slow(1500, json(200, [])));
    const c = makeClient(server.url, { timeoutMs: 200 });
    await expect(c.get('/call')).rejects.toMatchObject({ exitCode: 6, message: expect.stringContaining(`127.0.0.1:${server.port}`) });
    expect(server.requests).toHaveLength(4);
  });

  it('reports a refused connection as a network error after retries', async () => {
    server = await startFaultServer(json(200, {}));
    const url = server.url;
    await server.close();
    server = undefined;
    await expect(makeClient(url).get('/call')).rejects.toMatchObject({ exitCode: 6, message: expect.stringMatching(/refused the connection after 4 attempts/) });
  });

  it('does not retry a 404', async () => {
    server = await startFaultServer(json(404, { message: 'Check 9 not found', statusCode: 404, error: 'Not Found' }));
    await expect(makeClient(server.url).get('/eligibility/9')).rejects.toMatchObject({ exitCode: 5, status: 404, message: expect.stringContaining('Check 9 not found') });
    expect(server.requests).toHaveLength(1);
  });
});

describe('a POST is not repeated after the server may have acted on it', () => {
  it('500: no retry, service error', async () => {
    server = await startFaultServer(json(500, { message: 'boom', statusCode: 500 }));
    await expect(makeClient(server.url).post('/eligibility', { a: 1 })).rejects.toMatchObject({ exitCode: 1, status: 500 });
    expect(server.requests).toHaveLength(1);
  });

  it('connection dropped after sending: no retry, outcome unknown', async () => {
    server = await startFaultServer([drop, json(200, { id: 1 })]);
    await expect(makeClient(server.url).post('/eligibility', { a: 1 })).rejects.toMatchObject({ code: 'unknown_outcome', exitCode: 6 });
    expect(server.requests).toHaveLength(1);
  });

  it('timeout after sending: no retry, outcome unknown', async () => {
    server = await startFaultServer(slow(1000, json(200, { id: 1 })));
    await expect(makeClient(server.url, { timeoutMs: 200 }).post('/sequence-manager/sequences/batch', {})).rejects.toMatchObject({ code: 'unknown_outcome' });
    expect(server.requests).toHaveLength(1);
  });

  it('503 and 429 mean refused before acting: retried', async () => {
    server = await startFaultServer([json(503, {}), json(429, {}), json(201, { id: 7 })]);
    const res = await makeClient(server.url).post('/eligibility', { a: 1 });
    expect(res.data).toEqual({ id: 7 });
    expect(server.requests).toHaveLength(3);
  });

  it('an idempotent POST (validate_only) may be retried after a drop', async () => {
    server = await startFaultServer([drop, json(200, { valid: true })]);
    const res = await makeClient(server.url).post('/sequence-manager/sequences/batch', { validate_only: true }, { idempotent: true });
    expect(res.data).toEqual({ valid: true });
    expect(server.requests).toHaveLength(2);
  });
});

describe('tolerant but strict reading', () => {
  it('a non-JSON body is a service error naming the status', async () => {
    server = await startFaultServer(text(200, '<html>proxy login</html>'));
    await expect(makeClient(server.url).get('/call')).rejects.toMatchObject({ exitCode: 1, status: 200, message: expect.stringMatching(/status 200.*not valid JSON/) });
  });

  it('a truncated body is a service error naming the status (after retrying a GET)', async () => {
    server = await startFaultServer(truncated);
    await expect(makeClient(server.url).get('/call')).rejects.toMatchObject({ exitCode: 1, status: 200, code: 'truncated_body' });
    expect(server.requests).toHaveLength(4);
  });

  it('an empty 204 body reads as undefined', async () => {
    server = await startFaultServer((_q, res) => {
      res.writeHead(204);
      res.end();
    });
    const res = await makeClient(server.url).delete('/call/1');
    expect(res.status).toBe(204);
    expect(res.data).toBeUndefined();
  });

  it('sends the bearer key, and no key on anonymous requests', async () => {
    server = await startFaultServer(json(200, {}));
    const c = makeClient(server.url);
    await c.get('/call');
    await c.get('/health', { anonymous: true });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key-1234');
    expect(server.requests[1]!.headers.authorization).toBeUndefined();
  });

  it('accepts paths with or without the /v1 prefix', async () => {
    server = await startFaultServer(json(200, {}));
    const c = makeClient(server.url);
    await c.get('/v1/call');
    await c.get('call', { query: { limit: 5, since: undefined } });
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/call', '/v1/call?limit=5']);
  });

  it('traces without the key or patient query values', async () => {
    server = await startFaultServer([json(503, {}), json(200, [])]);
    const lines: string[] = [];
    client = new HttpClient({ baseUrl: server.url, apiKey: 'secret-key-9876', timeoutMs: 1000, retry: { baseDelayMs: 1 }, trace: (l) => lines.push(l) });
    await client.get('/eligibility', { query: { customer_patient_id: 'MRN-555', limit: 3 } });
    const all = lines.join('\n');
    expect(all).toContain('retrying');
    expect(all).toContain('limit=3');
    expect(all).not.toContain('MRN-555');
    expect(all).not.toContain('secret-key-9876');
  });
});
