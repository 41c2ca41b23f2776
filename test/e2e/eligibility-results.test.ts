// `eligibility check --csv --out`: every row given back, the input's own columns first, then the
// results (csv, ndjson, xlsx); `--only` keeps the rows to act on. Against the sandbox, in process.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openCsv } from '../../src/csv/reader.js';
import { RESULT_COLUMNS } from '../../src/eligibility/bulk.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  sbx = await startTestSandbox({ eligibilityDelayMs: 0 });
});
afterAll(() => sbx.close());
beforeEach(() => {
  tmp = tempDir('outreach-elig-results-');
  env = sbx.env(tmp.dir);
});
afterEach(() => tmp.cleanup());

const HEADERS = ['Patient ID', 'First Name', 'Last Name', 'DOB', 'Member ID', 'Payer', 'Provider Name', 'NPI'];

/** A copy of the mixed fixture (the journal is written beside it). */
function mixed(): string {
  const csv = join(tmp.dir, 'mixed.csv');
  copyFileSync(join(ROOT, 'fixtures/eligibility-mixed.csv'), csv);
  return csv;
}

async function csvRecords(path: string): Promise<{ headers: string[]; rows: string[][] }> {
  const f = await openCsv(path);
  const rows = [];
  for await (const r of f.rows) rows.push(r.values);
  return { headers: f.headers, rows };
}

async function checkCount(): Promise<number> {
  return (await sandboxRequest<unknown[]>(sbx, 'GET', '/eligibility?limit=1000')).data.length;
}

const check = (...args: string[]) => runCli(['eligibility', 'check', '--csv', ...args], { env });

