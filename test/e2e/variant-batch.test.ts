// `sequences batch` against a service that answers within API.md but unlike our sandbox: what the
// run reports, writes and exits with must follow what the service said, and nothing more.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { actThenPage, drop, route, startVariantServer, variantEnv, type Variant, type VariantServer } from '../helpers/variantServer.js';

let server: VariantServer;
let tmp: ReturnType<typeof tempDir>;

beforeEach(async () => {
  server = await startVariantServer();
  tmp = tempDir();
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});

const env = (extra: Record<string, string> = {}) => variantEnv(server, baseEnv(tmp.dir), extra);

function csv(rows: Array<[string, string, string]>): string {
  const path = join(tmp.dir, 'patients.csv');
  writeFileSync(path, ['First Name,Last Name,Phone', ...rows.map((r) => r.join(','))].join('\n') + '\n');
  return path;
}

function makeFile(rows: number): string {
  const path = join(tmp.dir, 'patients.csv');
  execFileSync(process.execPath, [join(ROOT, 'scripts/make-patients.mjs'), String(rows), path]);
  return path;
}

function results(path: string): Array<{ line: number; status: string; id: string; messages: string }> {
  const [, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  return lines.map((l) => {
    const m = l.match(/^(\d+),([a-z-]+),(\d*),?(.*)$/)!;
    return { line: Number(m[1]), status: m[2]!, id: m[3]!, messages: m[4]! };
  });
}

const TWO: Array<[string, string, string]> = [
  ['Ann', 'Lee', '(415) 555-0101'],
  ['Bob', 'Ray', '(415) 555-0102'],
];

async function create(file: string, extra: string[] = [], envExtra: Record<string, string> = {}) {
  const out = join(tmp.dir, 'results.csv');
  const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--out', out, '-o', 'json', ...extra], { env: env(envExtra) });
  return { ...r, out, json: r.stdout ? JSON.parse(r.stdout) : undefined };
}

describe('which rows were created: read from everything the answer says', () => {
  it.each<[string, Partial<Variant>, number, string[]]>([
    ['created: [] with created_count 2 (the list not filled in)', { batchCreated: 'empty' }, 0, ['created', 'created']],
    ['no created list, created_count 2', { batchCreated: 'omit' }, 0, ['created', 'created']],
    ['numbers as strings everywhere', { numbersAsStrings: true, single: 'array' }, 0, ['created', 'created']],
    ['no created list, created_count 1 for 2 rows, no error', { batchCreated: 'omit', batchCreatedCount: 'short' }, 7, ['unknown', 'unknown']],
    ['no created list, created_count 0, no error', { batchCreated: 'omit', batchCreatedCount: 'zero' }, 7, ['unknown', 'unknown']],
    ['no created list, no created_count', { batchCreated: 'omit', batchCreatedCount: 'omit' }, 7, ['unknown', 'unknown']],
  ])('%s', async (_name, variant, code, statuses) => {
    server.set(variant);
    const r = await create(csv(TWO));
    expect(r.code, r.stderr).toBe(code);
    expect(results(r.out).map((x) => x.status)).toEqual(statuses);
    expect(r.json).toMatchObject({ rows: 2, invalid_rows: 0, complete: code === 0, unknown: code === 0 ? 0 : 2 });
    expect(server.creates()).toHaveLength(1); // never repeated
    if (code === 7) {
      expect(r.stderr).toMatch(/Stopped at chunk 1 \(lines 2-3\): the service's answer confirms 0 of its 2 rows created but says nothing of the other 2/);
      expect(r.stderr).toContain('--resume looks for the unknown rows');
      expect(r.stderr).not.toMatch(/never sends a row twice/);
    }
  });

  it('an unknown row is settled by --resume from API.md fields alone (metrics created_at, steps destination_number)', async () => {
    server.set({ batchCreated: 'omit', batchCreatedCount: 'zero' });
    const file = csv(TWO);
    const r = await create(file, ['--request-timeout', '1']);
    expect(r.code).toBe(7);
    server.set({ batchCreated: 'list', batchCreatedCount: 'honest' });
    const resume = await create(file, ['--resume'], { OUTREACH_TIMEOUT: '1' });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toContain('2 found created, 0 proven not created');
    expect(results(resume.out).map((x) => [x.status, x.id])).toEqual([
      ['created', String(server.store.sequences[0]!.id)],
      ['created', String(server.store.sequences[1]!.id)],
    ]);
    expect(server.creates()).toHaveLength(1);
    expect(server.store.sequences).toHaveLength(2);
  });
});

describe("the service's words, once, on the right line", () => {
  const withBad: Array<[string, string, string]> = [
    ['Ann', 'Lee', '(415) 555-0101'],
    ['Reject', 'Warn', '(415) 555-0102'],
    ['Cy', 'Warn', '(415) 555-0103'],
  ];

  it.each<[Variant['batchErrors'], Array<[string, string, string]>]>([
    ['object', withBad],
    ['rowIndexErrors', withBad],
    // {row: 0-based}: the first row's "row 0" shows the numbering, so row 1 is put on its line.
    ['fieldMessage', [['Reject', 'Lee', '(415) 555-0100'], withBad[0]!, withBad[1]!]],
  ])('validate-only with %s errors: the message in results.csv and -o json, not raw JSON', async (shape, rows) => {
    server.set({ batchErrors: shape });
    const message = /^firstName is not accepted by the service$/;
    const out = join(tmp.dir, 'r.csv');
    const r = await runCli(['sequences', 'batch', csv(rows), '--definition', '1', '--validate-only', '-o', 'json', '--out', out], { env: env() });
    expect(r.code, r.stderr).toBe(3);
    const errors = JSON.parse(r.stdout);
    const problems = errors.problems.filter((p: { severity: string }) => p.severity === 'error');
    const lines = shape === 'fieldMessage' ? [2, 4] : [3];
    expect(problems).toEqual(lines.map((line) => expect.objectContaining({ line, source: 'service', message: expect.stringMatching(message) })));
    const got = results(out);
    expect(got.map((x) => x.status)).toEqual(shape === 'fieldMessage' ? ['invalid', 'valid', 'invalid'] : ['valid', 'invalid', 'valid']);
    expect(got[lines[0]! - 2]!.messages.replace(/^"|"$/g, '').split('; ').filter((m) => !m.startsWith('warning')).join('')).toMatch(/^firstName: firstName is not accepted by the service$|^firstName is not accepted by the service$/);
  });

  it('plain-string errors "Row N: ..." keep their words; an ambiguous row number is said, not pinned on a line', async () => {
    server.set({ batchErrors: 'string' });
    const r = await runCli(['sequences', 'batch', csv(withBad), '--definition', '1', '--validate-only', '-o', 'json'], { env: env() });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    const error = out.problems.find((p: { severity: string }) => p.severity === 'error');
    // "Row 2" of 3 rows: line 3 (1-based) or line 4 (0-based).
    expect(error).toMatchObject({ line: null, message: expect.stringMatching(/^Row 2: firstName is not accepted by the service \(the service's row 2 is line 3 or line 4/) });
    expect(out.invalid_rows).toBe(1);
  });

  it('a string error naming the last row (Row 3 of 3) shows the numbering: it is put on its line', async () => {
    server.set({ batchErrors: 'string' });
    const rows: Array<[string, string, string]> = [TWO[0]!, TWO[1]!, ['Reject', 'Roe', '(415) 555-0103']];
    const out = join(tmp.dir, 'r.csv');
    const r = await runCli(['sequences', 'batch', csv(rows), '--definition', '1', '--validate-only', '-o', 'json', '--out', out], { env: env() });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).problems).toEqual([expect.objectContaining({ line: 4, message: 'Row 3: firstName is not accepted by the service' })]);
    expect(results(out)[2]).toMatchObject({ status: 'invalid', messages: 'Row 3: firstName is not accepted by the service' });
  });

  it.each<[Variant['batchErrors']]>([['object'], ['rowIndexErrors']])('--rejects with %s errors: the row the service named, as it was, with its words', async (shape) => {
    server.set({ batchErrors: shape });
    const rejects = join(tmp.dir, 'fix-me.csv');
    const r = await runCli(['sequences', 'batch', csv(withBad), '--definition', '1', '--validate-only', '--rejects', rejects], { env: env() });
    expect(r.code, r.stderr).toBe(3);
    expect(readFileSync(rejects, 'utf8').trim().split('\n')).toEqual([
      'First Name,Last Name,Phone,problem',
      expect.stringMatching(/^Reject,Warn,\(415\) 555-0102,(firstName: )?firstName is not accepted by the service$/),
    ]);
  });

  it('--rejects when the service names no line it can be sure of: the row is not guessed, the file says so', async () => {
    server.set({ batchErrors: 'string' });
    const rejects = join(tmp.dir, 'fix-me.csv');
    const r = await runCli(['sequences', 'batch', csv(withBad), '--definition', '1', '--validate-only', '--rejects', rejects], { env: env() });
    expect(r.code).toBe(3);
    expect(readFileSync(rejects, 'utf8')).toBe('First Name,Last Name,Phone,problem\n');
    expect(r.stderr).toMatch(/1 invalid row the service counted without naming is not in .*fix-me\.csv/);
  });

  it('warnings of the validation pass and the create pass are counted once', async () => {
    const rows: Array<[string, string, string]> = [TWO[0]!, ['Cy', 'Warn', '(415) 555-0103']];
    const r = await create(csv(rows));
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.warnings).toBe(1);
    expect(r.json.problems).toHaveLength(1);
  });

  it('a row the create answer rejects (after validation passed it): invalid, exit 3, the others created', async () => {
    // The validation pass says all is well; the create pass names row 1.
    server.override('POST', /\/sequences\/batch$/, (req, res, body) => {
      const b = JSON.parse(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ valid: true, total_attempted: b.rows.length, valid_count: b.rows.length, created_count: 0, created: [], errors: [], warnings: [] }));
    });
    server.override('POST', /\/sequences\/batch$/, (req, res, body) => {
      const b = JSON.parse(body);
      server.store.sequences.push({ id: 900, sequence_definition_id: 1, steps: [{ destination_number: b.rows[0].phoneNumber }], last_updated: new Date().toISOString(), _created_at: new Date().toISOString() });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ valid: false, total_attempted: 2, valid_count: 1, created_count: 1, created: [{ rowIndex: 0, sequence_id: 900 }], errors: [{ rowIndex: 1, message: 'duplicate patient' }], warnings: [] }));
    });
    const r = await create(csv(TWO));
    expect(r.code, r.stderr).toBe(3);
    expect(results(r.out).map((x) => [x.status, x.id])).toEqual([['created', '900'], ['invalid', '']]);
    expect(r.json).toMatchObject({ created: 1, rejected: 1, unknown: 0 });
    expect(r.stderr).toContain('rejected 1 row when creating');
  });
});

