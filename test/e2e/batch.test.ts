// `sequences batch` end to end: the built CLI against a real sandbox, with a fault proxy in front of
// it for the interrupted-create scenarios. Counts what the sandbox holds: never a duplicate, never a
// missing row.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import stringWidth from 'string-width';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { virtualClock } from '../helpers/clock.js';
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

function makeFile(rows: number, name = 'patients.csv'): string {
  const path = join(tmp.dir, name);
  execFileSync(process.execPath, [join(ROOT, 'scripts/make-patients.mjs'), String(rows), path]);
  return path;
}

interface Seq {
  id: number;
  sequence_definition_id: number;
  phone_number: string;
  created_at: string;
}

async function sequencesOfDefinition1(): Promise<Seq[]> {
  const r = await sandboxRequest<{ data: Seq[] }>(sbx, 'GET', '/sequence-manager/sequences?limit=1000&sequence_definition_id=1');
  return r.data.data;
}

/** The sandbox's sequences for the file's phones: each phone must appear exactly once. */
async function expectEachPhoneOnce(file: string, expectedRows: number) {
  const seqs = (await sequencesOfDefinition1()).filter((s) => s.id > 6); // ids 1-6 are seed data
  const counts = new Map<string, number>();
  for (const s of seqs) counts.set(s.phone_number, (counts.get(s.phone_number) ?? 0) + 1);
  expect(seqs.length).toBe(expectedRows);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
  expect(readFileSync(file, 'utf8').trim().split('\n').length - 1).toBe(expectedRows);
}

