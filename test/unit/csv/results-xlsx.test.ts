// The .xlsx results file, read back with exceljs's (non-streaming) reader: values and their types,
// formula neutralising, the atomic temporary file (0600, symlink refused, nothing left by abort).
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { openResults, ResultsFileError } from '../../../src/csv/results.js';
import { SymlinkRefusedError } from '../../../src/util/files.js';

const dir = mkdtempSync(join(tmpdir(), 'outreach-xlsx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readSheet(path: string): Promise<{ name: string; rows: ExcelJS.Row[] }> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  expect(wb.worksheets).toHaveLength(1);
  const sheet = wb.worksheets[0]!;
  const rows: ExcelJS.Row[] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => rows.push(row));
  return { name: sheet.name, rows };
}

const cells = (row: ExcelJS.Row, n: number) => Array.from({ length: n }, (_, i) => row.getCell(i + 1));

describe('openResults, .xlsx', () => {
  it('writes a header and one row per record; our numbers stay numbers, everything else is text', async () => {
    const path = join(dir, 'r.xlsx');
    const w = await openResults(path, ['line', 'phone', 'member_id', 'active', 'messages', 'empty'], { sheet: 'Patients' });
    expect(w.format).toBe('xlsx');
    await w.write({ line: 2, phone: '+14155550121', member_id: '0012', active: true, messages: ['a', 'b'], empty: null });
    await w.write({ line: 3, phone: '4155550122', member_id: '00123456789012345678', active: false, messages: [] });
    await w.close();
    const { name, rows } = await readSheet(path);
    expect(name).toBe('Patients');
    expect(rows.map((r) => r.number)).toEqual([1, 2, 3]);
    expect(cells(rows[0]!, 6).map((c) => c.value)).toEqual(['line', 'phone', 'member_id', 'active', 'messages', 'empty']);
    const [line, phone, member, active, messages, empty] = cells(rows[1]!, 6);
    expect(line!.value).toBe(2);
    expect(line!.type).toBe(ExcelJS.ValueType.Number);
    // Phone numbers and ids with leading zeros are strings: Excel never turns them into numbers.
    expect(phone!.value).toBe('+14155550121');
    expect(phone!.type).toBe(ExcelJS.ValueType.String);
    expect(member!.value).toBe('0012');
    expect(member!.type).toBe(ExcelJS.ValueType.String);
    expect(active!.value).toBe(true);
    expect(messages!.value).toBe('a; b');
    expect(empty!.type).toBe(ExcelJS.ValueType.Null);
    const third = cells(rows[2]!, 4);
    expect(third.map((c) => c.value)).toEqual([3, '4155550122', '00123456789012345678', false]);
    expect(third[2]!.type).toBe(ExcelJS.ValueType.String);
  });

  it('neutralises formula cells, the header included; drops what XML cannot hold', async () => {
    const path = join(dir, 'formula.xlsx');
    const w = await openResults(path, ['=cmd', 'b']);
    await w.write({ '=cmd': '=1+1', b: '@SUM(1)' });
    await w.write({ '=cmd': '-2+3', b: '+1 (415) 555-0121' });
    await w.write({ '=cmd': 'bell\u0007', b: 'x'.repeat(40_000) });
    await w.close();
    const { rows } = await readSheet(path);
    expect(cells(rows[0]!, 2).map((c) => c.value)).toEqual(["'=cmd", 'b']);
    expect(cells(rows[1]!, 2).map((c) => c.value)).toEqual(["'=1+1", "'@SUM(1)"]);
    expect(cells(rows[1]!, 2).map((c) => c.type)).toEqual([ExcelJS.ValueType.String, ExcelJS.ValueType.String]);
    expect(cells(rows[2]!, 2).map((c) => c.value)).toEqual(["'-2+3", '+1 (415) 555-0121']);
    expect(rows[3]!.getCell(1).value).toBe('bell');
    // Excel's limit for one cell.
    expect(String(rows[3]!.getCell(2).value)).toHaveLength(32_767);
  });

  it('is written 0600 into a temporary file beside the target and renamed at close', async () => {
    const path = join(dir, 'atomic.xlsx');
    writeFileSync(path, 'old');
    const w = await openResults(path, ['line']);
    for (let i = 0; i < 1000; i++) await w.write({ line: i });
    await w.flush();
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(readdirSync(dir).filter((n) => n.startsWith('.atomic.xlsx.'))).toHaveLength(1);
    await w.close();
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((n) => n.startsWith('.atomic.xlsx.'))).toEqual([]);
    const { rows } = await readSheet(path);
    expect(rows).toHaveLength(1001);
    expect(rows[1000]!.getCell(1).value).toBe(999);
    await w.close(); // idempotent
    await expect(w.write({ line: 1 })).rejects.toThrow(/closed/);
  });

  it('abort leaves no file (and an existing one as it was)', async () => {
    const path = join(dir, 'aborted.xlsx');
    const w = await openResults(path, ['line']);
    for (let i = 0; i < 500; i++) await w.write({ line: i });
    await w.abort();
    await w.abort();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('.aborted.xlsx.'))).toEqual([]);
  });

  it('refuses a symlink at the target, dangling or not, and writes nothing', async () => {
    const target = join(dir, 'elsewhere.xlsx');
    const link = join(dir, 'link.xlsx');
    symlinkSync(target, link);
    await expect(openResults(link, ['line'])).rejects.toBeInstanceOf(SymlinkRefusedError);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('.link.xlsx.'))).toEqual([]);
  });

  it('cannot be continued (append) and refuses what the caller does not allow', async () => {
    await expect(openResults(join(dir, 'resume.xlsx'), ['line'], { append: true })).rejects.toThrow(ResultsFileError);
    await expect(openResults(join(dir, 'x.xlsx'), ['line'], { allowed: ['csv', 'ndjson'] })).rejects.toThrow('--out must end in .csv or .ndjson');
    expect(readdirSync(dir).filter((n) => n.includes('resume.xlsx') || n.includes('x.xlsx'))).toEqual([]);
  });
});