describe('a create that fails after the service may have acted', () => {
  it('a gateway 502 HTML page after acting: unknown (exit 7), one-line message, never repeated; --resume proves it created', async () => {
    const file = makeFile(150);
    // 2 validate chunks, then create 1 acts normally, create 2 acts and answers 502.
    let creates = 0;
    const page = actThenPage(() => server);
    server.override(
      'POST',
      /\/sequences\/batch$/,
      async (req, res, body) => {
        if (!JSON.parse(body).validate_only && ++creates === 2) return page(req, res, body);
        return route(server, req, res, body);
      },
      Infinity,
    );
    const r = await create(file, ['--request-timeout', '1']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/an HTML page, probably from a proxy or gateway in front of the service \(POST \/v1\/sequence-manager\/sequences\/batch: 502 Bad Gateway\)/);
    expect(r.stderr).not.toContain('<html>');
    expect(r.stderr).toContain('100 rows created, 50 unknown, 0 not sent');
    expect(server.creates()).toHaveLength(2);
    expect(results(r.out).filter((x) => x.status === 'unknown')).toHaveLength(50);

    const resume = await create(file, ['--resume'], { OUTREACH_TIMEOUT: '1' });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toContain('50 found created, 0 proven not created');
    expect(server.creates()).toHaveLength(2);
    expect(new Set(server.store.sequences.map((s) => (s.steps as Array<{ destination_number: string }>)[0]!.destination_number)).size).toBe(150);
  });

  it('without metrics nothing can be proven absent: unknown rows stay unknown and are listed, the never-sent chunk is sent, --resend-unknown sends them deliberately', async () => {
    server.set({ metrics: false });
    const file = makeFile(250);
    let creates = 0;
    server.override(
      'POST',
      /\/sequences\/batch$/,
      (req, res, body) => {
        if (!JSON.parse(body).validate_only && ++creates === 2) return drop(req, res, body); // lost before acting
        return route(server, req, res, body);
      },
      Infinity,
    );
    const r = await create(file, ['--request-timeout', '1', '--concurrency', '1']); // chunk 3 exactly never sent
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('100 rows created, 100 unknown, 50 not sent');

    const resume = await create(file, ['--resume'], { OUTREACH_TIMEOUT: '1' });
    expect(resume.code, resume.stderr).toBe(7);
    expect(resume.stderr).toContain('0 found created, 0 proven not created, 100 still unknown');
    expect(resume.stderr).toContain('100 rows may or may not have been created (lines 102-201)');
    expect(resume.stderr).toContain('--resume --resend-unknown');
    expect(results(resume.out).map((x) => x.status).filter((s) => s === 'unknown')).toHaveLength(100);
    expect(server.store.sequences).toHaveLength(150); // chunk 3 sent, chunk 2 not again
    expect(resume.json).toMatchObject({ created: 150, unknown: 100, complete: false });

    const resend = await create(file, ['--resume', '--resend-unknown'], { OUTREACH_TIMEOUT: '1' });
    expect(resend.code, resend.stderr).toBe(0);
    expect(server.store.sequences).toHaveLength(250);
    expect(results(resend.out).every((x) => x.status === 'created')).toBe(true);
  });

  it('--resend-unknown without --resume is a usage error', async () => {
    const r = await runCli(['sequences', 'batch', csv(TWO), '--definition', '1', '--yes', '--resend-unknown'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--resend-unknown goes with --resume');
  });
});