function journalOf(path: string) {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

function resultsOf(path: string) {
  const [, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  return lines.map((l) => {
    const [line, status, id] = l.split(',');
    return { line: Number(line), status, id };
  });
}

/** A proxy in front of the sandbox that misbehaves on the n-th create (non-validate) batch POST. */
async function startProxy(target: string, opts: { dropCreate?: number; when?: 'before' | 'after'; delayCreateMs?: number; stripCreatedAt?: boolean } = {}) {
  const t = new URL(target);
  let creates = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    const isCreate = req.method === 'POST' && req.url?.includes('/sequences/batch') && !JSON.parse(body).validate_only;
    const n = isCreate ? ++creates : 0;
    if (isCreate && n === opts.dropCreate && opts.when === 'before') {
      req.socket.destroy();
      return;
    }
    if (isCreate && opts.delayCreateMs) await new Promise((r) => setTimeout(r, opts.delayCreateMs));
    const upstream = httpRequest(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } },
      async (up) => {
        let text = '';
        for await (const c of up) text += c;
        if (isCreate && n === opts.dropCreate && opts.when === 'after') {
          req.socket.destroy(); // the sandbox has acted; the client never hears of it
          return;
        }
        if (opts.stripCreatedAt && req.method === 'GET' && req.url?.match(/\/sequences(\/metrics)?(\?|$)/)) {
          // Only API.md's fields: no created_at or phone_number on sequences; metrics keep theirs
          // (API.md lists created_at there) unless they are stripped too.
          const j = JSON.parse(text);
          for (const s of j.data) {
            if (!req.url.includes('/metrics')) delete s.created_at;
            delete s.phone_number;
            delete s.name;
          }
          text = JSON.stringify(j);
        }
        const headers = { ...up.headers };
        delete headers['content-length'];
        res.writeHead(up.statusCode ?? 502, headers);
        res.end(text);
      },
    );
    // The sandbox may be gone (a test ended with a request still held): drop the client, never throw.
    upstream.on('error', () => req.socket.destroy());
    upstream.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    creates: () => creates,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('validate-only', () => {
  it('a clean file: exit 0, no problems, nothing created', async () => {
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1', '--validate-only', '-o', 'json'], { env: sbx.env(tmp.dir) });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ rows: 10, valid_rows: 10, invalid_rows: 0, problems: [] });
    // The mapping is printed before the rows are read.
    expect(r.stderr).toMatch(/Phone\s+→ phoneNumber/);
    expect(r.stderr).toMatch(/Appointment Date\s+→ appointmentDate/);
    expect((await sequencesOfDefinition1()).length).toBe(2); // seed only
  });

  it('a file with mistakes: exit 3 and every problem with its exact CSV line', async () => {
    const r = await runCli(['sequences', 'batch', 'fixtures/patients-with-mistakes.csv', '--definition', '1', '--validate-only', '-o', 'json', '--out', join(tmp.dir, 'r.csv')], {
      env: sbx.env(tmp.dir),
    });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.problems.map((p: { line: number; field: string; code: string }) => [p.line, p.field, p.code])).toEqual([
      [3, 'firstName', 'required'],
      [4, 'lastName', 'required'],
      [5, 'phoneNumber', 'excel_scientific'],
      [6, 'phoneNumber', 'letters'],
      [7, 'phoneNumber', 'too_short'],
      [8, 'appointmentDate', 'day_first'],
      [9, 'appointmentDate', 'two_digit_year'],
      [10, 'appointmentDate', 'impossible_date'],
      [11, 'appointmentDate', 'required'],
      [12, 'phoneNumber', 'extension'],
    ]);
    expect(out.problems[2].message).toMatch(/Excel/);
    // Patient data never in the messages.
    expect(r.stdout + r.stderr).not.toMatch(/call me|Chen|Okafor|555-0122/);
    const results = resultsOf(join(tmp.dir, 'r.csv'));
    expect(results.map((x) => x.status)).toEqual(['valid', ...Array(10).fill('invalid'), 'valid']);
  });

  it('without a terminal: every problem on stderr by line and column, no values, the next steps; -o tsv lists them on stdout', async () => {
    const r = await runCli(['sequences', 'batch', 'fixtures/patients-with-mistakes.csv', '--definition', '1', '--validate-only'], { env: sbx.env(tmp.dir) });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    const report = r.stderr.slice(r.stderr.indexOf('10 of 12 rows are invalid:'));
    expect(report.split('\n').slice(0, 4)).toEqual([
      '10 of 12 rows are invalid:',
      '  line 3: First Name: first name is empty',
      '  line 4: Last Name: last name is empty',
      // One line each when piped (a log is not wrapped), and never the value (4.41E+11) of the file.
      '  line 5: Phone: the phone number was turned into a number by Excel (scientific notation like 4.41E+11) and its last digits were lost; format the column as Text in the original file and export again',
    ]);
    expect(report).toContain('  line 12: Phone: the phone number has an extension');
    expect(report).not.toMatch(/call me|17\/05\/2030|555-123/);
    expect(report).toContain('12 rows, 2 valid, 10 invalid. Nothing was created.');
    expect(report).toContain(
      'Fix those lines in fixtures/patients-with-mistakes.csv and check again:\n  outreach sequences batch fixtures/patients-with-mistakes.csv --definition 1 --validate-only\n' +
        'Or create the 2 valid rows only, skipping the others:\n  outreach sequences batch fixtures/patients-with-mistakes.csv --definition 1 --skip-invalid\n',
    );
    expect(report).toContain('error: 10 of 12 rows are invalid (listed above).');

    const tsv = await runCli(['sequences', 'batch', 'fixtures/patients-with-mistakes.csv', '--definition', '1', '--validate-only', '-o', 'tsv'], { env: sbx.env(tmp.dir) });
    expect(tsv.code).toBe(3);
    expect(tsv.stdout.split('\n').slice(0, 2)).toEqual(['line\tfield\tseverity\tmessage\tcode\tsource', '3\tfirstName\terror\tfirst name is empty\trequired\tlocal']);
  });

  it('a duplicate phone number is named by the line of its first occurrence, not a place in the chunk', async () => {
    const file = join(tmp.dir, 'dups.csv');
    writeFileSync(file, 'First Name,Last Name,Phone,Appointment Date\nAna,Diaz,(415) 555-0121,2030-05-17\nBo,Diaz,415-555-0121,2030-05-17\nCy,Lee,(415) 555-0199,2030-05-17\n');
    const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--validate-only'], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('1 warning (its row is valid):\n  line 3: Phone: same phone number as line 2\n');
    expect(r.stderr).not.toContain('also appears in row');
    expect(r.stderr).toContain('3 rows, 3 valid, 0 invalid, 1 warning.');
  });

  it("maps the service's errors from rowIndex back to the CSV line (second chunk)", async () => {
    const file = makeFile(150);
    const lines = readFileSync(file, 'utf8').split('\n');
    // Line 141 (chunk 2, rowIndex 39): a clinic name longer than the service accepts, fine locally.
    const cells = lines[140]!.split(',');
    expect(cells.length).toBe(7);
    cells[5] = 'X'.repeat(1001);
    lines[140] = cells.join(',');
    writeFileSync(file, lines.join('\n'));
    const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--validate-only', '-o', 'json'], { env: sbx.env(tmp.dir) });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.problems).toEqual([expect.objectContaining({ line: 141, field: 'clinicName', source: 'service', severity: 'error' })]);
    expect(out.invalid_rows).toBe(1);
  });
});

