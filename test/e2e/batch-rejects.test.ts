// `sequences batch --rejects FILE`: the invalid rows as they were, plus a `problem` column, in CSV
// or XLSX; fixed, that file validates as it is. Against the sandbox (and the variant server for a row
// the create pass rejects), in process.
import { copyFileSync, existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openCsv } from '../../src/csv/reader.js';
import { csvField } from '../../src/csv/results.js';
import { baseEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { json, startFaultServer } from '../helpers/faultServer.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startVariantServer, variantEnv } from '../helpers/variantServer.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(() => sbx.close());
beforeEach(() => {
  tmp = tempDir('outreach-rejects-');
  env = sbx.env(tmp.dir);
});
afterEach(() => tmp.cleanup());

const MISTAKES = join(ROOT, 'fixtures/patients-with-mistakes.csv');
const INVALID_LINES = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const mode = (path: string) => statSync(path).mode & 0o777;

async function csvRecords(path: string): Promise<{ headers: string[]; rows: Array<{ line: number; values: string[] }> }> {
  const f = await openCsv(path);
  const rows = [];
  for await (const r of f.rows) rows.push(r);
  return { headers: f.headers, rows };
}

/** The file's lines by line number (the fixture has no quoted line breaks). */
function fileLines(path: string): Map<number, string> {
  return new Map(
    readFileSync(path, 'utf8')
      .replace(/\n$/, '')
      .split('\n')
      .map((l, i) => [i + 1, l]),
  );
}

/** A fixed copy of the rejects: every row given valid values, the problem column left as it is. */
function fixRow(headers: string[], values: string[], i: number): string[] {
  const fixed = [...values];
  const set = (name: string, v: string) => (fixed[headers.indexOf(name)] = v);
  set('First Name', values[headers.indexOf('First Name')] || 'Pat');
  set('Last Name', values[headers.indexOf('Last Name')] || 'Doe');
  set('Phone', `(415) 555-02${String(10 + i)}`);
  set('Appointment Date', '2030-06-01');
  return fixed;
}

function writeCsv(path: string, headers: string[], rows: string[][]): void {
  writeFileSync(path, [headers, ...rows].map((r) => r.map(csvField).join(',')).join('\n') + '\n');
}

const batch = (file: string, ...extra: string[]) => runCli(['sequences', 'batch', file, '--definition', '1', ...extra], { env });

describe('--rejects FILE.csv', () => {
  it('--validate-only: exactly the invalid rows, as they were, then their problems; fixed, that file validates', async () => {
    const rejects = join(tmp.dir, 'r.csv');
    const r = await batch(MISTAKES, '--validate-only', '--rejects', rejects);
    expect(r.code, r.stderr).toBe(3);
    expect(mode(rejects)).toBe(0o600);
    const input = fileLines(MISTAKES);
    const out = fileLines(rejects);
    // The file's own header, then `problem`; each row byte for byte as in the input, then its problem.
    expect(out.get(1)).toBe(`${input.get(1)},problem`);
    expect(out.size).toBe(1 + INVALID_LINES.length);
    INVALID_LINES.forEach((line, i) => expect(out.get(i + 2)!.startsWith(`${input.get(line)},`), `line ${line}`).toBe(true));
    const { headers, rows } = await csvRecords(rejects);
    expect(headers).toEqual(['First Name', 'Last Name', 'Phone', 'Appointment Date', 'Clinic Name', 'problem']);
    const problem = (i: number) => rows[i]!.values[5];
    expect(problem(0)).toBe('First Name: first name is empty');
    expect(problem(2)).toMatch(/^Phone: the phone number was turned into a number by Excel/);
    expect(problem(8)).toBe('Appointment Date: appointmentDate (Appointment date) is empty');
    // Said on stderr, with the way to check the fixed file; the next command carries --rejects.
    expect(r.stderr).toContain(`Rejected rows: ${rejects} (10 rows: fix them there and upload that file)\n`);
    expect(r.stderr).toContain(
      `Or fix the 10 rows in ${rejects} (its problem column says what is wrong) and check that file:\n  outreach sequences batch ${rejects} --definition 1 --validate-only\n`,
    );
    expect(r.stderr).toContain(`outreach sequences batch ${MISTAKES} --definition 1 --validate-only --rejects ${rejects}\n`);
    expect(JSON.parse((await batch(MISTAKES, '--validate-only', '--rejects', rejects, '-o', 'json')).stdout)).toMatchObject({ rejects_file: rejects });

    // Fixed in place (the problem column left as it was) and uploaded again: valid, `problem` not even mentioned.
    const fixed = join(tmp.dir, 'fixed.csv');
    writeCsv(fixed, headers, rows.map((row, i) => fixRow(headers, row.values, i)));
    const again = await batch(fixed, '--validate-only', '--rejects', join(tmp.dir, 'r2.csv'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('10 rows, 10 valid, 0 invalid');
    expect(again.stderr).not.toMatch(/ignored|"problem"/);
    // No invalid row: the header alone.
    expect(readFileSync(join(tmp.dir, 'r2.csv'), 'utf8')).toBe('First Name,Last Name,Phone,Appointment Date,Clinic Name,problem\n');
    expect(again.stderr).toContain(`Rejected rows: none (${join(tmp.dir, 'r2.csv')} holds the header only)`);
  });

  it("keeps values exactly (leading zeros, inner and edge spaces, commas, quotes) and replaces the input's own problem column", async () => {
    const file = join(tmp.dir, 'odd.csv');
    writeFileSync(
      file,
      'Chart No,First Name,problem,Last Name,Phone,Appointment Date,,Clinic Name\n' +
        '00042,Ana,old problem,"Silva, Jr.",call me,2030-05-17,x,"  North  ""Main"" Clinic "\n' +
        '007,Ben,,Ray,(415) 555-0101,2030-05-17,y,North\n' +
        '0100,Cy,also old,Lu,+1 415 555 0102,17/05/2030,z,=1+1\n',
    );
    const rejects = join(tmp.dir, 'odd-rejects.csv');
    const r = await batch(file, '--validate-only', '--rejects', rejects);
    expect(r.code, r.stderr).toBe(3);
    const { headers, rows } = await csvRecords(rejects);
    expect(headers).toEqual(['Chart No', 'First Name', 'Last Name', 'Phone', 'Appointment Date', 'column_7', 'Clinic Name', 'problem']);
    expect(rows.map((x) => x.values)).toEqual([
      ['00042', 'Ana', 'Silva, Jr.', 'call me', '2030-05-17', 'x', '  North  "Main" Clinic ', 'Phone: the phone number contains letters'],
      // A phone number written with spaces stays as it is; a formula is neutralised.
      ['0100', 'Cy', 'Lu', '+1 415 555 0102', '17/05/2030', 'z', "'=1+1", expect.stringMatching(/^Appointment Date: the date looks day-first/)],
    ]);
  });

  it('--dry-run writes the rows its local checks find invalid', async () => {
    const rejects = join(tmp.dir, 'r.csv');
    const r = await batch(MISTAKES, '--dry-run', '--rejects', rejects);
    expect(r.code, r.stderr).toBe(3);
    expect((await csvRecords(rejects)).rows).toHaveLength(INVALID_LINES.length);
    expect(r.stderr).toContain(`Or fix the 10 rows in ${rejects} (its problem column says what is wrong) and run the same command on that file.`);
  });

  it('a create run with --skip-invalid writes the skipped rows; a stale rejects file is replaced', async () => {
    const file = join(tmp.dir, 'patients.csv');
    copyFileSync(MISTAKES, file);
    const rejects = join(tmp.dir, 'r.csv');
    writeFileSync(rejects, 'stale\n');
    const stop = await batch(file, '--yes', '--rejects', rejects);
    expect(stop.code).toBe(3);
    expect((await csvRecords(rejects)).rows.map((x) => x.line)).toEqual(INVALID_LINES.map((_, i) => i + 2));
    writeFileSync(rejects, 'stale\n');
    const r = await batch(file, '--yes', '--skip-invalid', '--rejects', rejects);
    expect(r.code, r.stderr).toBe(0);
    const { rows } = await csvRecords(rejects);
    expect(rows.map((x) => x.values[0])).toEqual(['', 'Aisha', 'Robert', 'Emily', 'David', 'Sofia', 'Michael', 'Grace', 'Daniel', 'Ana']);
    expect(r.stderr).toContain(`Rejected rows: ${rejects} (10 rows: fix them there and upload that file)`);
  });

  it('a row the service rejects when creating is written with the service\'s words', async () => {
    const server = await startVariantServer();
    try {
      server.override('POST', /\/sequences\/batch$/, (_req, res, body) => {
        const b = JSON.parse(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ valid: true, total_attempted: b.rows.length, valid_count: b.rows.length, created_count: 0, created: [], errors: [], warnings: [] }));
      });
      server.override('POST', /\/sequences\/batch$/, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ valid: false, total_attempted: 2, valid_count: 1, created_count: 1, created: [{ rowIndex: 0, sequence_id: 900 }], errors: [{ rowIndex: 1, message: 'duplicate patient' }], warnings: [] }));
      });
      const file = join(tmp.dir, 'two.csv');
      writeFileSync(file, 'First Name,Last Name,Phone\nAnn,Lee,(415) 555-0101\nBob,Ray,(415) 555-0102\n');
      const rejects = join(tmp.dir, 'r.csv');
      const r = await runCli(['sequences', 'batch', file, '--definition', '1', '--yes', '--rejects', rejects], { env: variantEnv(server, baseEnv(tmp.dir)) });
      expect(r.code, r.stderr).toBe(3);
      expect(readFileSync(rejects, 'utf8')).toBe('First Name,Last Name,Phone,problem\nBob,Ray,(415) 555-0102,duplicate patient\n');
    } finally {
      await server.close();
    }
  });
});

