// Timeouts that hold: per attempt (headers and body), for one logical request in all, under Ctrl-C,
// and the retry notice. Real timers and a real server; bounds are generous for a busy 2-core machine
// but far below what a lost timer would take.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type RetryNotice } from '../../src/api/http.js';
import { DEFAULT_RETRY_POLICY, defaultTotalTimeoutMs } from '../../src/api/retry.js';
import { createContext, type GlobalOptions } from '../../src/context.js';
import { NetworkError } from '../../src/errors.js';
import { createTestIo } from '../../src/io.js';
import { withDeadline } from '../../src/util/deadline.js';
import { json, startFaultServer, type Behaviour, type FaultServer } from '../helpers/faultServer.js';

/** Reads the request, never answers. */
const hang: Behaviour = () => new Promise<void>(() => undefined);
/** Sends the headers and part of the body, then nothing more. */
const stallBody: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
  res.write('[{"id": 1');
  return new Promise<void>(() => undefined);
};

let server: FaultServer | undefined;
let client: HttpClient | undefined;
// The first fetch of a process loads undici, which on a busy machine can eat a short timeout
// before anything is sent.
beforeAll(async () => {
  const warm = await startFaultServer(json(200, []));
  const c = new HttpClient({ baseUrl: warm.url, timeoutMs: 30_000 });
  await c.get('/health');
  await c.close();
  await warm.close();
});
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

async function timed<T>(work: Promise<T>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { ms: performance.now() - started, error };
}

describe('withDeadline', () => {
  it('aborts with a TimeoutError and says it timed out', async () => {
    const d = withDeadline(20);
    await new Promise((r) => setTimeout(r, 60));
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as Error).name).toBe('TimeoutError');
    expect(d.timedOut).toBe(true);
    d.clear();
  });

  it('follows the parent, and clear() unlinks it and stops the timer', async () => {
    const parent = new AbortController();
    const d = withDeadline(20, parent.signal);
    parent.abort(new Error('ctrl-c'));
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as Error).message).toBe('ctrl-c');
    await new Promise((r) => setTimeout(r, 60));
    expect(d.timedOut).toBe(false);
    d.clear();

    const parent2 = new AbortController();
    const d2 = withDeadline(20, parent2.signal);
    d2.clear();
    parent2.abort();
    await new Promise((r) => setTimeout(r, 60));
    expect(d2.signal.aborted).toBe(false);
  });
});

describe('a service that never answers', () => {
  it('fails within the bound of all attempts and backoffs, as a timeout (exit 6)', async () => {
    server = await startFaultServer(hang);
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 300, retry: { maxRetries: 2, baseDelayMs: 20 } });
    // 3 × 300 ms + backoffs of at most 20 + 40 ms
    const bound = defaultTotalTimeoutMs(300, { ...DEFAULT_RETRY_POLICY, maxRetries: 2, baseDelayMs: 20 });
    expect(bound).toBe(960);
    const { ms, error } = await timed(client.get('/call'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ exitCode: 6, code: 'timeout' });
    expect((error as Error).message).toMatch(/timed out after 300 ms \(3 attempts, (\d+ ms|[\d.]+ s) in all\)\.$/);
    expect(server.requests).toHaveLength(3);
    expect(ms).toBeGreaterThanOrEqual(880);
    expect(ms).toBeLessThan(bound + 2000);
  });

  it('one attempt: says the timeout, nothing more', async () => {
    server = await startFaultServer(hang);
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 200, retry: { maxRetries: 0 } });
    const { error } = await timed(client.get('/call'));
    expect((error as Error).message).toBe(`The service at 127.0.0.1:${server.port} timed out after 200 ms.`);
  });

  it('the timeout also covers a body that stops arriving', async () => {
    server = await startFaultServer(stallBody);
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 300, retry: { maxRetries: 1, baseDelayMs: 20 } });
    const { ms, error } = await timed(client.get('/call'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ exitCode: 6, code: 'timeout' });
    expect((error as Error).message).toMatch(/timed out after 300 ms \(2 attempts/);
    expect(server.requests).toHaveLength(2);
    expect(ms).toBeLessThan(620 + 2000);
  });

  it('a POST whose body stopped arriving has an unknown outcome and is not repeated', async () => {
    server = await startFaultServer(stallBody);
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 200, retry: { maxRetries: 3, baseDelayMs: 20 } });
    const { error } = await timed(client.post('/eligibility', { a: 1 }));
    expect(error).toMatchObject({ code: 'unknown_outcome', exitCode: 6 });
    expect(server.requests).toHaveLength(1);
  });

  it('totalTimeoutMs cuts the attempts short and the message says what happened', async () => {
    server = await startFaultServer(hang);
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 300, totalTimeoutMs: 700, retry: { maxRetries: 10, baseDelayMs: 10 } });
    const { ms, error } = await timed(client.get('/call'));
    expect(error).toMatchObject({ exitCode: 6, code: 'timeout' });
    // 300 + wait + 300 fits in 700; a third 300 does not
    expect(server.requests).toHaveLength(2);
    expect((error as Error).message).toMatch(/timed out after 300 ms \(2 attempts, \d+ ms in all; no time left for another attempt within the 700 ms allowed for this request\)\.$/);
    expect(ms).toBeLessThan(700 + 2000);
  });

  it('Ctrl-C stops a waiting attempt at once', async () => {
    server = await startFaultServer(hang);
    const ctrl = new AbortController();
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 30_000, signal: ctrl.signal });
    setTimeout(() => ctrl.abort(new Error('interrupted')), 100);
    const { ms, error } = await timed(client.get('/call'));
    expect((error as Error).message).toBe('interrupted');
    expect(ms).toBeLessThan(2000);
  });

  it('Ctrl-C stops a backoff wait at once', async () => {
    server = await startFaultServer(json(429, {}, { 'retry-after': '20' }));
    const ctrl = new AbortController();
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 30_000, signal: ctrl.signal });
    setTimeout(() => ctrl.abort(new Error('interrupted')), 200);
    const { ms, error } = await timed(client.get('/call'));
    expect((error as Error).message).toBe('interrupted');
    expect(ms).toBeLessThan(2000);
  });
});

