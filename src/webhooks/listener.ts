// A local HTTP receiver for the service's webhooks: checks the bearer secret, answers at once, then
// optionally forwards the delivery unchanged and reports each one through callbacks. Prints nothing
// itself (the command decides how to show deliveries).
// It is reachable by whoever can reach its port, so it survives anything sent to it: the secret is
// checked from the headers before a byte of body is read; bodies are capped in size and nesting;
// slow senders are cut by header, request and idle timeouts; and connections are capped, the oldest
// idle or unfinished one giving way to a new one, so deliveries keep coming through a slowloris.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { checkAuthorization, classify, summarise, type DeliveryKind } from './classify.js';
import { nestedDeeperThan } from '../util/jsonDepth.js';
import { withDeadline } from '../util/deadline.js';

export { shown } from './classify.js';

export interface ListenerLimits {
  /** Larger bodies are answered 413 (from Content-Length when announced, else once passed). */
  maxBodyBytes: number;
  /** JSON nested deeper is answered 400: real deliveries are under 10 levels deep. */
  maxDepth: number;
  /** Time to send the request headers; Node's own default is 60 s. */
  headersTimeoutMs: number;
  /** Time to send the whole request; Node's own default is 300 s. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** A connection silent this long is closed. */
  idleTimeoutMs: number;
  /** Connections open at once; a new one beyond this closes the oldest idle or unfinished one. */
  maxConnections: number;
}

export const DEFAULT_LIMITS: Readonly<ListenerLimits> = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  maxDepth: 100,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 10_000,
  maxConnections: 128,
});

/**
 * Limits from a `name=value,name=value` list (OUTREACH_WEBHOOK_LIMITS, a knob for tests): unknown
 * names and values that are not positive whole numbers are ignored.
 */
export function parseLimits(spec: string | undefined): Partial<ListenerLimits> {
  const out: Partial<ListenerLimits> = {};
  for (const item of (spec ?? '').split(',')) {
    const [name, value] = item.split('=').map((x) => x.trim());
    if (!name || !value || !/^\d+$/.test(value) || Number(value) <= 0) continue;
    if (Object.hasOwn(DEFAULT_LIMITS, name)) out[name as keyof ListenerLimits] = Number(value);
  }
  return out;
}

/** How many delivery ids are remembered to tell a repeat: far more than a service retries at once. */
const REMEMBERED = 10_000;

export interface ForwardResult {
  url: string;
  status?: number;
  error?: string;
  /** Said when the answer is a redirect: it is reported as it is, never followed. */
  note?: string;
  ms: number;
}

/** What the sender's headers say a delivery is: X-Outreach-Event, -Delivery and -Attempt (raw). */
export interface DeliveryHeaders {
  event: string | null;
  delivery_id: string | null;
  attempt: number | null;
}

export interface Delivery extends DeliveryHeaders {
  received_at: string;
  method: string;
  path: string;
  kind: DeliveryKind;
  /** true: the secret matched; null: no secret configured, nothing checked. */
  authenticated: boolean | null;
  /** Its X-Outreach-Delivery id was accepted before: the service sent it again (at least once, so duplicates happen). */
  repeat: boolean;
  content_type: string | null;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  summary: string;
  forward?: ForwardResult;
}

export type RejectionReason = 'missing' | 'mismatch' | 'too-large' | 'too-deep';

/** A delivery refused; its headers are read (they are what the sender claims), never its body. */
export interface Rejection extends DeliveryHeaders {
  received_at: string;
  path: string;
  remote: string;
  reason: RejectionReason;
  /** The status it was answered with: 401, 413 or 400. */
  status: number;
}

export interface ListenerOptions {
  port: number;
  host: string;
  secret?: string;
  forwardTo?: string;
  forwardTimeoutMs?: number;
  onDelivery(d: Delivery): void;
  onRejected(r: Rejection): void;
  /**
   * A delivery could not be handled (answered 500; `delivery` is given), a callback threw, or the
   * server reported an error: the listener carries on regardless.
   */
  onError?(e: unknown, delivery?: DeliveryHeaders): void;
  limits?: Partial<ListenerLimits>;
  now?: () => Date;
}

