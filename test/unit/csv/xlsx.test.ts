// The workbook reader through the one door (openPatientFile): the hand-written fixture of
// scripts/make-workbook-fixture.py, and small workbooks built here for the layouts and damage a
// reader meets.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPatientFile, sheetNote, type OpenPatientFileOptions } from '../../../src/csv/open.js';
import { CsvFormatError, type CsvRow } from '../../../src/csv/reader.js';
import { columnLetter } from '../../../src/csv/xlsx.js';
import { STYLE, writeTestWorkbook, writeZip, type TestSheet, type TestWorkbookOptions } from '../../helpers/xlsx.js';

const dir = mkdtempSync(join(tmpdir(), 'outreach-xlsx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function workbook(sheets: TestSheet[], options?: TestWorkbookOptions, name = `w${n++}.xlsx`): string {
  const path = join(dir, name);
  writeTestWorkbook(path, sheets, options);
  return path;
}

async function readAll(path: string, opts: OpenPatientFileOptions = {}) {
  const file = await openPatientFile(path, opts);
  const rows: CsvRow[] = [];
  for await (const r of file.rows) rows.push(r);
  return { ...file, rows };
}

async function formatError(path: string, opts: OpenPatientFileOptions = {}): Promise<CsvFormatError> {
  try {
    await readAll(path, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(CsvFormatError);
    return err as CsvFormatError;
  }
  throw new Error('expected a CsvFormatError');
}

const PATIENTS = 'fixtures/patients.xlsx';

describe('the fixture written by another program (scripts/make-workbook-fixture.py)', () => {
  it('reads the first sheet: sheet row numbers, typed cells as text, the empty row skipped', async () => {
    const f = await readAll(PATIENTS);
    expect(f.headers).toEqual(['First Name', 'Last Name', 'Phone', 'Appointment Date', 'Appointment Time', 'Clinic Name', 'Provider Name']);
    expect(f.headerLine).toBe(1);
    expect([f.sheet, f.sheetNumber, f.sheetCount]).toEqual(['Patients', 1, 2]);
    expect(f.rows.map((r) => r.line)).toEqual([2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16]); // row 8 is empty
    const row = (line: number) => f.rows.find((r) => r.line === line)!.values;
    expect(row(2)).toEqual(['Maria', 'Lopez', '4155550120', '2030-05-17', '09:30', 'North Clinic', 'Dr. Alvarez']); // number, date (format 14)
    expect(row(3)).toEqual(['James', 'Chen', '14155550121', '2030-05-17', '10:00', 'Bayview Clinic', 'Dr. Singh']); // 11 digits; m/d/yyyy; rich text
    expect(row(4).slice(2, 6)).toEqual(['(415) 555-0122', '2030-05-18', '11:15', 'Main St']); // text phone; a formula's cached value
    expect(row(6)[0]).toBe(''); // the empty first name stays a column
    expect(row(7)[2]).toBe('555012');
    expect(row(9)[3]).toBe('2030-02-30'); // text cells stay as written: the row checks judge them
    expect(row(10)[3]).toBe('17/05/2030');
    expect(row(14)[4]).toBe('10:30'); // a time cell
    expect(f.bytes!().read).toBe(f.bytes!().size);
  });

  it('--sheet by number or by name (exact, then ignoring case)', async () => {
    for (const sheet of ['2', 'Notes', 'notes', ' NOTES ']) {
      const f = await readAll(PATIENTS, { sheet });
      expect([f.sheet, f.sheetNumber, f.headers], sheet).toEqual(['Notes', 2, ['Notes']]);
      expect(f.rows.map((r) => r.line)).toEqual([2, 3, 4]);
      expect(f.rows[0]!.values[0]).toMatch(/^Export from/); // an inline string
    }
    expect((await readAll(PATIENTS, { sheet: '1' })).sheet).toBe('Patients');
  });

  it('a sheet that does not exist: the sheets are listed', async () => {
    for (const sheet of ['Visits', '3', '0']) {
      const e = await formatError(PATIENTS, { sheet });
      expect(e.reason).toBe('no_sheet');
      expect(e.message).toBe(`${PATIENTS} has no sheet "${sheet}"; its sheets: 1 "Patients", 2 "Notes" (--sheet takes a name or a number)`);
    }
  });

  it('the note about which sheet is read: only for a workbook of several sheets without --sheet', async () => {
    const f = await openPatientFile(PATIENTS);
    expect(sheetNote(f, undefined)).toBe('Reading sheet "Patients" (1 of 2; --sheet NAME|N to choose another).');
    expect(sheetNote(f, '1')).toBeUndefined();
    const one = await openPatientFile('fixtures/eligibility.xlsx');
    expect(sheetNote(one, undefined)).toBeUndefined();
    expect(sheetNote(await openPatientFile('fixtures/patients.csv'), undefined)).toBeUndefined();
    for (const file of [f, one]) await file.rows[Symbol.asyncIterator]().return!();
  });

  it('the eligibility fixture: date cells, a zero-padded number id, number payer and NPI', async () => {
    const f = await readAll('fixtures/eligibility.xlsx');
    expect(f.headers).toEqual(['Patient ID', 'First Name', 'Last Name', 'DOB', 'Member ID', 'Payer', 'Provider Name', 'NPI']);
    expect(f.rows.map((r) => r.values.slice(3, 6).concat(r.values[7]!))).toEqual([
      ['1980-04-02', 'W100000001', '87726', '1234567893'],
      ['1975-03-15', 'W100000000', '87726', '1234567893'],
      ['1990-12-01', 'NS100000003', '62308', '1234567893'],
      ['1965-08-09', '000012345', '87726', '1234567893'],
      ['2999-01-01', 'W100000005', '87726', '1234567893'],
    ]);
  });

  it('the sheets exceljs parks in temporary files are removed: after a read, after stopping part-way, after an error', async () => {
    // exceljs (through the tmp package) names them tmp-<pid>-…, and unlinks them asynchronously.
    const before = new Set(readdirSync(tmpdir()));
    const parked = () => readdirSync(tmpdir()).filter((x) => x.startsWith(`tmp-${process.pid}-`) && !before.has(x));
    const settled = async () => {
      for (let i = 0; i < 100 && parked().length > 0; i++) await new Promise((r) => setTimeout(r, 10));
      return parked();
    };
    const f = await openPatientFile(PATIENTS);
    expect(parked().length).toBe(2); // the Excel layout: both sheets parked
    for await (const r of f.rows) if (r.line === 3) break;
    expect(await settled(), 'stopped').toEqual([]);
    expect((await readAll(PATIENTS)).rows.length).toBe(14);
    expect(await settled(), 'read').toEqual([]);
    await formatError(PATIENTS, { sheet: 'missing' });
    expect(await settled(), 'no such sheet').toEqual([]);
    await formatError(workbook([{ name: 'S', rows: [['A'], ['a', 'b']] }]));
    expect(await settled(), 'a bad row').toEqual([]);
  });
});

describe('layouts', () => {
  const patients: TestSheet = { name: 'Patients', rows: [['First Name', 'Phone'], ['Ana', 4155550120]] };
  const notes: TestSheet = { name: 'Notes', rows: [['Note'], ['free text']] };

  it('the first sheet is the first tab (workbook.xml), not the first part of the zip', async () => {
    const path = workbook([{ ...patients, file: 2 }, { ...notes, file: 1 }]);
    const f = await readAll(path);
    expect([f.sheet, f.headers]).toEqual(['Patients', ['First Name', 'Phone']]);
    expect((await readAll(path, { sheet: '2' })).headers).toEqual(['Note']);
  });

  it('the same rows whatever the order of the parts in the zip; absolute relationship targets', async () => {
    const sheets = [patients, notes];
    for (const options of [{}, { stringsFirst: true }, { absoluteTargets: true }, { stringsFirst: true, absoluteTargets: true }]) {
      const f = await readAll(workbook(sheets, options), { sheet: 'notes' });
      expect([f.sheet, f.rows], JSON.stringify(options)).toEqual(['Notes', [{ line: 2, values: ['free text'] }]]);
      const g = await readAll(workbook(sheets, options));
      expect(g.rows, JSON.stringify(options)).toEqual([{ line: 2, values: ['Ana', '4155550120'] }]);
    }
  });

  it('a hidden first sheet is passed over by default', async () => {
    const f = await readAll(workbook([{ ...notes, state: 'hidden' }, patients]));
    expect([f.sheet, f.sheetNumber]).toEqual(['Patients', 2]);
  });

  it('a zip of stored (uncompressed) entries is read whole every time (exceljs used to lose the parts after a parked sheet)', async () => {
    const path = workbook([patients, notes], { stored: true });
    for (let i = 0; i < 40; i++) {
      const f = await readAll(path);
      expect(f.headers).toEqual(['First Name', 'Phone']);
      expect(f.rows).toEqual([{ line: 2, values: ['Ana', '4155550120'] }]);
    }
  });

  it('a table that starts lower and further right; rows with gaps; whitespace-only rows skipped', async () => {
    const path = workbook([
      {
        name: 'S',
        rows: [
          { r: 3, cells: [null, 'First Name', 'Phone', 'Zip'] },
          { r: 4, cells: [null, 'Ana', null, { v: 501, s: STYLE.zip5 }] },
          { r: 5, cells: [null, { inline: '   ' }] },
          { r: 7, cells: [null, true, { v: 47620.4375, s: STYLE.dateTime }, { v: 0.5, s: STYLE.time }] },
        ],
      },
    ]);
    const f = await readAll(path);
    expect(f.headerLine).toBe(3);
    expect(f.rows).toEqual([
      { line: 4, values: ['Ana', '', '00501'] },
      { line: 7, values: ['true', '2030-05-17T10:30', '12:00'] },
    ]);
  });

  it('a 1904-based workbook reads its dates right', async () => {
    const f = await readAll(workbook([{ name: 'S', rows: [['DOB'], [{ v: 46158, s: STYLE.date }]] }], { date1904: true }));
    expect(f.rows[0]!.values).toEqual(['2030-05-17']);
  });
});

describe('header problems: file, sheet, row and column letter, never a value', () => {
  it('an empty header cell between named ones (merged or blank)', async () => {
    const path = join(dir, 'pm.xlsx');
    writeTestWorkbook(path, [{ name: 'Patients', rows: [['First Name', 'Last Name', null, 'Phone'], ['Ana', 'Diaz', 'x', '4155550120']] }]);
    const e = await formatError(path);
    expect(e.reason).toBe('empty_header_cell');
    expect(e.line).toBe(1);
    expect(e.message).toBe(`${path}, sheet "Patients", row 1, column C: the header cell is empty (merged cells?); give the column a name or delete it`);
  });

  it('a value beyond the last named column: an error at its row', async () => {
    const path = workbook([{ name: 'Patients', rows: [['First Name', 'Phone'], ['Ana', '4155550120'], ['Bo', '4155550121', 'Secret Value']] }]);
    const e = await formatError(path);
    expect(e.reason).toBe('unnamed_column');
    expect(e.line).toBe(3);
    expect(e.message).toContain(', sheet "Patients", row 3, column C: the row has a value in a column with no header (a title row or merged cells above the column names?)');
    expect(e.message).not.toContain('Secret');
  });

  it('a title row above the column names is found at the first data row', async () => {
    const e = await formatError(workbook([{ name: 'S', rows: [['Patient list, May'], ['First Name', 'Phone'], ['Ana', '4155550120']] }]));
    expect(e.message).toMatch(/, sheet "S", row 2, column B: .*title row.*; name the column in row 1 or delete the value$/);
  });

  it('an empty chosen sheet: named, with the sheets that have rows', async () => {
    const path = workbook([{ name: 'Cover', rows: [] }, { name: 'Patients', rows: [['First Name'], ['Ana']] }, { name: 'Blank', rows: [[null, { inline: ' ' }]] }]);
    const e = await formatError(path);
    expect(e.reason).toBe('empty_sheet');
    expect(e.message).toBe(`${path}, sheet "Cover": the sheet is empty (no header row); sheet 2 "Patients" has rows: choose with --sheet NAME|N`);
    expect((await formatError(path, { sheet: 'blank' })).message).toContain('sheet "Blank": the sheet is empty (no header row); sheet 2 "Patients" has rows');
    const lone = workbook([{ name: 'Only', rows: [] }]);
    expect((await formatError(lone)).message).toBe(`${lone}, sheet "Only": the sheet is empty (no header row)`);
  });

  it('sheet names from the file are made terminal-safe in messages', async () => {
    const path = workbook([{ name: 'Pat\u202eients', rows: [] }]);
    const e = await formatError(path, { sheet: 'x\u001b[2J' });
    expect(e.message).toContain('has no sheet "x\\e[2J"; its sheets: 1 "Pat\\u{202e}ients"');
    expect(e.message).not.toMatch(/[\u001b\u202e]/);
  });
});

describe('files that are not a readable workbook', () => {
  it('.xls is refused with what to do', async () => {
    const path = join(dir, 'pm.xls');
    writeFileSync(path, Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]));
    const e = await formatError(path);
    expect(e.reason).toBe('old_excel');
    expect(e.message).toBe(`${path} is an old Excel (.xls) workbook, which is not read; save it as .xlsx (Excel Workbook) or CSV UTF-8 and try again`);
  });

  it('a CSV renamed .xlsx', async () => {
    const path = join(dir, 'renamed.xlsx');
    copyFileSync('fixtures/patients.csv', path);
    const e = await formatError(path);
    expect(e.reason).toBe('not_workbook');
    expect(e.message).toBe(`${path} is not an Excel workbook although its name ends in .xlsx: it is a text file (a CSV renamed?); give a CSV file a .csv name`);
  });

  it('a password-protected workbook (an OLE file, not a zip)', async () => {
    const path = join(dir, 'protected.xlsx');
    writeFileSync(path, Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]));
    const e = await formatError(path);
    expect(e.reason).toBe('encrypted');
    expect(e.message).toMatch(/password-protected \(encrypted\)/);
  });

  it('other binary data, a zip that is not a workbook, a damaged sheet, an empty or missing file', async () => {
    const bin = join(dir, 'bin.xlsx');
    writeFileSync(bin, Buffer.from([0, 1, 2, 3, 4, 5]));
    expect((await formatError(bin)).reason).toBe('not_workbook');
    const zip = join(dir, 'other.xlsx');
    writeZip(zip, [['word/document.xml', '<w/>']]);
    expect((await formatError(zip)).message).toBe(`${zip} is a zip file but not an Excel workbook (it has no xl/workbook.xml sheet list)`);
    const damaged = workbook([{ name: 'S', rows: [['A'], [{ xml: (ref) => `<c r="${ref}" t="s"><v>0</v></c></row><bad` }]] }]);
    const d = await formatError(damaged);
    expect(d.reason).toBe('not_workbook');
    expect(d.message).toMatch(/damaged/);
    const empty = join(dir, 'empty.xlsx');
    writeFileSync(empty, '');
    expect((await formatError(empty)).reason).toBe('empty');
    expect((await formatError(join(dir, 'missing.xlsx'))).message).toBe(`${join(dir, 'missing.xlsx')}: cannot read the file (ENOENT)`);
  });

  it('a workbook under a text name is not read as garbled text', async () => {
    const path = join(dir, 'export.csv');
    copyFileSync(PATIENTS, path);
    expect((await formatError(path)).message).toBe(`${path} is an Excel workbook, not a text file: name it .xlsx to have it read as one`);
  });

  it('--delimiter with a workbook, --sheet with a CSV', async () => {
    const d = await formatError(PATIENTS, { delimiter: ';' });
    expect(d.reason).toBe('option');
    expect(d.message).toMatch(/^--delimiter does not apply to an Excel workbook/);
    expect((await formatError('fixtures/patients.csv', { sheet: '1' })).message).toMatch(/^--sheet applies to an Excel workbook \(\.xlsx\) only/);
  });
});

it('columnLetter', () => {
  expect([1, 3, 26, 27, 52, 703].map(columnLetter)).toEqual(['A', 'C', 'Z', 'AA', 'AZ', 'AAA']);
});
