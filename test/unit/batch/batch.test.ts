// Pure parts of `sequences batch`: the row checker, service issues of any shape, the journal
// replay and the resume command (answers: answer.test.ts; settling: settle.test.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBatchResult } from '../../../src/api/sequences.js';
import { readJournal, replay, type JournalRecord } from '../../../src/batch/journal.js';
import { JournalWriter } from '../../../src/journal/file.js';
import { UsageError } from '../../../src/errors.js';
import { makeRowChecker } from '../../../src/batch/rows.js';
import { resumeCommand } from '../../../src/batch/continue.js';
import { lineList, shellQuote } from '../../../src/journal/words.js';

describe('row checker', () => {
  const mapping = [
    { column: 'First', index: 0, field: 'firstName' },
    { column: 'Last', index: 1, field: 'lastName' },
    { column: 'Phone', index: 2, field: 'phoneNumber' },
    { column: 'Date', index: 3, field: 'appointmentDate' },
    { column: 'Copay', index: 4, field: 'copay' },
  ];
  const inputs = [
    { id: 'appointmentDate', name: 'Appointment date', type: 'date', required: true },
    { id: 'copay', name: 'Copay', type: 'number', required: false },
  ];
  const check = makeRowChecker(mapping, inputs, 'US');
  it.each([
    [['Ann', 'Lee', '(415) 555-0101', '5/17/2030', '007'], { firstName: 'Ann', lastName: 'Lee', phoneNumber: '+14155550101', appointmentDate: '2030-05-17', copay: '007' }, []],
    [['Ann', 'Lee', '(415) 555-0101', '2030-05-17', ''], { firstName: 'Ann', lastName: 'Lee', phoneNumber: '+14155550101', appointmentDate: '2030-05-17' }, []],
    [['', 'Lee', '4.41E+11', '', '1,5'], undefined, ['firstName:required', 'phoneNumber:excel_scientific', 'appointmentDate:required', 'copay:invalid_number']],
  ])('%j', (values, row, problems) => {
    const r = check(7, values);
    expect(r.row).toEqual(row);
    expect(r.problems.map((p) => `${p.field}:${p.code}`)).toEqual(problems);
    for (const p of r.problems) expect(p.line).toBe(7);
  });
});

describe('batch answers, read tolerantly', () => {
  it('reads a batch answer without `created` or with odd counts', () => {
    expect(readBatchResult({ valid: true, total_attempted: 2, valid_count: 2, created_count: 2, errors: [], warnings: [] }).created).toBeUndefined();
    expect(readBatchResult({ success: true, data: { valid: true, created: [{ rowIndex: 0, sequence_id: 5 }] } }).created).toEqual([{ rowIndex: 0, sequenceId: 5 }]);
    expect(readBatchResult({ created_count: '3', errors: 'x' })).toMatchObject({ createdCount: 3, errors: ['x'], warnings: [] });
  });
});