/** Every delivery received ends as exactly one of these. */
export interface ListenerCounts {
  accepted: number;
  /** Of the accepted, those whose delivery id had been accepted before. */
  repeats: number;
  rejected: Record<RejectionReason, number>;
  /** Answered 500: the listener failed to handle it. */
  failed: number;
}

export interface RunningListener {
  url: string;
  port: number;
  /** So far; final once close() has resolved (forwards under way are reported by then). */
  counts(): ListenerCounts;
  close(): Promise<void>;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

function deliveryHeaders(req: IncomingMessage): DeliveryHeaders {
  const attempt = Number(header(req, 'x-outreach-attempt'));
  return {
    event: header(req, 'x-outreach-event') ?? null,
    delivery_id: header(req, 'x-outreach-delivery') ?? null,
    attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
  };
}

export async function startListener(opts: ListenerOptions): Promise<RunningListener> {
  const now = opts.now ?? (() => new Date());
  const limits: ListenerLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  // Node refuses a header timeout longer than the request timeout.
  limits.headersTimeoutMs = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const closing = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const counts: ListenerCounts = { accepted: 0, repeats: 0, rejected: { missing: 0, mismatch: 0, 'too-large': 0, 'too-deep': 0 }, failed: 0 };

  /** Runs a callback of the caller's; whatever it throws is reported, never kills the receiver. */
  const report = (fn: () => void) => {
    try {
      fn();
    } catch (e) {
      try {
        opts.onError?.(e);
      } catch {
        // nothing more can be done
      }
    }
  };

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
      // Never follow a redirect: the delivery (and its Authorization header) goes to the URL given
      // and nowhere else, and the answer reported is that URL's own.
      const res = await fetch(url, { method: 'POST', headers, body: raw, signal: deadline.signal, redirect: 'manual' });
      // The answer's body is not wanted: dropped rather than read (it could be any size).
      await res.body?.cancel().catch(() => undefined);
      const redirected = res.status >= 300 && res.status < 400;
      return { url, status: res.status, ...(redirected ? { note: 'redirect not followed' } : {}), ms: Math.round(performance.now() - started) };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      const error = deadline.timedOut ? 'timed out' : closing.signal.aborted ? 'stopped' : (err.cause?.code ?? err.message);
      return { url, error, ms: Math.round(performance.now() - started) };
    } finally {
      deadline.clear();
    }
  };

  // Delivery ids accepted so far, the latest REMEMBERED (a Set keeps insertion order: the oldest goes first).
  const seen = new Set<string>();
  const isRepeat = (id: string | null): boolean => {
    if (id === null) return false;
    if (seen.has(id)) return true;
    seen.add(id);
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value!);
    return false;
  };

  const pathOf = (req: IncomingMessage) => (req.url ?? '/').split('?', 1)[0]!;

  /** Answers and closes the connection without reading (more of) the body. */
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, error: string, extra: Record<string, string> = {}) => {
    res.shouldKeepAlive = false;
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...extra }).end(JSON.stringify({ error }));
    req.pause();
  };

  const rejectDelivery = (req: IncomingMessage, res: ServerResponse, reason: RejectionReason) => {
    const status = reason === 'too-large' ? 413 : reason === 'too-deep' ? 400 : 401;
    counts.rejected[reason]++;
    if (reason === 'too-large') refuse(req, res, 413, 'Payload Too Large');
    else if (reason === 'too-deep') refuse(req, res, 400, 'Body nested too deeply');
    else refuse(req, res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer' });
    const rejection: Rejection = { received_at: now().toISOString(), path: pathOf(req), remote: req.socket.remoteAddress ?? '?', reason, status, ...deliveryHeaders(req) };
    report(() => opts.onRejected(rejection));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: Buffer, authenticated: boolean | null) => {
    const receivedAt = now().toISOString();
    const text = raw.toString('utf8');
    let body: unknown = text;
    try {
      body = text.trim() === '' ? null : JSON.parse(text);
    } catch (e) {
      // Not JSON: kept as text. Anything else (a RangeError from a parser that recurses) is depth.
      if (!(e instanceof SyntaxError)) return rejectDelivery(req, res, 'too-deep');
      body = text;
    }
    // Too deep to print or re-serialise safely (JSON.stringify recurses); real deliveries never are.
    if (typeof body === 'object' && body !== null && nestedDeeperThan(text, limits.maxDepth)) return rejectDelivery(req, res, 'too-deep');
    // Answer first: the service should never wait for the forward or for the terminal.
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    counts.accepted++;
    const headers = deliveryHeaders(req);
    const repeat = isRepeat(headers.delivery_id);
    if (repeat) counts.repeats++;
    const kind = typeof body === 'string' || body === null ? 'unrecognised' : classify(body);
    const delivery: Delivery = {
      received_at: receivedAt,
      method: req.method ?? 'POST',
      path: pathOf(req),
      kind,
      authenticated,
      repeat,
      ...headers,
      content_type: header(req, 'content-type') ?? null,
      body,
      summary: summarise(kind, body),
    };
    if (!opts.forwardTo) {
      report(() => opts.onDelivery(delivery));
      return;
    }
    const p = forward(raw, req).then((f) => {
      delivery.forward = f;
      report(() => opts.onDelivery(delivery));
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  // Open connections, oldest first; `busy` while a request's headers have arrived and it is not
  // yet answered. At the cap a new connection closes the oldest one that is not busy (a slow sender
  // still in its headers, or an idle keep-alive), or failing that the oldest busy one.
  const conns = new Map<Socket, { busy: boolean }>();

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often those two are checked (Node's default, 30 s, would let a slow sender run on that long).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 2))),
    },
    (req, res) => {
      req.on('error', () => undefined);
      const conn = conns.get(req.socket);
      if (conn) {
        conn.busy = true;
        res.once('close', () => (conn.busy = false));
      }
      if (req.method === 'GET' || req.method === 'HEAD') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'HEAD' ? undefined : '{"listening":true}');
        return;
      }
      if (req.method !== 'POST' && req.method !== 'PUT') {
        res.shouldKeepAlive = false;
        res.writeHead(405, { allow: 'POST', connection: 'close' }).end();
        req.pause();
        return;
      }
      // The secret first, from the headers alone: a sender without it never gets its body read.
      const auth = checkAuthorization(header(req, 'authorization'), opts.secret);
      if (auth === 'missing' || auth === 'mismatch') return rejectDelivery(req, res, auth);
      const announced = Number(header(req, 'content-length'));
      if (Number.isFinite(announced) && announced > limits.maxBodyBytes) return rejectDelivery(req, res, 'too-large');

      const chunks: Buffer[] = [];
      let size = 0;
      let refused = false;
      req.on('data', (c: Buffer) => {
        if (refused) return;
        size += c.length;
        if (size > limits.maxBodyBytes) {
          refused = true;
          chunks.length = 0;
          rejectDelivery(req, res, 'too-large');
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (refused) return;
        try {
          handle(req, res, Buffer.concat(chunks), auth === 'ok' ? true : null);
        } catch (e) {
          // A delivery we failed to handle must not take the receiver down with it.
          if (!res.headersSent) {
            counts.failed++;
            res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"Internal error"}');
          }
          report(() => opts.onError?.(e, deliveryHeaders(req)));
        }
      });
    },
  );
  // A connection silent this long is closed (Node destroys the socket when nobody handles 'timeout').
  server.setTimeout(limits.idleTimeoutMs);
  server.on('connection', (socket: Socket) => {
    if (conns.size >= limits.maxConnections) {
      let victim: Socket | undefined;
      for (const [s, c] of conns) {
        if (!c.busy) {
          victim = s;
          break;
        }
      }
      victim ??= conns.keys().next().value;
      if (victim) {
        conns.delete(victim);
        victim.destroy();
      }
    }
    conns.set(socket, { busy: false });
    socket.once('close', () => conns.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      // From now on a server error (out of file descriptors, say) is reported, never fatal.
      server.on('error', (e) => report(() => opts.onError?.(e)));
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}/`,
    port,
    counts: () => ({ ...counts, rejected: { ...counts.rejected } }),
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
