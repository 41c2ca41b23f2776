// `sequences batch` with create chunks in flight at once (--concurrency, default 4): faults injected
// into the 2nd and 3rd of four concurrent chunks, a Ctrl-C with four chunks out, and a 429 with
// Retry-After that must slow the whole run. The guarantees are those of the sequential run: the
// journal says which rows are which, --resume settles them, and in the end every phone of the file
// is in the sandbox exactly once — 0 duplicates, 0 missing.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;

beforeEach(async () => {
  sbx = await startTestSandbox();
  tmp = tempDir();
});
afterEach(async () => {
  await sbx.close();
  tmp.cleanup();
});

function makeFile(rows: number): string {
  const path = join(tmp.dir, 'patients.csv');
  execFileSync(process.execPath, [join(ROOT, 'scripts/make-patients.mjs'), String(rows), path]);
  return path;
}

/** The file's phones in E.164, as make-patients writes them (third column, US numbers). */
function phonesOf(file: string): string[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[2]!.replace(/\D/g, ''))
    .map((d) => `+${d.length === 11 ? d : `1${d}`}`);
}

/** Every phone of the file is a sequence of definition 1 exactly once, and nothing else was created. */
async function expectExactlyOnce(file: string) {
  const r = await sandboxRequest<{ data: Array<{ id: number; phone_number: string }> }>(sbx, 'GET', '/sequence-manager/sequences?limit=1000&sequence_definition_id=1');
  const created = r.data.data.filter((s) => s.id > 6).map((s) => s.phone_number); // ids 1-6 are seed data
  const counts = new Map<string, number>();
  for (const p of created) counts.set(p, (counts.get(p) ?? 0) + 1);
  const duplicates = [...counts].filter(([, n]) => n > 1);
  const missing = phonesOf(file).filter((p) => !counts.has(p));
  expect({ duplicates: duplicates.length, missing: missing.length, created: created.length }).toEqual({ duplicates: 0, missing: 0, created: phonesOf(file).length });
}

function journalOf(path: string): Array<Record<string, any>> {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

type Fault = 'drop-before' | 'drop-after' | '502-after' | '429';

/**
 * A proxy in front of the sandbox: create chunk n (counted in arrival order) meets `faults[n]`;
 * every other create is held `holdMs` so that the chunks are really in flight together.
 */
async function startProxy(target: string, opts: { faults: Record<number, Fault>; holdMs: number; retryAfterS?: number; gate?: number }) {
  const t = new URL(target);
  let creates = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const starts: Array<{ n: number; at: number }> = [];
  let refusedAt: number | undefined;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    const isCreate = req.method === 'POST' && req.url?.includes('/sequences/batch') && !JSON.parse(body).validate_only;
    const forward = () =>
      new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve) => {
        const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, async (answer) => {
          let text = '';
          for await (const c of answer) text += c;
          const headers = { ...answer.headers };
          delete headers['content-length'];
          resolve({ status: answer.statusCode ?? 502, headers, text });
        });
        up.on('error', () => resolve({ status: 502, headers: {}, text: '' })); // the sandbox is gone
        up.end(body);
      });
    if (!isCreate) {
      const a = await forward();
      res.writeHead(a.status, a.headers as Record<string, string>).end(a.text);
      return;
    }
    const n = ++creates;
    starts.push({ n, at: Date.now() });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      // The first `gate` creates wait for each other (at most 3 s), so they are really out together
      // when the faults strike.
      for (let i = 0; i < 150 && n <= (opts.gate ?? 0) && creates < (opts.gate ?? 0); i++) await new Promise((r) => setTimeout(r, 20));
      const fault = opts.faults[n];
      if (fault === 'drop-before') return void req.socket.destroy();
      if (fault === '429') {
        refusedAt = Date.now();
        res.writeHead(429, { 'retry-after': String(opts.retryAfterS ?? 1), 'content-type': 'application/json' }).end('{"message":"slow down"}');
        return;
      }
      if (!fault) await new Promise((r) => setTimeout(r, opts.holdMs));
      const a = await forward(); // the sandbox acts
      if (fault === 'drop-after') return void req.socket.destroy();
      if (fault === '502-after') {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>');
        return;
      }
      res.writeHead(a.status, a.headers as Record<string, string>).end(a.text);
    } finally {
      inFlight--;
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    creates: () => creates,
    maxInFlight: () => maxInFlight,
    /** Resolves once every request the proxy accepted has been answered by the sandbox (or dropped). */
    idle: async () => {
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    },
    starts: () => starts,
    refusedAt: () => refusedAt,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The built CLI in its own process, on real time (pacing is asserted against the wall clock). */
function spawnCli(args: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('faults in the 2nd and 3rd of four concurrent create chunks', () => {
  it.each([
    ['dropped after the service acted / dropped before it saw it', 'drop-after', 'drop-before', { created: 100, absent: 100 }],
    ["answered 502 by a gateway after the service acted (both)", '502-after', '502-after', { created: 200, absent: 0 }],
  ] as const)('%s: exit 7, journal exact, --resume gives 0 duplicates and 0 missing', async (_name, second, third, settled) => {
    const file = makeFile(550); // 6 chunks: 4 go out at once, the failures stop chunks 5 and 6
    const out = join(tmp.dir, 'results.csv');
    const proxy = await startProxy(sbx.baseUrl, { faults: { 2: second, 3: third }, holdMs: 1000, gate: 4 });
    let r: RunResult;
    try {
      r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '2'], {
        env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url }),
      });
      expect(proxy.maxInFlight()).toBe(4);
      expect(proxy.creates()).toBe(4); // nothing started after the first failure; nothing retried
    } finally {
      await proxy.close();
    }
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('200 rows created, 200 unknown, 150 not sent');
    expect(r.stderr).toContain(`To continue: outreach sequences batch ${file} --definition 1 --out ${out} --resume --yes`);
    // Each chunk's intent is on disk before its request and its result after; chunks 5-6 never sent.
    const journal = journalOf(`${out}.journal.ndjson`);
    const intents = journal.filter((j) => j.type === 'intent');
    const results = new Map(journal.filter((j) => j.type === 'result').map((j) => [j.chunk, j.outcome]));
    expect(intents.map((j) => j.lines.length)).toEqual([100, 100, 100, 100]);
    expect([...results.values()].sort()).toEqual(['created', 'created', 'unknown', 'unknown']);
    for (const i of intents) expect(journal.indexOf(i)).toBeLessThan(journal.findIndex((j) => j.type === 'result' && j.chunk === i.chunk));

    const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir) });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toContain(`${settled.created} found created, ${settled.absent} proven not created`);
    await expectExactlyOnce(file);
    const statuses = readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[1]);
    expect(statuses.filter((s) => s === 'created')).toHaveLength(550);
  });
});

