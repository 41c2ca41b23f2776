// A local HTTP receiver for the service's webhooks: checks the bearer secret, answers at once, then
// optionally forwards the delivery unchanged and reports each one through callbacks. Prints nothing
// itself (the command decides how to show deliveries).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAuthorization, classify, summarise, type DeliveryKind } from './classify.js';
import { untilAborted, withDeadline } from '../util/deadline.js';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface ForwardResult {
  url: string;
  status?: number;
  error?: string;
  ms: number;
}

export interface Delivery {
  received_at: string;
  method: string;
  path: string;
  kind: DeliveryKind;
  /** true: the secret matched; null: no secret configured, nothing checked. */
  authenticated: boolean | null;
  event: string | null;
  delivery_id: string | null;
  attempt: number | null;
  content_type: string | null;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  summary: string;
  forward?: ForwardResult;
}

export interface Rejection {
  received_at: string;
  path: string;
  remote: string;
  reason: 'missing' | 'mismatch' | 'too-large';
}

export interface ListenerOptions {
  port: number;
  host: string;
  secret?: string;
  forwardTo?: string;
  forwardTimeoutMs?: number;
  onDelivery(d: Delivery): void;
  onRejected(r: Rejection): void;
  now?: () => Date;
}

export interface RunningListener {
  url: string;
  port: number;
  deliveries: number;
  rejected: number;
  close(): Promise<void>;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export async function startListener(opts: ListenerOptions): Promise<RunningListener> {
  const now = opts.now ?? (() => new Date());
  const closing = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const state = { deliveries: 0, rejected: 0 };

  const forward = async (raw: Buffer, req: IncomingMessage): Promise<ForwardResult> => {
    const url = opts.forwardTo!;
    const headers: Record<string, string> = { 'content-type': header(req, 'content-type') ?? 'application/json' };
    const auth = header(req, 'authorization');
    if (auth !== undefined) headers.authorization = auth;
    for (const h of ['x-outreach-event', 'x-outreach-delivery', 'x-outreach-attempt', 'user-agent']) {
      const v = header(req, h);
      if (v !== undefined) headers[h] = v;
    }
    const started = performance.now();
    // Not AbortSignal.any + AbortSignal.timeout: on Node 20 that timer can be lost (see util/deadline.ts).
    const deadline = withDeadline(opts.forwardTimeoutMs ?? 10_000, closing.signal);
    try {
      const res = await fetch(url, { method: 'POST', headers, body: raw, signal: deadline.signal });
      await untilAborted(res.arrayBuffer(), deadline.signal).catch(() => undefined);
      return { url, status: res.status, ms: Math.round(performance.now() - started) };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      const error = deadline.timedOut ? 'timed out' : closing.signal.aborted ? 'stopped' : (err.cause?.code ?? err.message);
      return { url, error, ms: Math.round(performance.now() - started) };
    } finally {
      deadline.clear();
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    const receivedAt = now().toISOString();
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const auth = checkAuthorization(header(req, 'authorization'), opts.secret);
    if (auth === 'missing' || auth === 'mismatch') {
      state.rejected++;
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"Unauthorized"}');
      opts.onRejected({ received_at: receivedAt, path, remote: req.socket.remoteAddress ?? '?', reason: auth });
      return;
    }
    // Answer first: the service should never wait for the forward or for the terminal.
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    state.deliveries++;
    const text = raw.toString('utf8');
    let body: unknown = text;
    try {
      body = text.trim() === '' ? null : JSON.parse(text);
    } catch {
      body = text;
    }
    const kind = typeof body === 'string' || body === null ? 'unrecognised' : classify(body);
    const attempt = Number(header(req, 'x-outreach-attempt'));
    const delivery: Delivery = {
      received_at: receivedAt,
      method: req.method ?? 'POST',
      path,
      kind,
      authenticated: auth === 'ok' ? true : null,
      event: header(req, 'x-outreach-event') ?? null,
      delivery_id: header(req, 'x-outreach-delivery') ?? null,
      attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
      content_type: header(req, 'content-type') ?? null,
      body,
      summary: summarise(kind, body),
    };
    if (!opts.forwardTo) {
      opts.onDelivery(delivery);
      return;
    }
    const p = forward(raw, req).then((f) => {
      delivery.forward = f;
      opts.onDelivery(delivery);
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  const server = createServer((req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'HEAD' ? undefined : '{"listening":true}');
      return;
    }
    if (req.method !== 'POST' && req.method !== 'PUT') {
      res.writeHead(405, { allow: 'POST' }).end();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        if (!tooLarge) {
          tooLarge = true;
          state.rejected++;
          res.writeHead(413, { connection: 'close' }).end();
          opts.onRejected({ received_at: now().toISOString(), path: (req.url ?? '/').split('?', 1)[0]!, remote: req.socket.remoteAddress ?? '?', reason: 'too-large' });
        }
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!tooLarge) handle(req, res, Buffer.concat(chunks));
    });
    req.on('error', () => undefined);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}/`,
    port,
    get deliveries() {
      return state.deliveries;
    },
    get rejected() {
      return state.rejected;
    },
    close() {
      closed ??= (async () => {
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        // Forwards already under way get a moment to finish and be reported, then are cut off.
        const cut = setTimeout(() => closing.abort(), 2000);
        await Promise.all([...inFlight]);
        clearTimeout(cut);
        server.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
  };
}
