// Files the CLI writes (CLI.md "Output and files: safety rules", issue 11 items 2 and 3): results,
// journals and locks never follow a symlink (exit 2, nothing written), are replaced atomically, hold
// patient data at 0600 whatever the umask, and no results cell runs as a spreadsheet formula.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openCsv } from '../../src/csv/reader.js';
import { openResults } from '../../src/csv/results.js';
import { baseEnv, BIN, ROOT, runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startVariantServer, variantEnv } from '../helpers/variantServer.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  sbx = await startTestSandbox({ eligibilityDelayMs: 0 });
});
afterAll(() => sbx.close());
beforeEach(() => {
  tmp = tempDir('outreach-files-');
});
afterEach(() => tmp.cleanup());

const VICTIM_TEXT = 'precious: not to be overwritten\n';

/** A file the symlinks point at: its content and mode must survive every test. */
function victim(): string {
  const path = join(tmp.dir, 'victim.txt');
  writeFileSync(path, VICTIM_TEXT);
  chmodSync(path, 0o644);
  return path;
}

function expectUntouched(path: string) {
  expect(readFileSync(path, 'utf8')).toBe(VICTIM_TEXT);
  expect(statSync(path).mode & 0o777).toBe(0o644);
}

const mode = (path: string) => statSync(path).mode & 0o777;

/** Runs the built CLI under `umask 000`, as a careless shell or service manager might. */
function runUnderUmask0(args: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', 'umask 000; exec "$0" "$@"', process.execPath, BIN, ...args], { env, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function sequenceCount(): Promise<number> {
  const r = await sandboxRequest<{ data: unknown[] }>(sbx, 'GET', '/sequence-manager/sequences?limit=1000');
  return r.data.data.length;
}

async function checksFor(prefix: string): Promise<number> {
  const r = await sandboxRequest<Array<{ customer_patient_id: string }>>(sbx, 'GET', '/eligibility?limit=1000');
  return r.data.filter((c) => c.customer_patient_id?.startsWith(prefix)).length;
}

