import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CsvFormatError, detectDelimiter, openCsv, type CsvRow } from '../../../src/csv/reader.js';

const dir = mkdtempSync(join(tmpdir(), 'outreach-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function fixture(content: string | Buffer): string {
  const path = join(dir, `f${n++}.csv`);
  writeFileSync(path, content);
  return path;
}

async function readAll(path: string, opts = {}) {
  const file = await openCsv(path, opts);
  const rows: CsvRow[] = [];
  for await (const r of file.rows) rows.push(r);
  return { ...file, rows };
}

async function csvError(path: string, opts = {}): Promise<CsvFormatError> {
  try {
    await readAll(path, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(CsvFormatError);
    return err as CsvFormatError;
  }
  throw new Error('expected a CsvFormatError');
}

describe('openCsv', () => {
  it('reads headers and rows with 1-based start lines', async () => {
    const f = await readAll(fixture('First Name,Phone\nAna,555\nBo,556\n'));
    expect(f.headers).toEqual(['First Name', 'Phone']);
    expect(f.headerLine).toBe(1);
    expect(f.delimiter).toBe(',');
    expect(f.encoding).toBe('utf-8');
    expect(f.rows).toEqual([
      { line: 2, values: ['Ana', '555'] },
      { line: 3, values: ['Bo', '556'] },
    ]);
  });

  it('strips a UTF-8 BOM from the first header', async () => {
    const f = await readAll(fixture('\uFEFFfirst_name,phone\r\nAna,1\r\n'));
    expect(f.headers).toEqual(['first_name', 'phone']);
    expect(f.encoding).toBe('utf-8');
  });

  it('handles CRLF, keeps values as text with leading zeros and spaces inside', async () => {
    const f = await readAll(fixture('id,zip\r\n007,02134\r\n 08 ,x\r\n'));
    expect(f.rows).toEqual([
      { line: 2, values: ['007', '02134'] },
      { line: 3, values: [' 08 ', 'x'] },
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('quoted commas and newlines report the line where the record starts (%s)', async (_name, nl) => {
    const text = [
      'name,address,phone',
      '"Doe, Jane","1 Main St' + nl + 'Apt 2",555',
      'Bob,"a' + nl + nl + 'b",556',
      'Cy,"say ""hi""",557',
      '',
    ].join(nl);
    const f = await readAll(fixture(text));
    expect(f.rows.map((r) => r.line)).toEqual([2, 4, 7]);
    expect(f.rows[0]!.values).toEqual(['Doe, Jane', '1 Main St\nApt 2', '555']);
    expect(f.rows[1]!.values).toEqual(['Bob', 'a\n\nb', '556']);
    expect(f.rows[2]!.values).toEqual(['Cy', 'say "hi"', '557']);
  });

  it('counts lines correctly with mixed line endings', async () => {
    const f = await readAll(fixture('a,b\r\n1,2\n3,4\r5,6\r\n'));
    expect(f.rows.map((r) => [r.line, ...r.values])).toEqual([
      [2, '1', '2'],
      [3, '3', '4'],
      [4, '5', '6'],
    ]);
  });

  it.each([
    ['semicolon', 'first;last;phone\nA;B;1\n', ';'],
    ['tab', 'first\tlast\tphone\nA\tB\t1\n', '\t'],
    ['comma', 'first,last,phone\nA,B,1\n', ','],
    ['semicolon with commas inside quotes', '"Last, First";phone;x\n"B, A";1;2\n', ';'],
  ])('detects the %s delimiter from the header', async (_n, text, delim) => {
    const f = await readAll(fixture(text));
    expect(f.delimiter).toBe(delim);
    expect(f.headers).toHaveLength(3);
    expect(f.rows[0]!.values).toHaveLength(3);
  });

  it('honours an Excel "sep=" first line and skips it', async () => {
    const f = await readAll(fixture('sep=;\r\na,b;c\r\n1,2;3\r\n'));
    expect(f.delimiter).toBe(';');
    expect(f.headers).toEqual(['a,b', 'c']);
    expect(f.headerLine).toBe(2);
    expect(f.rows).toEqual([{ line: 3, values: ['1,2', '3'] }]);
  });

  it('uses an explicit delimiter over detection', async () => {
    const f = await readAll(fixture('a,b;c\n1,2;3\n'), { delimiter: ';' });
    expect(f.headers).toEqual(['a,b', 'c']);
    expect(f.rows[0]!.values).toEqual(['1,2', '3']);
  });

  it('decodes Windows-1252 files that are not valid UTF-8', async () => {
    // "José,Müller,€" in Windows-1252: é = 0xE9, ü = 0xFC, € = 0x80
    const bytes = Buffer.concat([
      Buffer.from('first,last,note\n'),
      Buffer.from([0x4a, 0x6f, 0x73, 0xe9, 0x2c, 0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0x2c, 0x80, 0x0a]),
    ]);
    const f = await readAll(fixture(bytes));
    expect(f.encoding).toBe('windows-1252');
    expect(f.rows[0]!.values).toEqual(['José', 'Müller', '€']);
  });

  it('detects Windows-1252 even when the first such byte is far down the file', async () => {
    const body = 'a,b\n' + 'x,y\n'.repeat(50_000);
    const f = await readAll(fixture(Buffer.concat([Buffer.from(body), Buffer.from([0xe9, 0x2c, 0x7a, 0x0a])])));
    expect(f.encoding).toBe('windows-1252');
    expect(f.rows.at(-1)).toEqual({ line: 50_002, values: ['é', 'z'] });
  });

  it('keeps valid UTF-8 multi-byte text as UTF-8', async () => {
    const f = await readAll(fixture('name\nJosé Ñúñez 李\n'));
    expect(f.encoding).toBe('utf-8');
    expect(f.rows[0]!.values).toEqual(['José Ñúñez 李']);
  });

  it('reads UTF-16LE with a BOM (Excel "Unicode text")', async () => {
    const f = await readAll(fixture(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\tb\r\nJosé\t1\r\n', 'utf16le')])));
    expect(f.encoding).toBe('utf-16le');
    expect(f.delimiter).toBe('\t');
    expect(f.rows).toEqual([{ line: 2, values: ['José', '1'] }]);
  });

  it('ignores blank rows, whitespace-only rows and trailing empty rows, keeping line numbers', async () => {
    const f = await readAll(fixture('a,b,c\n\n1,2,3\n,,\n , ,\n4,5,6\n,,\n\n\n'));
    expect(f.rows).toEqual([
      { line: 3, values: ['1', '2', '3'] },
      { line: 6, values: ['4', '5', '6'] },
    ]);
  });

  it('drops trailing empty fields beyond the header (stray commas) but nothing else', async () => {
    const f = await readAll(fixture('a,b\n1,2,,\n'));
    expect(f.rows).toEqual([{ line: 2, values: ['1', '2'] }]);
  });

  it.each([
    ['too few fields', 'a,b,c\n1,2,3\n4,SECRET\n', 3, 2],
    ['too many fields', 'a,b\n1,2\n"x",y\n3,4,SECRET\n', 4, 3],
    ['after a multi-line record', 'a,b\n"1\n2",3\nq,SECRET,r\n', 4, 3],
  ])('reports a ragged row (%s) naming its line, without cell values', async (_n, text, line, fields) => {
    const err = await csvError(fixture(text));
    expect(err.reason).toBe('ragged_row');
    expect(err.line).toBe(line);
    expect(err.message).toContain(`line ${line}`);
    expect(err.message).toContain(`${fields} field`);
    expect(err.message).not.toContain('SECRET');
    expect(err.file).toMatch(/\.csv$/);
    expect(err.message).toContain(err.file);
  });

  it('rows before a ragged row are delivered first', async () => {
    const file = await openCsv(fixture('a,b\n1,2\n3\n'));
    const seen: number[] = [];
    await expect(async () => {
      for await (const r of file.rows) seen.push(r.line);
    }).rejects.toThrow(CsvFormatError);
    expect(seen).toEqual([2]);
  });

  it.each([
    ['an empty file', '', 'empty'],
    ['a BOM only', '\uFEFF', 'empty'],
    ['blank lines only', '\n\r\n\n', 'empty'],
    ['delimiters only', ',,\n,,\n', 'empty'],
  ])('rejects %s clearly', async (_n, text, reason) => {
    const err = await csvError(fixture(text));
    expect(err.reason).toBe(reason);
    expect(err.message).toMatch(/empty|no rows/);
  });

  it('accepts a header with no data rows', async () => {
    const f = await readAll(fixture('a,b\n'));
    expect(f.headers).toEqual(['a', 'b']);
    expect(f.rows).toEqual([]);
  });

  it('reports an unclosed quote near where it opened, without the value', async () => {
    const err = await csvError(fixture('a,b\n1,2\n3,"SECRET\n4,5\n'));
    expect(err.reason).toBe('unclosed_quote');
    expect(err.line).toBe(3);
    expect(err.message).not.toContain('SECRET');
  });

  it('keeps a stray quote inside an unquoted field as text', async () => {
    const f = await readAll(fixture('a,b\n5\'10",x\n'));
    expect(f.rows[0]!.values).toEqual(['5\'10"', 'x']);
  });

  it('reports a missing file as unreadable', async () => {
    const err = await csvError(join(dir, 'nope.csv'));
    expect(err.reason).toBe('unreadable');
    expect(err.line).toBeUndefined();
  });

  it('stops reading when the consumer breaks early', async () => {
    const file = await openCsv(fixture('a\n' + '1\n'.repeat(10_000)));
    let count = 0;
    for await (const _ of file.rows) if (++count === 3) break;
    expect(count).toBe(3);
  });
});

describe('detectDelimiter', () => {
  it.each([
    ['a,b,c', ','],
    ['a;b;c', ';'],
    ['a\tb\tc', '\t'],
    ['single', ','],
    ['"x;y",b,c', ','],
    ['"x,y,z";b', ';'],
  ])('%j → %j', (line, d) => expect(detectDelimiter(line)).toBe(d));
});