describe('create', () => {
  it('250 rows: 3 chunks created once, with results; a second run is refused', async () => {
    const file = makeFile(250);
    const out = join(tmp.dir, 'results.csv');
    const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('250 sequences created');
    const results = resultsOf(out);
    expect(results.length).toBe(250);
    expect(results.every((x) => x.status === 'created' && /^\d+$/.test(x.id!))).toBe(true);
    expect(new Set(results.map((x) => x.id)).size).toBe(250);
    const journal = journalOf(`${out}.journal.ndjson`);
    expect(journal.filter((j) => j.type === 'intent').map((j) => j.lines.length)).toEqual([100, 100, 50]);
    expect(journal.at(-1)).toMatchObject({ type: 'end', outcome: 'complete' });
    // No names, no phone numbers in clear in the journal.
    const text = readFileSync(`${out}.journal.ndjson`, 'utf8');
    expect(text).not.toMatch(/Lopez|\+1415|555-/);
    await expectEachPhoneOnce(file, 250);

    const again = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out], { env: sbx.env(tmp.dir) });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already uploaded');
    await expectEachPhoneOnce(file, 250);
  });

  it('without a terminal and without --yes: exit 2, nothing sent', async () => {
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--definition', '1'], { env: sbx.env(tmp.dir) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect((await sequencesOfDefinition1()).length).toBe(2);
  });

  it('invalid rows stop everything (exit 3) unless --skip-invalid', async () => {
    const out = join(tmp.dir, 'r.csv');
    const r = await runCli(['sequences', 'batch', 'fixtures/patients-with-mistakes.csv', '--definition', '1', '--yes', '--out', out], { env: sbx.env(tmp.dir) });
    expect(r.code).toBe(3);
    expect((await sequencesOfDefinition1()).length).toBe(2);
    const s = await runCli(['sequences', 'batch', 'fixtures/patients-with-mistakes.csv', '--definition', '1', '--yes', '--skip-invalid', '--out', out], { env: sbx.env(tmp.dir) });
    expect(s.code, s.stderr).toBe(0);
    expect(resultsOf(out).map((x) => x.status)).toEqual(['created', ...Array(10).fill('skipped'), 'created']);
    expect((await sequencesOfDefinition1()).length).toBe(4);
  });
});