describe('Ctrl-C with four create chunks in flight', () => {
  it('exits 130: every chunk sent has its intent and its result, nothing is sent after the signal, --resume completes exactly once', async () => {
    const file = makeFile(750);
    const out = join(tmp.dir, 'results.csv');
    const proxy = await startProxy(sbx.baseUrl, { faults: {}, holdMs: 1000 });
    try {
      const child = spawn(process.execPath, [BIN, 'sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '3'], {
        env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url }),
        cwd: ROOT,
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      for (let i = 0; i < 500 && proxy.creates() < 4; i++) await new Promise((r) => setTimeout(r, 20));
      expect(proxy.maxInFlight()).toBe(4);
      child.kill('SIGINT');
      const code = await new Promise((r) => child.on('close', r));
      expect(code, stderr).toBe(130);
      expect(stderr).toContain('--resume');
      expect(proxy.creates()).toBe(4); // nothing started after the signal
      // The requests cut off by Ctrl-C still reach the sandbox; this test is about concurrency, the
      // quiet period that covers them is batch.test.ts's Ctrl-C test.
      await proxy.idle();
    } finally {
      await proxy.close();
    }
    const journal = journalOf(`${out}.journal.ndjson`);
    const intents = journal.filter((j) => j.type === 'intent').map((j) => j.chunk).sort();
    const results = journal.filter((j) => j.type === 'result').map((j) => j.chunk).sort();
    expect(intents).toEqual([1, 2, 3, 4]);
    expect(results).toEqual(intents); // every request out was answered (or cut off) and recorded
    expect(journal.some((j) => j.type === 'end')).toBe(false);
    const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir) });
    expect(resume.code, resume.stderr).toBe(0);
    await expectExactlyOnce(file);
  });
});

describe('a 429 with Retry-After on one of four concurrent chunks', () => {
  it('slows the whole run: no chunk starts until Retry-After has passed, the refused chunk is sent again, each row created once', async () => {
    const file = makeFile(800);
    const out = join(tmp.dir, 'results.csv');
    const proxy = await startProxy(sbx.baseUrl, { faults: { 2: '429' }, holdMs: 200, retryAfterS: 2, gate: 4 });
    let r: RunResult;
    try {
      r = await spawnCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out], sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url }));
    } finally {
      await proxy.close();
    }
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.creates()).toBe(9); // 8 chunks, the refused one twice
    const refusedAt = proxy.refusedAt()!;
    // Chunks 1, 3, 4 were already out; every later start (the retry included) waited out Retry-After.
    const later = proxy.starts().filter((s) => s.n > 4);
    expect(later).toHaveLength(5);
    for (const s of later) expect(s.at - refusedAt).toBeGreaterThanOrEqual(1900);
    await expectExactlyOnce(file);
  });
});
