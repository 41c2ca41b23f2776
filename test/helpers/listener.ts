// A spawned `outreach webhooks listen` (the built CLI) with its output collected as it comes, and a
// plain server standing in for the user's own endpoint (the --forward-to target).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN, ROOT } from './cli.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(fn: () => Promise<T> | T, timeoutMs = 30_000, what = 'condition'): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export class Listener {
  stdout = '';
  stderr = '';
  code: number | null | undefined;
  signal: NodeJS.Signals | null | undefined;
  url = '';
  private child: ChildProcess;
  private exited: Promise<number | null>;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d) => (this.stdout += d));
    this.child.stderr!.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((r) =>
      this.child.on('close', (c, s) => {
        this.signal = s;
        r((this.code = c));
      }),
    );
  }

  get alive(): boolean {
    return this.code === undefined;
  }

  async started(): Promise<string> {
    const m = await waitFor(
      () =>
        /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(this.stderr) ??
        (this.code !== undefined
          ? (() => {
              throw new Error(`listener exited: ${this.stderr}`);
            })()
          : null),
      20_000,
      'the listener URL',
    );
    this.url = m[1]!;
    return this.url;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  lines(): any[] {
    return this.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  }

  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
    if (this.code === undefined) this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

export interface Target {
  url: string;
  got: { headers: IncomingHttpHeaders; body: Buffer }[];
  close(): Promise<void>;
}

/** A plain server standing in for the user's own webhook endpoint; `answer` decides the response. */
export async function target(answer: number | ((res: ServerResponse) => void) = 200): Promise<Target> {
  const got: Target['got'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      if (typeof answer === 'number') res.writeHead(answer).end('ok');
      else answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