describe('interrupted create and --resume', () => {
  it('connection dropped AFTER the sandbox acted on chunk 2: exit 7; --resume settles it as created and sends chunk 3', async () => {
    const file = makeFile(250);
    const out = join(tmp.dir, 'results.csv');
    const proxy = await startProxy(sbx.baseUrl, { dropCreate: 2, when: 'after' });
    try {
      // One chunk at a time, so "chunk 3 never sent" is exact; concurrent chunks: batch-concurrency.test.ts.
      const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '2', '--concurrency', '1'], { env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url }) });
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toContain(`To continue: outreach sequences batch ${file} --definition 1 --out ${out} --resume --yes`);
      expect(r.stderr).toContain('100 rows created, 100 unknown, 50 not sent');
      expect(proxy.creates()).toBe(2); // never retried automatically
    } finally {
      await proxy.close();
    }
    const journal = journalOf(`${out}.journal.ndjson`);
    const results = journal.filter((j) => j.type === 'result');
    expect(results.map((j) => [j.chunk, j.outcome])).toEqual([[1, 'created'], [2, 'unknown']]);
    expect(journal.filter((j) => j.type === 'intent').map((j) => j.chunk)).toEqual([1, 2]); // chunk 3 not sent
    const statuses = resultsOf(out).map((x) => x.status);
    expect(statuses.filter((s) => s === 'created').length).toBe(100);
    expect(statuses.filter((s) => s === 'unknown').length).toBe(100);
    expect(statuses.filter((s) => s === 'not-sent').length).toBe(50);
    expect((await sequencesOfDefinition1()).length).toBe(2 + 200);

    const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir) });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toContain('100 found created, 0 proven not created');
    const after = journalOf(`${out}.journal.ndjson`);
    expect(after.find((j) => j.type === 'settled')).toMatchObject({ absent: [] });
    expect(after.find((j) => j.type === 'settled').created.length).toBe(100);
    expect(after.filter((j) => j.type === 'intent').map((j) => [j.chunk, j.lines.length])).toEqual([[1, 100], [2, 100], [3, 50]]);
    const final = resultsOf(out);
    expect(final.length).toBe(250);
    expect(final.every((x) => x.status === 'created' && x.id)).toBe(true);
    await expectEachPhoneOnce(file, 250);
  });

  it('connection dropped BEFORE the sandbox saw chunk 2: --resume proves it absent and re-sends it', async () => {
    const file = makeFile(250);
    const out = join(tmp.dir, 'results.csv');
    const proxy = await startProxy(sbx.baseUrl, { dropCreate: 2, when: 'before' });
    try {
      const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '2', '--concurrency', '1'], { env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url }) });
      expect(r.code, r.stderr).toBe(7);
    } finally {
      await proxy.close();
    }
    expect((await sequencesOfDefinition1()).length).toBe(2 + 100);
    const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir) });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toContain('0 found created, 100 proven not created (they will be sent)');
    const settled = journalOf(`${out}.journal.ndjson`).find((j) => j.type === 'settled');
    expect(settled.absent.length).toBe(100);
    await expectEachPhoneOnce(file, 250);
  });

  it('records without created_at or phone_number (API.md fields only): absence is still proven from the steps, and the rows are sent once', async () => {
    const file = makeFile(150);
    const out = join(tmp.dir, 'results.csv');
    const drop = await startProxy(sbx.baseUrl, { dropCreate: 2, when: 'before' });
    const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '2'], { env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: drop.url }) });
    await drop.close();
    expect(r.code).toBe(7);
    const strip = await startProxy(sbx.baseUrl, { stripCreatedAt: true });
    try {
      const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: strip.url }) });
      expect(resume.code, resume.stderr).toBe(0);
      expect(resume.stderr).toContain('0 found created, 50 proven not created');
      expect(strip.creates()).toBe(1);
    } finally {
      await strip.close();
    }
    await expectEachPhoneOnce(file, 150);
  });

  it('an edited file is refused on --resume', async () => {
    const file = makeFile(150);
    const out = join(tmp.dir, 'results.csv');
    const drop = await startProxy(sbx.baseUrl, { dropCreate: 2, when: 'after' });
    const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '2'], { env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: drop.url }) });
    await drop.close();
    expect(r.code).toBe(7);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.splice(3, 1); // a row deleted: every later line moves up
    writeFileSync(file, lines.join('\n'));
    const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir) });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/line \d+: the row is not the one the journal recorded/);
    expect((await sequencesOfDefinition1()).length).toBe(2 + 150);
  });
});