describe('journal', () => {
  const begin: JournalRecord = { type: 'begin', v: 1, at: '2030-01-01T00:00:00Z', definition_id: 1, definition_name: 'd', csv: 'p.csv', salt: 's', headers: 'h' };
  it('replays created, unknown (no result, unknown result, rows the answer did not confirm), rejected and settled rows', () => {
    const st = replay([
      begin,
      { type: 'intent', chunk: 1, at: 't', lines: [2, 3], phones: ['a', 'b'] },
      { type: 'result', chunk: 1, at: 't', outcome: 'created', created: [{ line: 2, id: 10 }, { line: 3, id: 11 }], failed: [] },
      { type: 'intent', chunk: 2, at: 't2', lines: [4], phones: ['c'] },
      { type: 'result', chunk: 2, at: 't', outcome: 'unknown', reason: 'lost' },
      { type: 'intent', chunk: 3, at: 't', lines: [5], phones: ['d'] },
      { type: 'result', chunk: 3, at: 't', outcome: 'rejected', reason: '400' },
      { type: 'intent', chunk: 4, at: 't4', lines: [6], phones: ['e'] },
      { type: 'intent', chunk: 5, at: 't5', lines: [7, 8, 9], phones: ['f', 'g', 'h'] },
      { type: 'result', chunk: 5, at: 't', outcome: 'created', created: [{ line: 7, id: 12 }], failed: [8], unknown: [9] },
    ]);
    expect([...st.created]).toEqual([[2, 10], [3, 11], [7, 12]]);
    expect([...st.unknown.values()]).toEqual([
      { line: 4, chunk: 2, phone: 'c', at: 't2' },
      { line: 9, chunk: 5, phone: 'h', at: 't5' },
      { line: 6, chunk: 4, phone: 'e', at: 't4' },
    ]);
    expect(st.phones.get(8)).toBe('g');
    expect(st.lastChunk).toBe(5);
    expect(st.complete).toBe(false);
    const settled = replay([
      begin,
      { type: 'intent', chunk: 1, at: 't', lines: [2, 3, 4], phones: ['a', 'b', 'c'] },
      { type: 'settled', chunk: 1, at: 't', created: [{ line: 2, id: 7 }], absent: [3] },
      { type: 'intent', chunk: 2, at: 't', lines: [3], phones: ['b'] },
      { type: 'result', chunk: 2, at: 't', outcome: 'created', created: [{ line: 3, id: 8 }], failed: [] },
      { type: 'end', at: 't', outcome: 'complete' },
    ]);
    expect([...settled.unknown.keys()]).toEqual([4]);
    expect(settled.created.get(2)).toBe(7);
    expect(settled.created.get(3)).toBe(8);
    expect(settled.complete).toBe(true);
  });
  it('a row sent again (absent, or --resend-unknown) takes the state of its latest chunk', () => {
    const st = replay([
      begin,
      { type: 'intent', chunk: 1, at: 't', lines: [2], phones: ['a'] },
      { type: 'result', chunk: 1, at: 't', outcome: 'unknown', reason: 'lost' },
      { type: 'intent', chunk: 2, at: 't', lines: [2], phones: ['a'] },
      { type: 'result', chunk: 2, at: 't', outcome: 'created', created: [{ line: 2, id: 5 }], failed: [] },
      // A late result of chunk 1 must not undo chunk 2.
      { type: 'result', chunk: 1, at: 't', outcome: 'unknown', reason: 'late' },
    ]);
    expect(st.unknown.size).toBe(0);
    expect(st.created.get(2)).toBe(5);
  });
  it('survives a torn last line; refuses damage elsewhere; appends on a fresh line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    try {
      const p = join(dir, 'j.ndjson');
      writeFileSync(p, `${JSON.stringify(begin)}\n{"type":"intent","chu`);
      expect((await readJournal(p))!.length).toBe(1);
      const w = await JournalWriter.open(p);
      await w.append({ type: 'resume', at: 't' });
      await w.close();
      expect(readFileSync(p, 'utf8').split('\n')[2]).toBe('{"type":"resume","at":"t"}');
      await expect(readJournal(p)).rejects.toBeInstanceOf(UsageError); // the torn line is now in the middle: damage, exit 2
      await expect(readJournal(p)).rejects.toThrow(/line 2 is not a journal record.*nothing was sent/);
      expect(await readJournal(join(dir, 'none'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('resume command', () => {
  it('repeats the options, quoted for the shell', () => {
    const o = { file: "my file's.csv", definition: 3, validateOnly: false, dryRun: false, map: ['Cell Phone=phoneNumber'], country: 'CA', delimiter: '\t', out: 'r.csv', skipInvalid: true, yes: true, resume: false, resendUnknown: false };
    expect(resumeCommand(o, { resume: true })).toBe(
      `outreach sequences batch 'my file'\\''s.csv' --definition 3 --map 'Cell Phone=phoneNumber' --country CA --delimiter tab --out r.csv --skip-invalid --resume --yes`,
    );
    expect(resumeCommand(o, { resume: true, resendUnknown: true })).toMatch(/--resume --resend-unknown --yes$/);
    expect(shellQuote('a b')).toBe("'a b'");
  });
});

describe('line lists', () => {
  it.each([
    [[5], '5'],
    [[3, 2, 4, 9, 12, 13], '2-4, 9, 12-13'],
    [Array.from({ length: 100 }, (_, i) => 102 + i), '102-201'],
    [[1, 3, 5, 7], '1, 3 and 2 more lines'],
  ])('%j → %s', (lines, text) => {
    expect(lineList(lines, lines.length === 4 ? 2 : 12)).toBe(text);
  });
});