describe('--rejects FILE.xlsx', () => {
  it('the same rows in a workbook, every value text as it was; fixed, they validate', async () => {
    const rejects = join(tmp.dir, 'r.xlsx');
    const r = await batch(MISTAKES, '--validate-only', '--rejects', rejects);
    expect(r.code, r.stderr).toBe(3);
    expect(mode(rejects)).toBe(0o600);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(rejects);
    const sheet = wb.worksheets[0]!;
    const table: string[][] = [];
    sheet.eachRow({ includeEmpty: true }, (row) => {
      const cells = Array.from({ length: 6 }, (_, i) => row.getCell(i + 1));
      for (const c of cells) expect([ExcelJS.ValueType.String, ExcelJS.ValueType.Null]).toContain(c.type);
      table.push(cells.map((c) => (c.value === null ? '' : String(c.value))));
    });
    const { headers, rows } = await csvRecords(MISTAKES);
    expect(table[0]).toEqual([...headers, 'problem']);
    expect(table.slice(1).map((row) => row.slice(0, 5))).toEqual(rows.filter((x) => INVALID_LINES.includes(x.line)).map((x) => x.values));
    expect(table[1]![5]).toBe('First Name: first name is empty');

    // Fixed in the workbook itself (as a person would, in Excel), the file validates as it is.
    table.slice(1).forEach((row, i) => {
      const fixedRow = fixRow(table[0]!, row, i);
      fixedRow.forEach((v, c) => (sheet.getRow(i + 2).getCell(c + 1).value = v));
    });
    await wb.xlsx.writeFile(rejects);
    const again = await batch(rejects, '--validate-only');
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('--out FILE.xlsx', () => {
  it('every row with its status, in a workbook', async () => {
    const out = join(tmp.dir, 'results.xlsx');
    const r = await batch(MISTAKES, '--validate-only', '--out', out);
    expect(r.code, r.stderr).toBe(3);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(out);
    const sheet = wb.worksheets[0]!;
    expect(sheet.rowCount).toBe(13);
    expect([1, 2, 3, 4].map((i) => sheet.getRow(1).getCell(i).value)).toEqual(['line', 'status', 'sequence_id', 'messages']);
    expect([1, 2].map((i) => sheet.getRow(2).getCell(i).value)).toEqual([2, 'valid']);
    expect([1, 2, 4].map((i) => sheet.getRow(3).getCell(i).value)).toEqual([3, 'invalid', 'firstName: first name is empty']);
  });
});

describe('--rejects is checked before anything is sent', () => {
  it('a symlink (dangling or not): exit 2, nothing sent, its target untouched', async () => {
    const server = await startFaultServer(json(200, {}));
    try {
      const target = join(tmp.dir, 'victim.csv');
      writeFileSync(target, 'precious\n');
      const link = join(tmp.dir, 'r.csv');
      symlinkSync(target, link);
      const dangling = join(tmp.dir, 'r2.xlsx');
      symlinkSync(join(tmp.dir, 'nowhere.xlsx'), dangling);
      const fenv = { ...baseEnv(tmp.dir), OUTREACH_API_KEY: 'k', OUTREACH_BASE_URL: server.url };
      for (const [path, extra] of [
        [link, ['--validate-only']],
        [dangling, ['--yes']],
      ] as const) {
        const r = await runCli(['sequences', 'batch', MISTAKES, '--definition', '1', ...extra, '--rejects', path], { env: fenv });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/symbolic link/);
        expect(lstatSync(path).isSymbolicLink()).toBe(true);
      }
      expect(server.requests).toEqual([]);
      expect(readFileSync(target, 'utf8')).toBe('precious\n');
      expect(existsSync(join(tmp.dir, 'nowhere.xlsx'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('a format it cannot write, the input file itself, or the --out file: usage errors', async () => {
    const nd = await batch(MISTAKES, '--validate-only', '--rejects', join(tmp.dir, 'r.ndjson'));
    expect(nd.code).toBe(2);
    expect(nd.stderr).toContain('--rejects must end in .csv or .xlsx (got ".ndjson")');
    const file = join(tmp.dir, 'p.csv');
    copyFileSync(MISTAKES, file);
    const same = await batch(file, '--validate-only', '--rejects', file);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('is the file being uploaded');
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(MISTAKES, 'utf8'));
    const out = join(tmp.dir, 'o.csv');
    const both = await batch(file, '--validate-only', '--rejects', out, '--out', out);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--rejects and --out name the same file');
  });
});