describe('eligibility check --csv --out: the input row first', () => {
  it('csv: the file\'s own columns and values, then the result columns', async () => {
    const csv = mixed();
    const out = join(tmp.dir, 'r.csv');
    const r = await check(csv, '--out', out);
    expect(r.code, r.stderr).toBe(3);
    const input = await csvRecords(csv);
    const { headers, rows } = await csvRecords(out);
    expect(headers).toEqual([...HEADERS, ...RESULT_COLUMNS]);
    expect(rows.map((x) => x.slice(0, HEADERS.length))).toEqual(input.rows);
    const at = (row: string[], c: string) => row[headers.indexOf(c)];
    expect(rows.map((x) => [at(x, 'line'), at(x, 'customer_patient_id'), at(x, 'result')])).toEqual([
      ['2', 'MRN-2001', 'accepted'],
      ['3', 'MRN-2002', 'accepted'],
      ['4', 'MRN-2003', 'accepted'],
      ['5', 'MRN-2004', 'invalid'],
      ['6', 'MRN-2005', 'invalid'],
      ['7', 'MRN-2006', 'rejected'],
      ['8', 'MRN-2001', 'invalid'],
      ['9', 'MRN-2008', 'accepted'],
    ]);
  });

  it('a column named like one of ours is kept, and ours becomes outreach_<name>; ndjson keeps the same order', async () => {
    const csv = join(tmp.dir, 'status.csv');
    writeFileSync(
      csv,
      'status,customer_patient_id,first_name,last_name,date_of_birth,member_id,payer_id,provider_name,npi,Result\n' +
        'VIP,ST-1,Ana,Diaz,1980-04-02,00012340,87726,Clinic,1234567893,keep me\n',
    );
    const out = join(tmp.dir, 'r.ndjson');
    const r = await check(csv, '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const record = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, unknown>;
    expect(Object.keys(record)).toEqual([
      'status', 'customer_patient_id', 'first_name', 'last_name', 'date_of_birth', 'member_id', 'payer_id', 'provider_name', 'npi', 'Result',
      'line', 'outreach_customer_patient_id', 'outreach_result', 'id', 'outreach_status', 'outcome', 'active_today', 'error',
    ]);
    expect(record).toMatchObject({ status: 'VIP', member_id: '00012340', Result: 'keep me', line: 2, outreach_customer_patient_id: 'ST-1', outreach_result: 'accepted' });
    expect(typeof record.id).toBe('number');
    expect(record.outreach_status).toEqual(expect.any(String));
  });

  it('xlsx: the same columns, the input values as text, our line and id as numbers', async () => {
    const csv = mixed();
    const out = join(tmp.dir, 'r.xlsx');
    const r = await check(csv, '--out', out);
    expect(r.code, r.stderr).toBe(3);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(out);
    const sheet = wb.worksheets[0]!;
    const width = HEADERS.length + RESULT_COLUMNS.length;
    const cells = (n: number) => Array.from({ length: width }, (_, i) => sheet.getRow(n).getCell(i + 1));
    expect(cells(1).map((c) => c.value)).toEqual([...HEADERS, ...RESULT_COLUMNS]);
    const input = await csvRecords(csv);
    expect(sheet.rowCount).toBe(1 + input.rows.length);
    const first = cells(2);
    expect(first.slice(0, HEADERS.length).map((c) => c.value)).toEqual(input.rows[0]);
    // NPI, member id, payer and date of birth stay text; line and id are ours and numbers.
    for (const c of first.slice(0, HEADERS.length)) expect(c.type).toBe(ExcelJS.ValueType.String);
    expect(first[HEADERS.length]!.value).toBe(2);
    expect(first[HEADERS.length + RESULT_COLUMNS.indexOf('id')]!.type).toBe(ExcelJS.ValueType.Number);
    expect(cells(6)[HEADERS.length + RESULT_COLUMNS.indexOf('result')]!.value).toBe('invalid');
  });
});

describe('--only', () => {
  it('inactive,not-supported with --wait: the rows to act on, in --out and on stdout; every row still counted', async () => {
    const csv = mixed();
    const out = join(tmp.dir, 'to-call.csv');
    const r = await check(csv, '--out', out, '--wait', '--interval', '0.5', '--only', 'inactive,not-supported');
    expect(r.code, r.stderr).toBe(3);
    const { headers, rows } = await csvRecords(out);
    const at = (row: string[], c: string) => row[headers.indexOf(c)];
    // Member id ending in 0 → inactive; NS… → not supported (docs/sandbox.md).
    expect(rows.map((x) => [at(x, 'Patient ID'), at(x, 'Member ID'), at(x, 'outcome'), at(x, 'active_today')])).toEqual([
      ['MRN-2002', 'W100000000', 'success', 'false'],
      ['MRN-2003', 'NS100000003', 'not-supported', ''],
    ]);
    expect(r.stderr).toContain('8 rows: 4 submitted, 3 invalid, 1 rejected by the service.\n');
    expect(r.stderr).toContain('Results of 4 checks: 2 active, 1 inactive, 1 not supported.\n');

    // Without --out: the same rows on stdout, as today's result records.
    const csv2 = join(tmp.dir, 'again.csv');
    copyFileSync(csv, csv2);
    const j = await check(csv2, '--wait', '--interval', '0.5', '--only', 'Not Supported', '-o', 'json');
    expect(j.code, j.stderr).toBe(3);
    const records = JSON.parse(j.stdout) as Array<Record<string, unknown>>;
    expect(records.map((x) => [x.line, x.customer_patient_id, x.outcome])).toEqual([[4, 'MRN-2003', 'not-supported']]);
    expect(Object.keys(records[0]!)).toEqual([...RESULT_COLUMNS]);
  });

  it('invalid,rejected without --wait: streamed rows filtered; pending means submitted', async () => {
    const csv = mixed();
    const out = join(tmp.dir, 'fix.csv');
    const r = await check(csv, '--out', out, '--only', 'invalid,rejected');
    expect(r.code, r.stderr).toBe(3);
    const { headers, rows } = await csvRecords(out);
    expect(rows.map((x) => x[headers.indexOf('line')])).toEqual(['5', '6', '7', '8']);
    expect(r.stderr).toContain('8 rows: 4 submitted, 3 invalid, 1 rejected by the service.\n');

    const nd = await check(csv, '--only', 'pending', '-o', 'ndjson');
    expect(nd.code, nd.stderr).toBe(3);
    const lines = nd.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; result: string });
    expect(lines.map((x) => [x.line, x.result])).toEqual([
      [2, 'already-submitted'],
      [3, 'already-submitted'],
      [4, 'already-submitted'],
      [9, 'already-submitted'],
    ]);
  });

  it('a value it does not know, a check result without --wait, or --only without --csv: usage errors, nothing sent', async () => {
    const csv = mixed();
    const before = await checkCount();
    const bad = await check(csv, '--only', 'inactive,maybe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"maybe" is not a result; use one or more of: active, inactive, not-supported,');
    expect(bad.stderr).toContain('not-sent (comma-separated)');
    const noWait = await check(csv, '--only', 'inactive');
    expect(noWait.code).toBe(2);
    expect(noWait.stderr).toContain('add --wait');
    const empty = await check(csv, '--only', ',');
    expect(empty.code).toBe(2);
    const single = await runCli(['eligibility', 'check', '--input', join(ROOT, 'fixtures/eligibility-request.json'), '--only', 'active'], { env });
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('--only only applies with --csv');
    expect(await checkCount()).toBe(before);
  });
});
