import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCsv } from '../../../src/csv/reader.js';
import { csvField, openResults, ResultsFileError, resultsFormatFor } from '../../../src/csv/results.js';

const dir = mkdtempSync(join(tmpdir(), 'outreach-results-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('csvField', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    [' lead', '" lead"'],
    ['+14155552671', '+14155552671'],
    ['007', '007'],
  ])('%j → %j', (text, out) => expect(csvField(text)).toBe(out));
});

describe('openResults', () => {
  it('picks the format by extension and rejects others', () => {
    expect(resultsFormatFor('out.csv')).toBe('csv');
    expect(resultsFormatFor('OUT.CSV')).toBe('csv');
    expect(resultsFormatFor('a/b.ndjson')).toBe('ndjson');
    expect(resultsFormatFor('a/b.XLSX')).toBe('xlsx');
    expect(() => resultsFormatFor('out.json')).toThrow(ResultsFileError);
    expect(() => resultsFormatFor('out')).toThrow('--out must end in .csv, .ndjson or .xlsx (got "no extension")');
    // A caller takes only some formats, and names its own option.
    expect(resultsFormatFor('r.xlsx', ['csv', 'xlsx'], '--rejects')).toBe('xlsx');
    expect(() => resultsFormatFor('r.ndjson', ['csv', 'xlsx'], '--rejects')).toThrow('--rejects must end in .csv or .xlsx (got ".ndjson")');
  });

  it('writes CSV with a header and quoting that our reader reads back exactly', async () => {
    const path = join(dir, 'r.csv');
    const w = await openResults(path, ['line', 'status', 'sequence_id', 'messages']);
    await w.write({ line: 2, status: 'created', sequence_id: 17, messages: [] });
    await w.write({ line: 3, status: 'invalid', messages: ['phone: not valid, "US"', 'date:\nbad'] });
    await w.write({ line: 4, status: 'unknown', sequence_id: null, messages: { code: 'x' } });
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe(
      'line,status,sequence_id,messages\n' +
        '2,created,17,\n' +
        '3,invalid,,"phone: not valid, ""US""; date:\nbad"\n' +
        '4,unknown,,"{""code"":""x""}"\n',
    );
    const back = await openCsv(path);
    const rows = [];
    for await (const r of back.rows) rows.push(r);
    expect(rows[1]).toEqual({ line: 3, values: ['3', 'invalid', '', 'phone: not valid, "US"; date:\nbad'] });
    expect(rows[2]!.line).toBe(5);
  });

  it('neutralises formula cells (OWASP) but leaves numbers, negative amounts and E.164 phones readable', async () => {
    const path = join(dir, 'formula.csv');
    const w = await openResults(path, ['a', 'b']);
    await w.write({ a: '=HYPERLINK("http://x","y")', b: '@SUM(1)' });
    await w.write({ a: '-2+3', b: '+14155550121' });
    await w.write({ a: -3.5, b: '-12.50' });
    await w.write({ a: ['=1+1', 'ok'], b: '\tcmd' });
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe(
      'a,b\n' + `"'=HYPERLINK(""http://x"",""y"")",'@SUM(1)\n` + "'-2+3,+14155550121\n" + '-3.5,-12.50\n' + "'=1+1; ok,'\tcmd\n",
    );
    const nd = join(dir, 'formula.ndjson');
    const w2 = await openResults(nd, ['a']);
    await w2.write({ a: '=1+1' });
    await w2.close();
    expect(readFileSync(nd, 'utf8')).toBe('{"a":"=1+1"}\n');
  });

  it('writes NDJSON with the given columns in order, missing ones as null', async () => {
    const path = join(dir, 'r.ndjson');
    const w = await openResults(path, ['line', 'status', 'sequence_id']);
    await w.write({ status: 'created', line: 2, sequence_id: 5, extra: 'dropped' });
    await w.write({ line: 3, status: 'invalid' });
    await w.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toEqual(['{"line":2,"status":"created","sequence_id":5}', '{"line":3,"status":"invalid","sequence_id":null}']);
  });

  it('keeps flushed rows in a temporary file beside the target until close (atomic replace)', async () => {
    const path = join(dir, 'partial.csv');
    const w = await openResults(path, ['line']);
    await w.write({ line: 2 });
    await w.flush();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('.partial.csv.') && n.endsWith('.tmp'))).toHaveLength(1);
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe('line\n2\n');
    expect(readdirSync(dir).filter((n) => n.startsWith('.partial.csv.'))).toEqual([]);
    await w.close(); // idempotent
    await expect(w.write({ line: 3 })).rejects.toThrow(/closed/);
  });

  it('keeps order and content across many concurrent writes and automatic flushes', async () => {
    const path = join(dir, 'many.ndjson');
    const w = await openResults(path, ['i', 'pad']);
    await Promise.all(Array.from({ length: 5000 }, (_, i) => w.write({ i, pad: 'x'.repeat(50) })));
    await w.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(5000).keys()]);
  });

  it('appends for a resumed run without repeating the CSV header', async () => {
    const path = join(dir, 'resume.csv');
    writeFileSync(path, 'line,status\n2,created\n');
    const w = await openResults(path, ['line', 'status'], { append: true });
    await w.write({ line: 3, status: 'created' });
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe('line,status\n2,created\n3,created\n');

    const fresh = join(dir, 'fresh.csv');
    const w2 = await openResults(fresh, ['line'], { append: true });
    await w2.close();
    expect(readFileSync(fresh, 'utf8')).toBe('line\n');
  });
});

describe('openResults, header', () => {
  it('neutralises a header cell taken from an input file', async () => {
    const path = join(dir, 'header.csv');
    const w = await openResults(path, ['=cmd', 'Phone']);
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe("'=cmd,Phone\n");
  });
});