describe('Retry-After and the time budget', () => {
  it('a Retry-After longer than what is left: gives up at once and says what the service asked', async () => {
    server = await startFaultServer(json(429, { message: 'slow down' }, { 'retry-after': '30' }));
    // budget: 4 × 1 s + 0.5 + 1 + 2 s = 7.5 s
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 1000 });
    const { ms, error } = await timed(client.get('/call'));
    expect(error).toMatchObject({ status: 429 });
    expect((error as Error).message).toContain('slow down');
    expect((error as Error).message).toMatch(/; the service asked to wait 30 s; with another attempt \(up to 1 s\) that would exceed the 7\.5 s allowed for this request$/);
    expect(server.requests).toHaveLength(1);
    expect(ms).toBeLessThan(2000);
  });

  it('a Retry-After that fits is honoured', async () => {
    server = await startFaultServer([json(503, {}, { 'retry-after': '0.3' }), json(200, ['ok'])]);
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 1000 });
    const { ms } = await timed(client.get('/call'));
    expect(server.requests).toHaveLength(2);
    expect(ms).toBeGreaterThanOrEqual(280);
  });
});

describe('the retry notice', () => {
  it('is told each retry: attempt, reason and wait, with the path but never the query; then the end once', async () => {
    server = await startFaultServer([json(503, {}), hang, json(200, [])]);
    const notices: RetryNotice[] = [];
    const ends: object[] = [];
    client = new HttpClient({
      baseUrl: server.url,
      timeoutMs: 300,
      retry: { baseDelayMs: 20 },
      onRetryNotice: (n) => notices.push(n),
      onRetryEnd: (request) => ends.push(request),
    });
    await client.get('/call', { query: { customer_patient_id: 'MRN-555' } });
    const request = notices[0]?.request;
    expect(notices).toEqual([
      { request, method: 'GET', path: '/call', attempt: 2, maxAttempts: 4, reason: 'status 503', failure: { kind: 'status', status: 503, retryAfter: undefined }, waitMs: expect.any(Number) },
      { request, method: 'GET', path: '/call', attempt: 3, maxAttempts: 4, reason: 'timed out after 300 ms', failure: { kind: 'lost', code: 'timeout' }, waitMs: expect.any(Number) },
    ]);
    expect(ends).toEqual([request]);
    expect(JSON.stringify(notices)).not.toContain('MRN-555');
    // A request answered at once is never told of (no retry, no end).
    await client.get('/call');
    expect(notices).toHaveLength(2);
    expect(ends).toHaveLength(1);
  });

  it('is ended when the request fails after its retries too', async () => {
    server = await startFaultServer(json(503, {}));
    const ends: object[] = [];
    client = new HttpClient({ baseUrl: server.url, timeoutMs: 300, retry: { baseDelayMs: 5, maxRetries: 2 }, onRetryEnd: (r) => ends.push(r) });
    await expect(client.get('/call')).rejects.toThrow();
    expect(server.requests).toHaveLength(3);
    expect(ends).toHaveLength(1);
  });

  describe('wired in the context', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-notice-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const run = async (opts: { tty: boolean; quiet?: boolean }) => {
      server = await startFaultServer([json(503, {}), json(200, [])]);
      const t = createTestIo({ tty: opts.tty, quiet: opts.quiet });
      const globals: GlobalOptions = {
        format: 'json',
        formatExplicit: true,
        quiet: opts.quiet ?? false,
        debug: false,
        requestTimeoutSec: 2,
        noInput: true,
      };
      const env = { OUTREACH_API_KEY: 'k', OUTREACH_BASE_URL: server.url, OUTREACH_CONFIG_DIR: dir, OUTREACH_RETRY_BASE_MS: '20', OUTREACH_MAX_RETRIES: '1' };
      const ctx = createContext({ io: t.io, env, globals, signal: new AbortController().signal });
      client = await ctx.client();
      await client.get('/call', { query: { customer_patient_id: 'MRN-555' } });
      return t.stderr();
    };

    it('shows a transient status line on a terminal, cleared when the request succeeds', async () => {
      const err = await run({ tty: true });
      expect(err).toBe('\r\u001b[2KService unavailable (503); retry 1 of 1…\r\u001b[2K');
      expect(err).not.toContain('MRN-555');
    });
    it('prints nothing when stderr is not a terminal', async () => {
      expect(await run({ tty: false })).toBe('');
    });
    it('prints nothing with --quiet', async () => {
      expect(await run({ tty: true, quiet: true })).toBe('');
    });
  });
});
