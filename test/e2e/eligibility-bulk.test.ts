// `eligibility check --csv` end to end: good and bad rows, results file, re-runs without
// duplicates (after a Ctrl-C and after a lost answer), shared slowing on 429, the lock.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  sbx = await startTestSandbox({ eligibilityDelayMs: 0 });
});
afterAll(() => sbx.close());
beforeEach(() => {
  tmp = tempDir();
  env = sbx.env(tmp.dir);
});
afterEach(() => tmp.cleanup());

async function checksFor(prefix: string): Promise<Array<{ id: number; customer_patient_id: string }>> {
  const r = await sandboxRequest<Array<{ id: number; customer_patient_id: string }>>(sbx, 'GET', '/eligibility?limit=1000');
  return r.data.filter((c) => c.customer_patient_id?.startsWith(prefix));
}

function goodCsv(prefix: string, n: number): string {
  const lines = ['customer_patient_id,first_name,last_name,date_of_birth,member_id,payer_id,provider_name,npi'];
  for (let i = 1; i <= n; i++) lines.push(`${prefix}-${i},Pat${i},Test,1980-01-${String((i % 28) + 1).padStart(2, '0')},W${1000 + i}1,87726,Clinic,1234567893`);
  return lines.join('\n') + '\n';
}

function readResults(path: string): Array<Record<string, string>> {
  const [head, ...rows] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = head!.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [cols[i]!, v])));
}

