// Excel workbooks in: `sequences batch` and `eligibility check --csv` read a .xlsx like a CSV, with
// sheet row numbers for lines, against a real sandbox. The fixtures come from
// scripts/make-workbook-fixture.py (Excel's layout, written without exceljs); the 250-row workbook
// of the resume test is written here with exceljs's streaming writer, as a program exporting would.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;

beforeEach(async () => {
  sbx = await startTestSandbox({ eligibilityDelayMs: 0 });
  tmp = tempDir();
});
afterEach(async () => {
  await sbx.close();
  tmp.cleanup();
});

interface Seq {
  id: number;
  phone_number: string;
}

/** The sequences the runs created (ids 1-6 are the seed's). */
async function createdSequences(): Promise<Seq[]> {
  const r = await sandboxRequest<{ data: Seq[] }>(sbx, 'GET', '/sequence-manager/sequences?limit=1000');
  return r.data.data.filter((s) => s.id > 6);
}

function resultsOf(path: string): Array<{ line: number; status: string; id: string }> {
  const [, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  return lines.map((l) => {
    const [line, status, id] = l.split(',');
    return { line: Number(line), status: status!, id: id! };
  });
}

const GOOD_PHONES = ['+14155550120', '+14155550121', '+14155550122', '+14155550125', '+14155550126', '+14155550127', '+14155550199', '+14155550124', '+14155550128', '+14155550129'];

describe('sequences batch with fixtures/patients.xlsx', () => {
  it('--validate-only: the broken rows by sheet row, the good ones valid, nothing created, no cell values in messages', async () => {
    const r = await runCli(['sequences', 'batch', 'fixtures/patients.xlsx', '--definition', '1', '--validate-only', '-o', 'json'], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ rows: 14, valid_rows: 10, invalid_rows: 4 });
    expect(out.problems.map((p: { line: number; field: string; code: string }) => [p.line, p.field, p.code])).toEqual([
      [6, 'firstName', 'required'],
      [7, 'phoneNumber', 'too_short'],
      [9, 'appointmentDate', 'impossible_date'],
      [10, 'appointmentDate', 'day_first'],
    ]);
    // Said once, before the mapping; the workbook's headers map to definition 1's inputs.
    expect(r.stderr.split('Reading sheet "Patients" (1 of 2; --sheet NAME|N to choose another).').length).toBe(2);
    expect(r.stderr).toMatch(/Appointment Date\s+→ appointmentDate/);
    expect(r.stderr).toMatch(/Clinic Name\s+→ clinicName/);
    expect(r.stdout + r.stderr).not.toMatch(/Kim|Rossi|Brown|555012\b|2030-02-30|17\/05/);
    expect(await createdSequences()).toEqual([]);
  });

  it('--yes --skip-invalid --out: the good rows created once, each phone read from its cell; a second run is refused', async () => {
    const out = join(tmp.dir, 'results.csv');
    const args = ['sequences', 'batch', 'fixtures/patients.xlsx', '--definition', '1', '--yes', '--skip-invalid', '--out', out];
    const r = await runCli(args, { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('10 sequences created');
    const results = resultsOf(out);
    expect(results.map((x) => [x.line, x.status])).toEqual([
      [2, 'created'], [3, 'created'], [4, 'created'], [5, 'created'], [6, 'skipped'], [7, 'skipped'], [9, 'skipped'], [10, 'skipped'],
      [11, 'created'], [12, 'created'], [13, 'created'], [14, 'created'], [15, 'created'], [16, 'created'],
    ]);
    const seqs = await createdSequences();
    expect(seqs.map((s) => s.phone_number).sort()).toEqual([...GOOD_PHONES].sort());
    // The journal keys rows by sheet row.
    const journal = readFileSync(`${out}.journal.ndjson`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(journal.find((j) => j.type === 'intent').lines).toEqual([2, 3, 4, 5, 11, 12, 13, 14, 15, 16]);

    const again = await runCli(args, { env: sbx.env(tmp.dir) });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('fixtures/patients.xlsx was already uploaded');
    expect((await createdSequences()).length).toBe(10);
  });

  it('--sheet: the Notes sheet has none of the columns; a sheet that does not exist is listed against the ones that do', async () => {
    const notes = await runCli(['sequences', 'batch', 'fixtures/patients.xlsx', '--definition', '1', '--validate-only', '--sheet', 'notes'], { env: sbx.env(tmp.dir) });
    expect(notes.code).toBe(2);
    expect(notes.stderr).not.toContain('Reading sheet');
    expect(notes.stderr).toContain('error: fixtures/patients.xlsx, line 1: no column for firstName');
    const missing = await runCli(['sequences', 'batch', 'fixtures/patients.xlsx', '--definition', '1', '--validate-only', '--sheet', '3'], { env: sbx.env(tmp.dir) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: fixtures/patients.xlsx has no sheet "3"; its sheets: 1 "Patients", 2 "Notes"');
  });

  it('usage errors, exit 2, no stack trace: --sheet with a CSV, --delimiter with a workbook, .xls, a CSV renamed .xlsx', async () => {
    const xls = join(tmp.dir, 'pm.xls');
    writeFileSync(xls, Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
    const renamed = join(tmp.dir, 'pm.xlsx');
    copyFileSync('fixtures/patients.csv', renamed);
    const cases: Array<[string[], string]> = [
      [['fixtures/patients.csv', '--sheet', '1'], '--sheet applies to an Excel workbook (.xlsx) only'],
      [['fixtures/patients.xlsx', '--delimiter', ';'], '--delimiter does not apply to an Excel workbook'],
      [[xls], `${xls} is an old Excel (.xls) workbook, which is not read; save it as .xlsx (Excel Workbook) or CSV UTF-8 and try again`],
      [[renamed], `${renamed} is not an Excel workbook although its name ends in .xlsx`],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['sequences', 'batch', ...args, '--definition', '1', '--validate-only'], { env: sbx.env(tmp.dir) });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

/**
 * Two sheets of patients with the same columns ("Last week", then "Patients"), as a program
 * exporting them writes a workbook: exceljs's streaming writer, shared strings.
 */
async function writeBigWorkbook(path: string, rows: number): Promise<void> {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true, useStyles: true });
  const areas = ['415', '628', '510', '650', '408', '707', '916', '925', '209', '559'];
  for (const [name, first] of [['Last week', 5000], ['Patients', 0]] as const) {
    const ws = wb.addWorksheet(name);
    ws.addRow(['First Name', 'Last Name', 'Phone', 'Appointment Date', 'Appointment Time']).commit();
    for (let i = 0; i < rows; i++) {
      const digits = `${areas[i % 10]}555${String(first + Math.floor(i / 10)).padStart(4, '0')}`;
      const phone = i % 2 ? Number(digits) : `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
      const row = ws.addRow([`Pat${first + i}`, 'Test', phone, new Date(Date.UTC(2030, 4, 1 + (i % 28))), '09:30']);
      row.getCell(4).numFmt = 'm/d/yyyy';
      row.commit();
    }
    ws.commit();
  }
  await wb.commit();
}

/** A proxy that drops the connection of the n-th create (non-validate) batch request before the sandbox sees it. */
async function dropCreate(target: string, n: number) {
  const t = new URL(target);
  let creates = 0;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    if (req.method === 'POST' && req.url?.includes('/sequences/batch') && !JSON.parse(body).validate_only && ++creates === n) {
      req.socket.destroy();
      return;
    }
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, async (answer) => {
      let text = '';
      for await (const c of answer) text += c;
      const headers = { ...answer.headers };
      delete headers['content-length'];
      res.writeHead(answer.statusCode ?? 502, headers);
      res.end(text);
    });
    up.on('error', () => req.socket.destroy());
    up.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('an interrupted workbook upload', () => {
  it('stops with the command to continue (carrying --sheet); --resume sends the rest, every patient once', async () => {
    const file = join(tmp.dir, 'export.xlsx');
    await writeBigWorkbook(file, 250);
    const out = join(tmp.dir, 'results.csv');
    const proxy = await dropCreate(sbx.baseUrl, 2);
    try {
      const r = await runCli(['sequences', 'batch', file, '--sheet', 'Patients', '--definition', '1', '--yes', '--out', out, '--request-timeout', '2', '--concurrency', '1'], {
        env: sbx.env(tmp.dir, { OUTREACH_BASE_URL: proxy.url }),
      });
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).not.toContain('Reading sheet'); // --sheet chose it
      expect(r.stderr).toContain(`To continue: outreach sequences batch ${file} --definition 1 --sheet Patients --out ${out} --resume --yes`);
    } finally {
      await proxy.close();
    }
    expect((await createdSequences()).length).toBe(100);

    // Resumed with the other sheet (same columns, other patients on the same rows): refused, nothing sent.
    const other = await runCli(['sequences', 'batch', file, '--sheet', 'Last week', '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir) });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('the row is not the one the journal recorded for this line');
    expect((await createdSequences()).length).toBe(100);

    const resume = await runCli(['sequences', 'batch', file, '--sheet', 'Patients', '--definition', '1', '--out', out, '--resume', '--yes'], { env: sbx.env(tmp.dir) });
    expect(resume.code, resume.stderr).toBe(0);
    const results = resultsOf(out);
    expect(results.map((x) => x.line)).toEqual(Array.from({ length: 250 }, (_, i) => i + 2)); // sheet rows 2…251
    expect(results.every((x) => x.status === 'created')).toBe(true);
    const phones = (await createdSequences()).map((s) => s.phone_number);
    expect(phones.length).toBe(250);
    expect(new Set(phones).size).toBe(250);

  });
});

describe('eligibility check --csv with fixtures/eligibility.xlsx', () => {
  it('checks the good rows (dates, padded and number ids read from their cells), reports the bad one by sheet row; the re-run command keeps --sheet', async () => {
    const book = join(tmp.dir, 'eligibility.xlsx'); // the journal goes beside the file
    copyFileSync('fixtures/eligibility.xlsx', book);
    const out = join(tmp.dir, 'results.csv');
    const r = await runCli(['eligibility', 'check', '--csv', book, '--sheet', '1', '--out', out, '--wait', '--interval', '0.5'], { env: sbx.env(tmp.dir) });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('  line 6: DOB: the date of birth is in the future\n');
    expect(r.stderr).toContain('5 rows: 4 submitted, 1 invalid.');
    expect(r.stderr).toContain(`outreach eligibility check --csv ${book} --sheet 1 --out ${out} --wait`);
    const [head, ...lines] = readFileSync(out, 'utf8').trim().split('\n');
    const cols = head!.split(',');
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v])));
    expect(rows.map((x) => [x.line, x.customer_patient_id, x.result, x.outcome, x.active_today])).toEqual([
      ['2', 'MRN-3001', 'accepted', 'success', 'true'],
      ['3', 'MRN-3002', 'accepted', 'success', 'false'],
      ['4', 'MRN-3003', 'accepted', 'not-supported', ''],
      ['5', 'MRN-3004', 'accepted', 'success', 'true'],
      ['6', 'MRN-3005', 'invalid', '', ''],
    ]);
    // What the service received: the DOB from its date cell, the member id with its zeros, the NPI's digits.
    const checks = await sandboxRequest<Array<{ id: number }>>(sbx, 'GET', '/eligibility?limit=100');
    const dev = checks.data.find((c) => (c as { customer_patient_id?: string }).customer_patient_id === 'MRN-3004')!;
    const full = await sandboxRequest<Record<string, unknown>>(sbx, 'GET', `/eligibility/${dev.id}`);
    expect(JSON.stringify(full.data)).toContain('000012345');
  });

  it('--sheet without --csv, or with a CSV: usage errors', async () => {
    const a = await runCli(['eligibility', 'check', '--sheet', '1', '--first-name', 'Ana'], { env: sbx.env(tmp.dir) });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--sheet only applies with --csv.');
    const b = await runCli(['eligibility', 'check', '--csv', 'fixtures/eligibility-mixed.csv', '--sheet', '1'], { env: sbx.env(tmp.dir) });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--sheet applies to an Excel workbook (.xlsx) only');
  });
});