describe('Ctrl-C during a create', () => {
  it('exits 130 with the journal intact; --resume settles the cut-off chunk and finishes without duplicates', async () => {
    const file = makeFile(250);
    const out = join(tmp.dir, 'results.csv');
    const proxy = await startProxy(sbx.baseUrl, { delayCreateMs: 800 });
    try {
      // One chunk at a time: the order below is exact (concurrent Ctrl-C: batch-concurrency.test.ts).
      const child = spawn(process.execPath, [BIN, 'sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--request-timeout', '2', '--concurrency', '1'], {
        env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url }),
        cwd: ROOT,
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      for (let i = 0; i < 300 && proxy.creates() < 2; i++) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGINT');
      const code = await new Promise((r) => child.on('close', r));
      expect(code, stderr).toBe(130);
      expect(stderr).toContain('--resume');
      // Normally chunk 2 is cut off in flight; on a very busy machine the signal may land a chunk later.
      const journal = journalOf(`${out}.journal.ndjson`);
      const results = journal.filter((j) => j.type === 'result').map((j) => j.outcome);
      expect(results.length).toBeGreaterThanOrEqual(1);
      expect(results.slice(0, -1).every((x) => x === 'created')).toBe(true);
      expect(['created', 'unknown']).toContain(results.at(-1));
      expect(journal.filter((j) => j.type === 'intent').length).toBe(results.length); // nothing sent after the signal
      expect(journal.some((j) => j.type === 'end')).toBe(false);
    } finally {
      await proxy.close();
    }
    // Resumed at once: the chunk cut off by Ctrl-C is still inside the proxy and reaches the sandbox
    // ~0.8 s later. The resume must wait it out rather than take "not listed yet" for "absent". The
    // quiet period (2 s timeout + 5 s) runs on a clock 4× real time: 1.75 s, still longer than the hold.
    const resume = await runCli(['sequences', 'batch', file, '--definition', '1', '--out', out, '--resume', '--yes'], {
      env: sbx.env(tmp.dir),
      clock: virtualClock({ speed: 4 }),
    });
    expect(resume.code, resume.stderr).toBe(0);
    await expectEachPhoneOnce(file, 250);
  });
});

describe('the journal lock', () => {
  it('a second run on the same journal while the first runs is refused (exit 2); a dead run’s lock is recovered', async () => {
    const file = makeFile(250);
    const out = join(tmp.dir, 'results.csv');
    const proxy = await startProxy(sbx.baseUrl, { delayCreateMs: 700 });
    try {
      const env = sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url });
      const first = runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out], { env });
      // Wait until the first run holds the lock and has started creating.
      for (let i = 0; i < 200 && proxy.creates() === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(`${out}.journal.ndjson.lock`)).toBe(true);
      const second = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '--resume'], { env });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain('Another run is using the journal');
      const r1 = await first;
      expect(r1.code, r1.stderr).toBe(0);
    } finally {
      await proxy.close();
    }
    await expectEachPhoneOnce(file, 250);

    // A lock left by a killed run (its process is gone) is taken over.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('close', r));
    const out2 = join(tmp.dir, 'second.csv');
    writeFileSync(`${out2}.journal.ndjson.lock`, JSON.stringify({ pid: dead.pid, hostname: (await import('node:os')).hostname(), started_at: new Date().toISOString(), token: 'x' }));
    const small = makeFile(5, 'small.csv');
    const r = await runCli(['sequences', 'batch', small, '--definition', '1', '--yes', '--out', out2], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('took over the lock');
    expect(existsSync(`${out2}.journal.ndjson.lock`)).toBe(false);
  });
});

