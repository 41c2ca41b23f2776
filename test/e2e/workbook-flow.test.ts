// The coordinator's day, end to end through the built CLI (bin/outreach.js, spawned) against a
// sandbox that runs the outreach at a day per second: a workbook written by another program
// (fixtures/patients.xlsx, by scripts/make-workbook-fixture.py: number cells holding phones, date
// cells, a formula, a notes sheet, four broken rows) is uploaded with --skip-invalid; the rejects
// workbook, fixed, validates as it is; the outcomes come back to a workbook whose rows match the
// outcomes docs/sandbox.md gives for each phone number, and --only not-reached lists exactly the
// unreached.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const WORKBOOK = join(ROOT, 'fixtures/patients.xlsx');
/** Sheet row → the result its phone number gives (docs/sandbox.md, "What a call gives"). */
const EXPECTED: Array<[number, string]> = [
  [2, 'completed'], // …0120: confirmed
  [3, 'completed'], // …0121
  [4, 'completed'], // …0122 (a text cell)
  [5, 'completed'], // …0125: transferred to staff
  [6, 'skipped'], // no first name
  [7, 'skipped'], // too few digits
  [9, 'skipped'], // 2030-02-30
  [10, 'skipped'], // day-first date
  [11, 'declined'], // …0126
  [12, 'callback-requested'], // …0127
  [13, 'opted-out'], // …0199
  [14, 'completed'], // …0124
  [15, 'not-reached'], // …0128: line dropped, every step
  [16, 'not-reached'], // …0129: voicemail, every step
];

async function sheetRows(path: string): Promise<Array<Record<string, unknown>>> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  const sheet = wb.worksheets[0]!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const rows: Array<Record<string, unknown>> = [];
  sheet.eachRow((row, n) => {
    if (n === 1) return;
    rows.push(Object.fromEntries(header.map((h, i) => [h, row.getCell(i + 1).value])));
  });
  return rows;
}

describe('a workbook from upload to the list of whom to call', () => {
  let sbx: TestSandbox;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    sbx = await startTestSandbox({ scheduler: true, speed: 86_400, schedulerTickMs: 20 });
    tmp = tempDir();
  });
  afterAll(async () => {
    await sbx.close();
    tmp.cleanup();
  });

  it('uploads, hands back the rows to fix, and brings the outcomes back by sheet row', { timeout: 120_000 }, async () => {
    const env = sbx.env(tmp.dir);
    const run = (...args: string[]) => runCli(args, { env, spawn: true, timeoutMs: 90_000 });
    const upload = join(tmp.dir, 'upload.csv');
    const rejects = join(tmp.dir, 'fix-me.xlsx');

    const batch = await run('sequences', 'batch', WORKBOOK, '--definition', '1', '--yes', '--skip-invalid', '--out', upload, '--rejects', rejects);
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stderr).toContain('Reading sheet "Patients" (1 of 2');
    for (const line of [6, 7, 9, 10]) expect(batch.stderr).toContain(`line ${line}:`);
    expect(batch.stderr).toContain('10 sequences created');

    // The rejects workbook: the four rows as they were (sheet columns), then `problem`; fixed, it validates.
    expect(statSync(rejects).mode & 0o777).toBe(0o600);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(rejects);
    const sheet = wb.worksheets[0]!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['First Name', 'Last Name', 'Phone', 'Appointment Date', 'Appointment Time', 'Clinic Name', 'Provider Name', 'problem']);
    expect(sheet.rowCount).toBe(5);
    expect(sheet.getRow(2).getCell(2).value).toBe('Novak'); // row 6: its first name is missing
    expect(sheet.getRow(3).getCell(3).value).toBe('555012'); // row 7: a number cell, as its digits
    for (let r = 2; r <= 5; r++) {
      const row = sheet.getRow(r);
      row.getCell(1).value = row.getCell(1).value || 'Pat';
      row.getCell(3).value = `(415) 555-01${40 + r}`;
      row.getCell(4).value = '2030-06-01';
    }
    await wb.xlsx.writeFile(rejects);
    const again = await run('sequences', 'batch', rejects, '--definition', '1', '--validate-only');
    expect(again.code, again.stderr).toBe(0);

    // The outcomes, once every sequence has ended, back into a workbook.
    const followup = join(tmp.dir, 'followup.xlsx');
    const outcomes = await run('sequences', 'outcomes', WORKBOOK, '--from', upload, '--wait', '--interval', '2', '--out', followup);
    expect(outcomes.code, outcomes.stderr).toBe(0);
    expect(outcomes.stderr).toContain('14 rows: 10 sequences, 4 skipped · 10 ended, 0 in progress.');
    expect(statSync(followup).mode & 0o777).toBe(0o600);
    const rows = await sheetRows(followup);
    expect(Object.keys(rows[0]!).slice(0, 8)).toEqual(['First Name', 'Last Name', 'Phone', 'Appointment Date', 'Appointment Time', 'Clinic Name', 'Provider Name', 'line']);
    expect(rows.map((r) => [r.line, r.result])).toEqual(EXPECTED);
    expect(rows[0]).toMatchObject({ Phone: '4155550120', 'Appointment Date': '2030-05-17', status: 'completed', outcome: 'appointment-confirmed' });

    // Whom to call: exactly the unreached.
    const only = await run('sequences', 'outcomes', WORKBOOK, '--from', upload, '--only', 'not-reached', '-o', 'json');
    expect(only.code, only.stderr).toBe(0);
    const listed = JSON.parse(only.stdout) as Array<Record<string, unknown>>;
    expect(listed.map((r) => [r.line, r['First Name'], r.result])).toEqual([
      [15, 'Lena', 'not-reached'],
      [16, 'Yuki', 'not-reached'],
    ]);
  });
});
