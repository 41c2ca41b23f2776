// A small HTTP server that misbehaves on request, for fault tests: each incoming request is given
// to the next scripted behaviour (the last one repeats), and every request is counted.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface FaultServer {
  url: string; // base URL with /v1
  port: number;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

export async function startFaultServer(script: Behaviour[] | Behaviour): Promise<FaultServer> {
  const behaviours = Array.isArray(script) ? script : [script];
  const requests: FaultServer['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const behaviour = behaviours[Math.min(requests.length - 1, behaviours.length - 1)]!;
    await behaviour(req, res, body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

/** Drops the connection without answering (after the request was read: the server may have acted). */
export const drop: Behaviour = (req) => {
  req.socket.destroy();
};

/** Answers after `ms`. */
export const slow =
  (ms: number, then: Behaviour): Behaviour =>
  (req, res, body) =>
    new Promise<void>((r) => setTimeout(() => r(then(req, res, body) as void), ms));

export const text =
  (status: number, body: string, contentType = 'text/html'): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };

/** Sends headers promising more than it delivers, then cuts the connection. */
export const truncated: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
  res.write('[{"id": 1, "na');
  setTimeout(() => res.socket?.destroy(), 20);
};

/** Answers 200 with `body` only when the bearer key matches; 401 otherwise. */
export const requireKey =
  (key: string, body: unknown = []): Behaviour =>
  (req, res) => {
    if (req.url?.startsWith('/v1/health')) return json(200, { status: 'ok' })(req, res, '');
    if (req.headers.authorization !== `Bearer ${key}`) {
      return json(401, { error: 'Unauthorized', message: 'Invalid API key', statusCode: 401 })(req, res, '');
    }
    return json(200, body)(req, res, '');
  };
