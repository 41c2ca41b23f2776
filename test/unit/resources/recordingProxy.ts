// A proxy in front of the sandbox for e2e tests: forwards every request, records what the CLI sent
// and exactly what the service answered, and can drop the connection after forwarding (the
// service acted, the client never hears of it).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Exchange {
  method: string;
  path: string;
  requestBody: string;
  status: number;
  responseBody: string;
  dropped: boolean;
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** `dropAfterForward(req, n)` decides, per request (n counts from 1), whether to drop the answer. */
export async function startRecordingProxy(
  target: string,
  dropAfterForward: (req: IncomingMessage, n: number) => boolean = () => false,
): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const sockets = new Set<Socket>();
  const origin = new URL(target).origin;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'accept']) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    const answer = await fetch(origin + (req.url ?? '/'), { method: req.method, headers, body: body === '' ? undefined : body });
    const text = await answer.text();
    const dropped = dropAfterForward(req, exchanges.length + 1);
    exchanges.push({ method: req.method ?? '', path: req.url ?? '', requestBody: body, status: answer.status, responseBody: text, dropped });
    if (dropped) {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    exchanges,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Runs a shell command in a detached tmux session of the given size; returns helpers to drive it. */
export async function tmuxSession(name: string, command: string, size = { x: 120, y: 40 }) {
  const { execFileSync } = await import('node:child_process');
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', name, ...args], { encoding: 'utf8' });
  tmux('new-session', '-d', '-x', String(size.x), '-y', String(size.y), command);
  const capture = () => {
    try {
      return tmux('capture-pane', '-p', '-J', '-S', '-200');
    } catch {
      return '';
    }
  };
  return {
    capture,
    send: (...keys: string[]) => tmux('send-keys', ...keys),
    async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const screen = capture();
        if (pattern.test(screen)) return screen;
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; screen:\n${screen}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    kill: () => {
      try {
        tmux('kill-server');
      } catch {
        /* already gone */
      }
    },
  };
}