/** A proxy in front of the sandbox; `hook` may answer a request itself (return true) instead of forwarding. */
async function startProxy(target: string, hook: (req: IncomingMessage, res: ServerResponse, body: string, n: number) => boolean | Promise<boolean>) {
  const t = new URL(target);
  let posts = 0;
  let active = 0;
  const server = createServer(async (req, res) => {
    // Counted until the sandbox has answered: a client gone (Ctrl-C) does not stop a held request.
    active++;
    try {
      let body = '';
      for await (const c of req) body += c;
      const n = req.method === 'POST' ? ++posts : 0;
      if (await hook(req, res, body, n)) return;
      await new Promise<void>((done) => {
        const fwd = httpRequest(
          { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } },
          (up) => {
            let data = '';
            up.on('data', (d) => (data += d));
            up.on('end', () => {
              res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' });
              res.end(data);
              done();
            });
          },
        );
        fwd.on('error', () => done());
        fwd.end(body);
      });
    } finally {
      active--;
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    posts: () => posts,
    /** Resolves once every request the proxy took has been answered or dropped (none still on its way to the sandbox). */
    idle: async () => {
      while (active > 0) await new Promise((r) => setTimeout(r, 10));
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Forwards to the sandbox, then drops the connection instead of answering (the service acted). */
function forwardThenDrop(target: string, req: IncomingMessage, body: string): Promise<void> {
  const t = new URL(target);
  return new Promise((resolve) => {
    const fwd = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, (up) => {
      up.resume();
      up.on('end', () => {
        req.socket.destroy();
        resolve();
      });
    });
    fwd.end(body);
  });
}

describe('eligibility check --csv', () => {
  it('good rows are submitted, bad rows reported by line and not sent; results one per row; a re-run sends nothing again', async () => {
    const csv = join(tmp.dir, 'mixed.csv');
    copyFileSync(join(ROOT, 'fixtures/eligibility-mixed.csv'), csv);
    const out = join(tmp.dir, 'results.csv');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--wait', '--interval', '0.5'], { env });
    expect(r.code).toBe(3);
    // The problem report: the file's lines and columns, the row the service rejected with its reason.
    expect(r.stderr).toContain('3 of 8 rows are invalid and were not sent:\n');
    expect(r.stderr).toContain('  line 5: DOB: the date of birth is in the future\n');
    expect(r.stderr).toContain('  line 6: NPI: the NPI check digit is wrong');
    expect(r.stderr).toContain('  line 8: Patient ID: same patient id as line 2\n');
    expect(r.stderr).toContain('1 row was rejected by the service:\n  line 7: Payer 99999 is not supported');
    // The outcome breakdown, counted from what the service said; then the next step.
    expect(r.stderr).toContain('8 rows: 4 submitted, 3 invalid, 1 rejected by the service.\n');
    expect(r.stderr).toContain('Results of 4 checks: 2 active, 1 inactive, 1 not supported.\n');
    expect(r.stderr).toContain(`run again (rows already submitted are skipped):\n  outreach eligibility check --csv ${csv} --out ${out} --wait\n`);
    expect(r.stderr).toContain('error: 4 rows were not submitted: 3 invalid, 1 rejected by the service (listed above).');
    // patient data never appears in the report
    expect(r.stderr).not.toContain('Dev');
    expect(r.stderr).not.toContain('W100000004');
    const rows = readResults(out);
    expect(rows.map((x) => [x.line, x.result])).toEqual([
      ['2', 'accepted'], ['3', 'accepted'], ['4', 'accepted'], ['5', 'invalid'], ['6', 'invalid'], ['7', 'rejected'], ['8', 'invalid'], ['9', 'accepted'],
    ]);
    expect(rows[0]).toMatchObject({ status: 'completed', outcome: 'success', active_today: 'true' });
    expect(rows[1]).toMatchObject({ outcome: 'success', active_today: 'false' });
    expect(rows[2]).toMatchObject({ outcome: 'not-supported' });
    expect(rows[5]!.error).toContain('Payer 99999 is not supported');
    expect((await checksFor('MRN-20')).length).toBe(4);

    const again = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env });
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('8 rows: 0 submitted (4 already in the journal), 3 invalid, 1 rejected by the service.\n');
    // Without --wait nothing is claimed about results: the way to see them instead.
    expect(again.stderr).not.toContain('Results of');
    expect(again.stderr).toContain('--wait shows the results here');
    expect((await checksFor('MRN-20')).length).toBe(4);
    const rows2 = readResults(out);
    expect(rows2.filter((x) => x.result === 'already-submitted').map((x) => x.id)).toEqual(rows.filter((x) => x.result === 'accepted').map((x) => x.id));
    expect(existsSync(`${csv}.outreach-eligibility.ndjson.lock`)).toBe(false);
  });

  it('all good rows: exit 0, ids with -q, ndjson results', async () => {
    const csv = join(tmp.dir, 'good.csv');
    writeFileSync(csv, goodCsv('OK', 10));
    const out = join(tmp.dir, 'r.ndjson');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', '3'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(10);
    expect(lines.every((l) => l.result === 'accepted' && typeof l.id === 'number')).toBe(true);
    const csv2 = join(tmp.dir, 'good2.csv');
    writeFileSync(csv2, goodCsv('OKQ', 3));
    const q = await runCli(['eligibility', 'check', '--csv', csv2, '-q'], { env });
    expect(q.code).toBe(0);
    expect(q.stdout).toMatch(/^(\d+\n){3}$/);
    expect(q.stderr).toBe('');
  });

  it('Ctrl-C part-way exits 130; running it again completes without duplicates', async () => {
    const proxy = await startProxy(sbx.baseUrl, async (req) => {
      if (req.method === 'POST') await new Promise((r) => setTimeout(r, 150));
      return false;
    });
    try {
      const csv = join(tmp.dir, 'int.csv');
      writeFileSync(csv, goodCsv('INT', 30));
      const child = spawn(process.execPath, [BIN, 'eligibility', 'check', '--csv', csv, '--concurrency', '2', '--base-url', proxy.url], { env, cwd: ROOT });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setInterval(() => {
          if (proxy.posts() >= 6) {
            clearInterval(timer);
            child.kill('SIGINT');
          }
        }, 20);
        child.on('close', (c) => resolve(c));
      });
      expect(code).toBe(130);
      expect(stderr).toContain('To continue: outreach eligibility check --csv');
      const partial = (await checksFor('INT-')).length;
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(30);
      // Requests the proxy still holds reach the sandbox after the client has gone: let them land
      // first, or the re-run's lookup races them (and rightly reports those rows unknown, exit 7).
      await proxy.idle();
      const r = await runCli(['eligibility', 'check', '--csv', csv], { env });
      expect(r.code, r.stderr).toBe(0);
      const all = await checksFor('INT-');
      expect(all.length).toBe(30);
      expect(new Set(all.map((c) => c.customer_patient_id)).size).toBe(30);
    } finally {
      await proxy.close();
    }
  });

  it('Ctrl-C while waiting says the checks go on in the service and how to continue', async () => {
    // The service answers every poll slowly, so the run is surely waiting when Ctrl-C comes.
    const proxy = await startProxy(sbx.baseUrl, async (req) => {
      if (req.method === 'GET') await new Promise((r) => setTimeout(r, 400));
      return false;
    });
    try {
      const csv = join(tmp.dir, 'waitint.csv');
      writeFileSync(csv, goodCsv('WINT', 3));
      const child = spawn(process.execPath, [BIN, 'eligibility', 'check', '--csv', csv, '--wait', '--base-url', proxy.url], { env, cwd: ROOT });
      let stderr = '';
      let sent = false;
      child.stderr.on('data', (d) => {
        stderr += d;
        // One Ctrl-C: a second one ends the process at once (cli.ts).
        if (!sent && /Waiting for 3 checks/.test(stderr)) sent = child.kill('SIGINT');
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(code).toBe(130);
      expect(stderr).toContain('Interrupted. The checks go on in the service. To continue: outreach eligibility check --csv');
      expect(stderr).not.toContain('error:');
      expect((await checksFor('WINT-')).length).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it('an answer lost after the service acted: exit 7, and the re-run looks the row up instead of sending it twice', async () => {
    const proxy = await startProxy(sbx.baseUrl, async (req, _res, body, n) => {
      if (req.method === 'POST' && n === 2) {
        await forwardThenDrop(sbx.baseUrl, req, body);
        return true;
      }
      return false;
    });
    try {
      const csv = join(tmp.dir, 'lost.csv');
      writeFileSync(csv, goodCsv('LOST', 4));
      const out = join(tmp.dir, 'lost.csv.results.csv');
      const r = await runCli(['eligibility', 'check', '--csv', csv, '--concurrency', '1', '--out', out, '--base-url', proxy.url], { env: { ...env, OUTREACH_RETRY_BASE_MS: '5' } });
      expect(r.code, r.stderr).toBe(7);
      expect(readResults(out).filter((x) => x.result === 'unknown')).toHaveLength(1);
      expect((await checksFor('LOST-')).length).toBe(4); // the service did create it
      const again = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('Looking up 1 row');
      expect((await checksFor('LOST-')).length).toBe(4);
      expect(readResults(out).every((x) => x.result === 'already-submitted')).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('429 answers slow the whole run down instead of failing it', async () => {
    const proxy = await startProxy(sbx.baseUrl, (req, res, _b, n) => {
      if (req.method === 'POST' && n >= 3 && n <= 6) {
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Too Many Requests', message: 'slow down', statusCode: 429 }));
        return true;
      }
      return false;
    });
    try {
      const csv = join(tmp.dir, 'rl.csv');
      writeFileSync(csv, goodCsv('RL', 12));
      const r = await runCli(['eligibility', 'check', '--csv', csv, '--base-url', proxy.url], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('12 submitted');
      expect(r.stderr).toContain('asked to slow down 4 times');
      expect(proxy.posts()).toBe(16);
      expect((await checksFor('RL-')).length).toBe(12);
    } finally {
      await proxy.close();
    }
  });

  it('a live lock stops a second run (exit 2); a stale lock is taken over', async () => {
    const csv = join(tmp.dir, 'lock.csv');
    writeFileSync(csv, goodCsv('LCK', 2));
    const lock = `${csv}.outreach-eligibility.ndjson.lock`; // the journal's lock, as for sequences batch
    writeFileSync(lock, JSON.stringify({ pid: process.pid, hostname: (await import('node:os')).hostname(), started_at: new Date().toISOString(), token: 'x' }));
    const held = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(held.code).toBe(2);
    expect(held.stderr).toContain('Another run is using the journal');
    expect(held.stderr).toContain('Nothing was sent by this run');
    expect((await checksFor('LCK-')).length).toBe(0);
    // a lock left by a process that is gone
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('close', r));
    writeFileSync(lock, JSON.stringify({ pid: dead.pid, hostname: (await import('node:os')).hostname(), started_at: new Date().toISOString(), token: 'y' }));
    const r = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('took over the lock of an earlier run that is no longer running');
    expect((await checksFor('LCK-')).length).toBe(2);
    expect(existsSync(lock)).toBe(false);
  });

  it('header problems and bad options are usage errors', async () => {
    const csv = join(tmp.dir, 'h.csv');
    writeFileSync(csv, 'first_name,last_name\nA,B\n');
    const r = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no column for dateOfBirth');
    expect((await runCli(['eligibility', 'check', '--csv', csv, '--concurrency', '0'], { env })).code).toBe(2);
    expect((await runCli(['eligibility', 'check', '--csv', csv, '--out', 'x.txt'], { env })).code).toBe(2);
    expect((await runCli(['eligibility', 'check', '--csv', join(tmp.dir, 'missing.csv')], { env })).code).toBe(2);
  });
});
