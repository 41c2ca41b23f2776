// Shared helpers for the sandbox HTTP tests: a sandbox on a free port and a tiny fetch client.
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export async function sandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, dbPath: ':memory:', eligibilityDelayMs: 0, ...opts });
}

export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export type Call = <T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer<T>>;

/** A client for one organisation; key null sends no Authorization header. */
export function client(sbx: RunningSandbox, key: string | null = sbx.organizations[0]!.api_key): Call {
  return async (method, path, body, headers = {}) => {
    const h: Record<string, string> = { ...headers };
    if (key !== null) h.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(sbx.baseUrl + path, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed as never, text, headers: res.headers };
  };
}

export const org2 = (sbx: RunningSandbox) => client(sbx, sbx.organizations[1]!.api_key);

/**
 * The same client over node:http with keep-alive, for tests that send thousands of requests (fetch
 * costs about twice the CPU per request). The server gets what fetch would send it: the URL as
 * fetch normalises it (WHATWG URL), the same headers, the body as UTF-8 with its length.
 */
export function fastClient(sbx: RunningSandbox, key: string | null = sbx.organizations[0]!.api_key): Call {
  const agent = new HttpAgent({ keepAlive: true });
  return (method, path, body, headers = {}) => {
    const url = new URL(sbx.baseUrl + path);
    const h: Record<string, string> = { accept: '*/*', ...headers };
    if (key !== null) h.authorization = `Bearer ${key}`;
    let payload: Buffer | undefined;
    if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      h['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers: h, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = undefined;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          const answerHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers)) for (const one of [v ?? []].flat()) answerHeaders.append(k, one);
          resolve({ status: res.statusCode ?? 0, body: parsed as never, text, headers: answerHeaders });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until fn returns a truthy value or the timeout passes. */
export async function waitFor<T>(fn: () => Promise<T> | T, timeoutMs = 5000, everyMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('waitFor: timed out');
    await sleep(everyMs);
  }
}

export interface Delivery {
  headers: IncomingMessage['headers'];
  body: any;
}

/** A webhook receiver whose behaviour the test controls: 'ok', 'fail' (503) or 'hang'. */
export class Receiver {
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  readonly deliveries: Delivery[] = [];
  attempts = 0;
  private server: Server | undefined;
  port = 0;

  async listen(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        this.attempts++;
        if (this.mode === 'hang') return; // never answers
        if (this.mode === 'fail') {
          res.writeHead(503).end('down');
          return;
        }
        this.deliveries.push({ headers: req.headers, body: JSON.parse(data) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server!.close(() => r()));
    this.server = undefined;
  }
}

export const validEligibility = (memberId = 'M123456781', extra: Record<string, unknown> = {}) => ({
  patient: { first_name: 'Jane', last_name: 'Doe', date_of_birth: '1980-04-12', member_id: memberId, customer_patient_id: 'P-001' },
  insurance: { payer_id: '87726' },
  provider: { organization_name: 'Sandbox Medical Group', npi: '1234567893' },
  ...extra,
});
