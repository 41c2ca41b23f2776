// The journal of `eligibility check --csv` on the shared engine: keyed hashes instead of patient ids,
// the damage rule, version 1 journals rewritten and continued, the quiet period before
// --resend-unknown trusts absence, and results written in file order while rows are streamed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
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

function writeCsv(prefix: string, n: number, extra: string[] = []): string {
  const path = join(tmp.dir, `${prefix}.csv`);
  const lines = ['customer_patient_id,first_name,last_name,date_of_birth,member_id,payer_id,provider_name,npi'];
  for (let i = 1; i <= n; i++) lines.push(`${prefix}-${i},Pat${i},Test,1980-01-${String((i % 28) + 1).padStart(2, '0')},W${1000 + i}1,87726,Clinic,1234567893`);
  writeFileSync(path, [...lines, ...extra].join('\n') + '\n');
  return path;
}

const records = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the bulk journal', () => {
  it('holds keyed hashes, never a patient id; a re-run recognises every row and sends none again', async () => {
    const csv = writeCsv('PRIV', 6);
    const first = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(first.code, first.stderr).toBe(0);
    const journal = `${csv}.outreach-eligibility.ndjson`;
    const text = readFileSync(journal, 'utf8');
    expect(text).not.toContain('PRIV-');
    expect(text).not.toMatch(/Pat\d|W\d{5}|1980-01/);
    const [begin, ...rest] = records(journal);
    expect(begin).toMatchObject({ type: 'begin', kind: 'eligibility-bulk', v: 2, key_id: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(rest.filter((r) => r.type === 'sending')).toHaveLength(6);
    expect(rest.filter((r) => r.type === 'accepted')).toHaveLength(6);

    const again = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('6 rows: 0 submitted (6 already in the journal).');
    expect(await checksFor('PRIV-')).toHaveLength(6);
  });

  it('a damaged line before the last refuses the run (exit 2) and sends nothing; a torn last line is ignored', async () => {
    const csv = writeCsv('DMG', 3);
    const journal = `${csv}.outreach-eligibility.ndjson`;
    expect((await runCli(['eligibility', 'check', '--csv', csv], { env })).code).toBe(0);
    const good = readFileSync(journal, 'utf8');
    writeFileSync(journal, `${good}{"type":"sending","ke`); // a crash mid-write
    const torn = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(torn.code, torn.stderr).toBe(0);
    const lines = good.trim().split('\n');
    lines.splice(2, 0, 'garbage');
    writeFileSync(journal, `${lines.join('\n')}\n`);
    const damaged = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toContain(`The journal ${journal} is damaged (line 3 is not a journal record); nothing was sent.`);
    expect(await checksFor('DMG-')).toHaveLength(3);
  });

  it('a version 1 journal (ids in clear) is rewritten keyed, and the run continues exactly where it stopped', async () => {
    const csv = writeCsv('OLD', 3);
    const journal = `${csv}.outreach-eligibility.ndjson`;
    // OLD-1 was accepted by an earlier version; OLD-2 was being sent when it stopped; OLD-3 never sent.
    const at = new Date(Date.now() - 3_600_000).toISOString();
    writeFileSync(
      journal,
      [
        { event: 'sending', key: 'OLD-1', line: 2, at },
        { event: 'accepted', key: 'OLD-1', id: 999_001, status: 'queued' },
        { event: 'sending', key: 'OLD-2', line: 3, at },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', join(tmp.dir, 'r.csv')], { env });
    expect(r.code, r.stderr).toBe(7); // OLD-2 stays unknown: nothing proves it either way
    expect(r.stderr).toContain('in the current journal format');
    expect(r.stderr).toContain('3 rows: 1 submitted (1 already in the journal), 1 unknown');
    expect((await checksFor('OLD-')).map((c) => c.customer_patient_id)).toEqual(['OLD-3']);
    const text = readFileSync(journal, 'utf8');
    expect(text).not.toContain('OLD-');
    expect(records(journal)[0]).toMatchObject({ type: 'begin', kind: 'eligibility-bulk', v: 2, migrated_from: 1 });
    // The input's 8 columns first, then line, customer_patient_id (ours, renamed), result.
    const results = readFileSync(join(tmp.dir, 'r.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').slice(8, 11).join(','));
    expect(results).toEqual(['2,OLD-1,already-submitted', '3,OLD-2,unknown', '4,OLD-3,accepted']);
  });

  it('--resend-unknown waits out the quiet period after the last send before trusting that a row is absent', async () => {
    const csv = writeCsv('QUIET', 2);
    const journal = `${csv}.outreach-eligibility.ndjson`;
    const first = await runCli(['eligibility', 'check', '--csv', csv], { env });
    expect(first.code).toBe(0);
    // QUIET-2's last attempt, as the journal would hold it after a lost answer a moment ago.
    const [begin, ...rest] = records(journal);
    const hashOf2 = rest.find((r) => r.type === 'sending' && r.line === 3)!.key;
    const ofRow1 = rest.filter((r) => r.key !== hashOf2 && r.key !== undefined);
    writeFileSync(
      journal,
      [begin, ...ofRow1, { type: 'sending', key: hashOf2, line: 3, at: new Date().toISOString() }, { type: 'unknown', key: hashOf2, at: new Date().toISOString(), reason: 'lost' }]
        .map((e) => JSON.stringify({ ...e, ...(e === begin ? { request_timeout_s: 10 } : {}) }))
        .join('\n') + '\n',
    );
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--resend-unknown'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Waiting 1[0-5] s before looking up the rows whose fate is unknown/);
    // The lookup then found QUIET-2's check (it was created): proof, so it is not sent again.
    expect((await checksFor('QUIET-')).length).toBe(2);
  });

  it('streams: results are written in file order, every row once, with rows invalid and valid interleaved', async () => {
    const bad = Array.from({ length: 40 }, (_, i) => `BAD-${i},X,Y,not-a-date,W1,87726,Clinic,1234567893`);
    const csv = writeCsv('ORD', 300, bad);
    const out = join(tmp.dir, 'ord.csv');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', '8'], { env });
    expect(r.code, r.stderr).toBe(3);
    const lines = readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split(',')[8])); // after the input's 8 columns
    expect(lines).toEqual(Array.from({ length: 340 }, (_, i) => i + 2));
    expect(await checksFor('ORD-')).toHaveLength(300);
  });
});