describe('local checks only', () => {
  it('--dry-run with --definition-file sends no request at all', async () => {
    const def = await sandboxRequest(sbx, 'GET', '/sequence-manager/sequence-definitions/1');
    const defFile = join(tmp.dir, 'def1.json');
    writeFileSync(defFile, JSON.stringify(def.data));
    // An address where nothing listens: any request would fail with exit 6.
    const env = sbx.env(tmp.dir, { OUTREACH_BASE_URL: 'http://127.0.0.1:9/v1' });
    const ok = await runCli(['sequences', 'batch', 'fixtures/patients.csv', '--dry-run', '--definition-file', defFile], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('10 rows, 10 valid, 0 invalid (nothing sent)');
    const bad = await runCli(['sequences', 'batch', 'fixtures/patients-with-mistakes.csv', '--dry-run', '--definition-file', defFile, '-o', 'json'], { env });
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout).invalid_rows).toBe(10);
  });
});

describe('interactive confirmation (tmux)', () => {
  it('asks "N patients will be contacted by <definition>" and creates after yes', async () => {
    const name = `outreach-batch-${process.pid}`;
    const codeFile = join(tmp.dir, 'code');
    const env = sbx.env(tmp.dir);
    delete (env as Record<string, string>).NO_COLOR;
    const envArgs = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(' ');
    const file = join(tmp.dir, 'patients.csv'); // the journal goes beside it, not into fixtures/
    writeFileSync(file, readFileSync(join(ROOT, 'fixtures/patients.csv')));
    // The tmux server inherits this process's environment: CI=true (set by CI) would forbid prompts.
    const cmd = `cd ${ROOT} && env -u CI -u OUTREACH_NO_INPUT ${envArgs} timeout --foreground 60 node ${BIN} sequences batch ${file} --definition 1; echo $? > ${codeFile}; sleep 30`;
    execFileSync('tmux', ['-L', name, 'new-session', '-d', '-x', '200', '-y', '50', cmd]);
    try {
      let screen = '';
      for (let i = 0; i < 200 && !screen.includes('Create 10 sequences?'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        screen = execFileSync('tmux', ['-L', name, 'capture-pane', '-p']).toString();
      }
      expect(screen).toContain('10 patients will be contacted by "Appointment reminder" (definition 1).');
      expect((await sequencesOfDefinition1()).length).toBe(2); // nothing before the answer
      execFileSync('tmux', ['-L', name, 'send-keys', 'y', 'Enter']);
      for (let i = 0; i < 200 && !existsSync(codeFile); i++) await new Promise((r) => setTimeout(r, 100));
      expect(readFileSync(codeFile, 'utf8').trim()).toBe('0');
      expect((await sequencesOfDefinition1()).length).toBe(12);
      expect(existsSync(`${file}.journal.ndjson`)).toBe(true);
    } finally {
      execFileSync('tmux', ['-L', name, 'kill-server']);
    }
  });
});

describe('--skip-invalid at a terminal of 80×24 (tmux)', () => {
  it('shows the lines that will be skipped, with their values, before asking; No sends nothing', async () => {
    const name = `outreach-skip-${process.pid}`;
    const codeFile = join(tmp.dir, 'skip-code');
    const env = sbx.env(tmp.dir);
    const envArgs = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(' ');
    const file = join(tmp.dir, 'mistakes.csv');
    writeFileSync(file, readFileSync(join(ROOT, 'fixtures/patients-with-mistakes.csv')));
    const cmd = `cd ${ROOT} && env -u CI -u OUTREACH_NO_INPUT ${envArgs} timeout --foreground 60 node ${BIN} sequences batch ${file} --definition 1 --skip-invalid; echo $? > ${codeFile}; sleep 30`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', name, ...args]).toString();
    tmux('new-session', '-d', '-x', '80', '-y', '24', cmd);
    try {
      let screen = '';
      for (let i = 0; i < 200 && !screen.includes('(y/N)'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        screen = tmux('capture-pane', '-p');
      }
      const lines = screen.split('\n');
      // The question comes last, after the skipped lines and who will be contacted.
      const q = lines.findIndex((l) => l.includes('Create 2 sequences and skip 10 rows? (y/N)'));
      expect(q, screen).toBeGreaterThan(0);
      expect(lines[q - 1]).toBe('2 patients will be contacted by "Appointment reminder" (definition 1).');
      expect(screen).toContain('10 rows will be skipped (--skip-invalid):');
      // On the person's own terminal the value is shown beside the column, and nothing passes 80 columns.
      expect(screen).toContain('line 6: Phone "call me": the phone number contains letters');
      expect(screen).toMatch(/… and \d+ more problems \(--out results\.csv lists every row\)/);
      for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(80);
      expect((await sequencesOfDefinition1()).length).toBe(2); // nothing before the answer
      tmux('send-keys', 'n', 'Enter');
      for (let i = 0; i < 200 && !existsSync(codeFile); i++) await new Promise((r) => setTimeout(r, 100));
      expect(readFileSync(codeFile, 'utf8').trim()).toBe('2');
      expect((await sequencesOfDefinition1()).length).toBe(2);
    } finally {
      tmux('kill-server');
    }
  });
});

describe('interactive column mapping (tmux)', () => {
  it('asks which column holds each unmatched required field, then validates with the answers', async () => {
    const name = `outreach-map-${process.pid}`;
    const codeFile = join(tmp.dir, 'map-code');
    const env = sbx.env(tmp.dir);
    const envArgs = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(' ');
    const file = join(tmp.dir, 'odd-headers.csv');
    // None of these headers says what it holds: firstName, phoneNumber and appointmentDate are unmatched.
    writeFileSync(file, 'Notes,Patient,Surname,Contact,When\nfirst visit,Ana,Diaz,(415) 555-0121,5/17/2030\n');
    const cmd = `cd ${ROOT} && env -u CI -u OUTREACH_NO_INPUT ${envArgs} timeout --foreground 60 node ${BIN} sequences batch ${file} --definition 1 --validate-only; echo $? > ${codeFile}; sleep 30`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', name, ...args]).toString();
    tmux('new-session', '-d', '-x', '160', '-y', '50', cmd);
    const answers: Record<string, string> = { firstName: 'Patient', phoneNumber: 'Contact', appointmentDate: 'When' };
    const asked: string[] = [];
    try {
      while (asked.length < 3) {
        let screen = '';
        let field: string | undefined;
        for (let i = 0; i < 200 && !field; i++) {
          await new Promise((r) => setTimeout(r, 100));
          screen = tmux('capture-pane', '-p');
          const questions = [...screen.matchAll(/\? Which column holds (\w+)\?/g)].map((m) => m[1]!);
          field = questions.find((q) => !asked.includes(q));
        }
        expect(field, `a question after ${asked.join(', ')}:\n${screen}`).toBeDefined();
        asked.push(field!);
        // The choices follow the question; the pointer (❯) marks the current one.
        const lines = screen.split('\n');
        const start = lines.findIndex((l) => l.includes(`Which column holds ${field}?`));
        const choices = lines.slice(start + 1).filter((l) => /^\s*(❯\s)?\S/.test(l) && !l.includes('↑↓')).map((l) => l.replace('❯', '').trim());
        const current = lines.slice(start + 1).findIndex((l) => l.includes('❯'));
        const target = choices.indexOf(answers[field!]!);
        expect(target, `choice ${answers[field!]} in ${JSON.stringify(choices)}`).toBeGreaterThanOrEqual(0);
        for (let k = current; k < target; k++) tmux('send-keys', 'Down');
        tmux('send-keys', 'Enter');
      }
      for (let i = 0; i < 200 && !existsSync(codeFile); i++) await new Promise((r) => setTimeout(r, 100));
      const screen = tmux('capture-pane', '-p', '-S', '-100');
      expect(readFileSync(codeFile, 'utf8').trim(), screen).toBe('0');
      expect(asked.sort()).toEqual(['appointmentDate', 'firstName', 'phoneNumber']);
      expect(screen).toContain('1 row, 1 valid, 0 invalid');
    } finally {
      tmux('kill-server');
    }
  });
});