function eligibilityCsv(prefix: string, ids: string[] = ['1', '2'], npi = '1234567893'): string {
  const path = join(tmp.dir, `${prefix}.csv`);
  const q = (s: string) => (/[",]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  const lines = ['customer_patient_id,first_name,last_name,date_of_birth,member_id,payer_id,provider_name,npi'];
  ids.forEach((id, i) => lines.push(`${q(id.startsWith('=') || id.startsWith('@') || id.startsWith('-') || id.startsWith('+') ? id : `${prefix}-${id}`)},Pat${i},Test,1980-01-0${i + 1},W10000${i}1,87726,Clinic,${npi}`));
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

async function csvRows(path: string): Promise<string[][]> {
  const f = await openCsv(path);
  const rows = [f.headers];
  for await (const r of f.rows) rows.push(r.values);
  return rows;
}

/** Files left beside the target: a temporary file must never outlive the run. */
function leftovers(dir: string, except: string[]): string[] {
  return readdirSync(dir).filter((n) => !except.includes(n));
}

describe('symlinks at an output path are refused (exit 2), nothing written', () => {
  it('sequences batch --out results.csv that is a symlink: target untouched, no journal, nothing sent', async () => {
    const target = victim();
    const out = join(tmp.dir, 'results.csv');
    symlinkSync(target, out);
    const before = await sequenceCount();
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1', '--yes', '--out', out], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(out);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(r.stderr).toMatch(/nothing was written/i);
    expectUntouched(target);
    expect(lstatSync(out).isSymbolicLink()).toBe(true);
    expect(existsSync(`${out}.journal.ndjson`)).toBe(false);
    expect(await sequenceCount()).toBe(before);
  });

  it('a dangling results symlink: exit 2, its target is not created', async () => {
    const out = join(tmp.dir, 'results.csv');
    const target = join(tmp.dir, 'created-through-link.csv');
    symlinkSync(target, out);
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1', '--validate-only', '--out', out], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(existsSync(target)).toBe(false);
  });

  it('a batch journal symlinked to another file: exit 2, that file untouched (content and mode), nothing sent', async () => {
    const target = victim();
    const journal = join(tmp.dir, 'j.ndjson');
    symlinkSync(target, journal);
    const before = await sequenceCount();
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1', '--yes', '--journal', journal], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(journal);
    expect(r.stderr).toMatch(/symbolic link/);
    expectUntouched(target);
    expect(await sequenceCount()).toBe(before);
  });

  it('a dangling batch journal symlink: exit 2, its target not created, nothing sent', async () => {
    const journal = join(tmp.dir, 'j.ndjson');
    const target = join(tmp.dir, 'made-by-journal.ndjson');
    symlinkSync(target, journal);
    const before = await sequenceCount();
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1', '--yes', '--journal', journal], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(existsSync(target)).toBe(false);
    expect(await sequenceCount()).toBe(before);
  });

  it('a symlink at the batch lock path (dangling too) is refused, never followed', async () => {
    const journal = join(tmp.dir, 'j.ndjson');
    const target = join(tmp.dir, 'lock-target');
    symlinkSync(target, `${journal}.lock`);
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1', '--yes', '--journal', journal], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(journal)).toBe(false);
  });

  it('the eligibility journal symlinked to another file (or dangling): refused, nothing submitted', async () => {
    const target = victim();
    const csv = eligibilityCsv('SYMJ');
    symlinkSync(target, `${csv}.outreach-eligibility.ndjson`);
    const r = await runCli(['eligibility', 'check', '--csv', csv], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/symbolic link/);
    expectUntouched(target);
    expect(await checksFor('SYMJ')).toBe(0);

    const csv2 = eligibilityCsv('SYMD');
    const missing = join(tmp.dir, 'made-by-eligibility.ndjson');
    symlinkSync(missing, `${csv2}.outreach-eligibility.ndjson`);
    const r2 = await runCli(['eligibility', 'check', '--csv', csv2], { env: sbx.env(tmp.dir) });
    expect(r2.code, r2.stderr).toBe(2);
    expect(existsSync(missing)).toBe(false);
    expect(await checksFor('SYMD')).toBe(0);
  });

  it('the eligibility journal is never a FIFO or other non-regular file (it would block or write elsewhere)', async () => {
    const csv = eligibilityCsv('FIFO');
    execFileSync('mkfifo', [`${csv}.outreach-eligibility.ndjson`]);
    const r = await runCli(['eligibility', 'check', '--csv', csv], { env: sbx.env(tmp.dir), timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/not a regular file/);
    expect(await checksFor('FIFO')).toBe(0);
  });

  it('eligibility check --csv --out that is a symlink: exit 2 before anything is submitted', async () => {
    const target = victim();
    const csv = eligibilityCsv('SYMO');
    const out = join(tmp.dir, 'el-results.csv');
    symlinkSync(target, out);
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(out);
    expectUntouched(target);
    expect(await checksFor('SYMO')).toBe(0);
    expect(existsSync(`${csv}.outreach-eligibility.ndjson`)).toBe(false);
  });
});

describe('patient data files are 0600 whatever the umask', () => {
  it('batch results and journal under umask 000', async () => {
    const work = join(tmp.dir, 'work');
    mkdirSync(work);
    const out = join(work, 'results.csv');
    const r = await runUnderUmask0(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1', '--yes', '--out', out], sbx.env(tmp.dir));
    expect(r.code, r.stderr).toBe(0);
    expect(mode(out)).toBe(0o600);
    expect(mode(`${out}.journal.ndjson`)).toBe(0o600);
    expect(leftovers(work, ['results.csv', 'results.csv.journal.ndjson'])).toEqual([]);
  });

  it('eligibility results and journal under umask 000; a journal left 0644 is made 0600 again', async () => {
    const csv = eligibilityCsv('MODE');
    const out = join(tmp.dir, 'el.csv');
    const journal = `${csv}.outreach-eligibility.ndjson`;
    const r = await runUnderUmask0(['eligibility', 'check', '--csv', csv, '--out', out], sbx.env(tmp.dir));
    expect(r.code, r.stderr).toBe(0);
    expect(mode(out)).toBe(0o600);
    expect(mode(journal)).toBe(0o600);
    chmodSync(journal, 0o644);
    chmodSync(out, 0o644);
    const again = await runUnderUmask0(['eligibility', 'check', '--csv', csv, '--out', out], sbx.env(tmp.dir));
    expect(again.code, again.stderr).toBe(0);
    expect(mode(journal)).toBe(0o600);
    expect(mode(out)).toBe(0o600);
  });
});

describe('no results cell runs as a spreadsheet formula', () => {
  const FORMULAS = ['=HYPERLINK("http://x","y")', '@SUM(1)', '-2+3'];

  it('eligibility results: formula-looking patient ids get a leading quote; E.164 stays as it is; ndjson unchanged', async () => {
    const csv = eligibilityCsv('FORM', [...FORMULAS, '+14155550121'], '1234567890'); // a bad NPI: checked, never sent
    const out = join(tmp.dir, 'formula.csv');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(3);
    const rows = await csvRows(out);
    const col = rows[0]!.indexOf('customer_patient_id');
    expect(rows.slice(1).map((v) => v[col])).toEqual([...FORMULAS.map((f) => `'${f}`), '+14155550121']);
    // Nothing else in the file starts a formula either.
    for (const row of rows.slice(1)) for (const cell of row) expect(cell).not.toMatch(/^[=@\t\r]|^[+-](?!\d+$)/);

    const nd = join(tmp.dir, 'formula.ndjson');
    const r2 = await runCli(['eligibility', 'check', '--csv', csv, '--out', nd], { env: sbx.env(tmp.dir) });
    expect(r2.code, r2.stderr).toBe(3);
    const ids = readFileSync(nd, 'utf8').trim().split('\n').map((l) => JSON.parse(l).customer_patient_id);
    expect(ids).toEqual([...FORMULAS, '+14155550121']);
  });

  it("batch results: the service's error message =HYPERLINK(...) is written with a leading quote", async () => {
    const server = await startVariantServer();
    try {
      server.override('POST', /\/sequences\/batch$/, (_req, res, body) => {
        const b = JSON.parse(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ valid: false, total_attempted: b.rows.length, valid_count: b.rows.length - 1, created_count: 0, created: [], errors: [{ rowIndex: 0, message: FORMULAS[0] }], warnings: [] }));
      });
      const file = join(tmp.dir, 'p.csv');
      writeFileSync(file, 'First Name,Last Name,Phone\nAnn,Lee,(415) 555-0101\nBob,Ray,(415) 555-0102\n');
      const out = join(tmp.dir, 'r.csv');
      const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--validate-only', '--out', out], { env: variantEnv(server, baseEnv(tmp.dir)) });
      expect(r.code, r.stderr).toBe(3);
      const rows = await csvRows(out);
      expect(rows[1]).toEqual(['2', 'invalid', '', `'${FORMULAS[0]}`]);
      expect(rows[2]).toEqual(['3', 'valid', '', '']);
    } finally {
      await server.close();
    }
  });
});

describe('results files are replaced atomically', () => {
  it('an existing results file stays whole until close(); a failed run (abort) leaves it intact and no temporary file', async () => {
    const path = join(tmp.dir, 'results.csv');
    writeFileSync(path, 'line,status\n2,created\n');
    const w = await openResults(path, ['line', 'status']);
    await w.write({ line: 2, status: 'not-sent' });
    await w.flush();
    expect(readFileSync(path, 'utf8')).toBe('line,status\n2,created\n'); // no partial file visible
    await (w as unknown as { abort(): Promise<void> }).abort();
    expect(readFileSync(path, 'utf8')).toBe('line,status\n2,created\n');
    expect(leftovers(tmp.dir, ['results.csv'])).toEqual([]);

    const w2 = await openResults(path, ['line', 'status']);
    await w2.write({ line: 2, status: 'not-sent' });
    await w2.close();
    expect(readFileSync(path, 'utf8')).toBe('line,status\n2,not-sent\n');
    expect(leftovers(tmp.dir, ['results.csv'])).toEqual([]);
  });

  it('a process that exits mid-write (a second Ctrl-C) leaves the old file intact and removes its temporary file', async () => {
    const bundle = join(tmp.dir, 'results.mjs');
    await build({ entryPoints: [join(ROOT, 'src/csv/results.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
    const dir = join(tmp.dir, 'out');
    mkdirSync(dir);
    const path = join(dir, 'results.csv');
    writeFileSync(path, 'line\n2\n');
    const script = `
      const { openResults } = await import(${JSON.stringify(bundle)});
      const w = await openResults(${JSON.stringify(path)}, ['line']);
      await w.write({ line: 99 });
      await w.flush();
      process.exit(130);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
    expect(child.status, child.stderr.toString()).toBe(130);
    expect(readFileSync(path, 'utf8')).toBe('line\n2\n');
    expect(readdirSync(dir)).toEqual(['results.csv']);
  });

  it('eligibility --out: the earlier file stays whole during the run; Ctrl-C part-way still leaves a truthful, complete file', async () => {
    // A proxy that slows every submission down, so the run can be interrupted part-way.
    let posts = 0;
    const proxy = createServer(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      if (req.method === 'POST') {
        posts++;
        await new Promise((r) => setTimeout(r, 150));
      }
      try {
        const up = await fetch(new URL(req.url!, sbx.baseUrl), {
          method: req.method,
          headers: { authorization: String(req.headers.authorization), 'content-type': 'application/json' },
          body: req.method === 'GET' ? undefined : body,
        });
        res.writeHead(up.status, { 'content-type': 'application/json' });
        res.end(await up.text());
      } catch {
        // A request still held here when the test ends finds the sandbox closed: drop it.
        res.destroy();
      }
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const work = join(tmp.dir, 'work');
      mkdirSync(work);
      const csv = join(work, 'int.csv');
      const lines = ['customer_patient_id,first_name,last_name,date_of_birth,member_id,payer_id,provider_name,npi'];
      for (let i = 1; i <= 30; i++) lines.push(`ATOM-${i},Pat${i},Test,1980-01-${String((i % 28) + 1).padStart(2, '0')},W${1000 + i}1,87726,Clinic,1234567893`);
      writeFileSync(csv, lines.join('\n') + '\n');
      const out = join(work, 'results.csv');
      writeFileSync(out, 'earlier results\n');
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
      const child = spawn(process.execPath, [BIN, 'eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', '2', '--base-url', url], { env: sbx.env(tmp.dir), cwd: ROOT });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      let during = '';
      const code = await new Promise<number | null>((resolve) => {
        const timer = setInterval(() => {
          if (posts >= 4) {
            clearInterval(timer);
            during = readFileSync(out, 'utf8');
            child.kill('SIGINT');
          }
        }, 20);
        child.on('close', (c) => resolve(c));
      });
      expect(code, stderr).toBe(130);
      expect(during).toBe('earlier results\n');
      const rows = await csvRows(out);
      // The input's own columns first (its customer_patient_id keeps the name; ours is renamed).
      expect(rows[0]).toEqual([...lines[0]!.split(','), 'line', 'outreach_customer_patient_id', 'result', 'id', 'status', 'outcome', 'active_today', 'error']);
      expect(rows.slice(1).map((r) => r[8])).toEqual(Array.from({ length: 30 }, (_, i) => String(i + 2)));
      const results = rows.slice(1).map((r) => r[10]);
      expect(results.every((x) => ['accepted', 'unknown', 'not-sent'].includes(x!))).toBe(true);
      expect(results.filter((x) => x === 'accepted').length).toBeGreaterThan(0);
      expect(results.filter((x) => x === 'not-sent').length).toBeGreaterThan(0);
      // Every row the file calls accepted was created, and nothing was created that it calls not-sent.
      const created = await checksFor('ATOM-');
      expect(results.filter((x) => x === 'accepted').length).toBeLessThanOrEqual(created);
      expect(created).toBeLessThanOrEqual(results.filter((x) => x !== 'not-sent').length);
      expect(mode(out)).toBe(0o600);
      expect(readdirSync(work).sort()).toEqual(['int.csv', 'int.csv.outreach-eligibility.ndjson', 'results.csv']);
    } finally {
      await new Promise<void>((r) => {
        proxy.closeAllConnections();
        proxy.close(() => r());
      });
    }
  });

  it('a resumed results file (append) is continued in the temporary file and renamed at close', async () => {
    const path = join(tmp.dir, 'resume.csv');
    writeFileSync(path, 'line,status\n2,created\n');
    chmodSync(path, 0o644);
    const w = await openResults(path, ['line', 'status'], { append: true });
    await w.write({ line: 3, status: '=1+1' });
    await w.flush();
    expect(readFileSync(path, 'utf8')).toBe('line,status\n2,created\n');
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe("line,status\n2,created\n3,'=1+1\n");
    expect(mode(path)).toBe(0o600);
    expect(leftovers(tmp.dir, ['resume.csv'])).toEqual([]);
  });
});
