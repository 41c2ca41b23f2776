// Pure parts of `sequences batch`: the row checker, service issues of any shape, the journal
// replay, settling unknown chunks, the fate of a failed create, and the resume command.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, MalformedResponseError, NetworkError, UnknownOutcomeError } from '../../../src/errors.js';
import { readBatchResult } from '../../../src/api/sequences.js';
import { scrub, toProblem } from '../../../src/batch/issues.js';
import { JournalError, JournalWriter, phoneHash, readJournal, replay, type JournalRecord } from '../../../src/batch/journal.js';
import { makeRowChecker } from '../../../src/batch/rows.js';
import { classify, resumeCommand, shellQuote } from '../../../src/batch/runner.js';
import { coversWindow, readListed, settleRows, type ListedSequence } from '../../../src/batch/settle.js';

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

describe('service issues of any shape', () => {
  const chunk: { lines: number[]; rows: Array<Record<string, string>> } = { lines: [10, 12, 15], rows: [{ phoneNumber: '+14155550101', firstName: 'Ann' }, { phoneNumber: '+14155550102' }, {}] };
  it.each([
    [{ rowIndex: 1, field: 'phoneNumber', code: 'x', message: 'bad' }, 12, 'phoneNumber', 'bad'],
    [{ row_index: '2', column: 'clinic', msg: 'too long' }, 15, 'clinic', 'too long'],
    [{ index: 0, path: ['rows', 0, 'firstName'], error: { message: 'nested' } }, 10, 'rows.0.firstName', 'nested'],
    [{ rowIndex: 0, weird: true }, 10, '', '{"weird":true}'],
    ['the whole chunk is wrong', null, '', 'the whole chunk is wrong (the service named no row; chunk of lines 10-15)'],
    [{ rowIndex: 9, message: 'out of range' }, null, '', 'out of range (the service named no row; chunk of lines 10-15)'],
    [null, null, '', 'rejected by the service (no reason given) (the service named no row; chunk of lines 10-15)'],
  ])('%j', (item, line, field, message) => {
    const p = toProblem(item, 'error', chunk);
    expect([p.line, p.field, p.message]).toEqual([line, field, message]);
  });
  it("scrubs the row's own values from messages", () => {
    expect(scrub('phoneNumber "+14155550101" (4155550101) for Ann', { phoneNumber: '+14155550101', firstName: 'Ann' })).toBe('phoneNumber "…" (…) for …');
    expect(toProblem({ rowIndex: 0, message: 'phoneNumber +14155550101 invalid' }, 'error', chunk).message).toBe('phoneNumber … invalid');
  });
  it('reads a batch answer without `created` or with odd counts', () => {
    expect(readBatchResult({ valid: true, total_attempted: 2, valid_count: 2, created_count: 2, errors: [], warnings: [] }).created).toBeUndefined();
    expect(readBatchResult({ success: true, data: { valid: true, created: [{ rowIndex: 0, sequence_id: 5 }] } }).created).toEqual([{ rowIndex: 0, sequenceId: 5 }]);
    expect(readBatchResult({ created_count: '3', errors: 'x' })).toMatchObject({ createdCount: 3, errors: ['x'], warnings: [] });
  });
});

describe('journal', () => {
  const begin: JournalRecord = { type: 'begin', v: 1, at: '2030-01-01T00:00:00Z', definition_id: 1, definition_name: 'd', csv: 'p.csv', salt: 's', headers: 'h' };
  it('replays created, unknown (no result, or unknown result), rejected and settled chunks', () => {
    const st = replay([
      begin,
      { type: 'intent', chunk: 1, at: 't', lines: [2, 3], phones: ['a', 'b'] },
      { type: 'result', chunk: 1, at: 't', outcome: 'created', created: [{ line: 2, id: 10 }, { line: 3, id: 11 }], failed: [] },
      { type: 'intent', chunk: 2, at: 't', lines: [4], phones: ['c'] },
      { type: 'result', chunk: 2, at: 't', outcome: 'unknown', reason: 'lost' },
      { type: 'intent', chunk: 3, at: 't', lines: [5], phones: ['d'] },
      { type: 'result', chunk: 3, at: 't', outcome: 'rejected', reason: '400' },
      { type: 'intent', chunk: 4, at: 't', lines: [6], phones: ['e'] },
    ]);
    expect([...st.created]).toEqual([[2, 10], [3, 11]]);
    expect(st.unknownChunks.map((c) => c.chunk)).toEqual([2, 4]);
    expect(st.lastChunk).toBe(4);
    expect(st.complete).toBe(false);
    const settled = replay([begin, { type: 'intent', chunk: 1, at: 't', lines: [2], phones: ['a'] }, { type: 'settled', chunk: 1, at: 't', created: [{ line: 2, id: 7 }], absent: [] }, { type: 'end', at: 't', outcome: 'complete' }]);
    expect(settled.unknownChunks).toEqual([]);
    expect(settled.created.get(2)).toBe(7);
    expect(settled.complete).toBe(true);
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
      await expect(readJournal(p)).rejects.toBeInstanceOf(JournalError); // the torn line is now in the middle
      expect(await readJournal(join(dir, 'none'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('hashes phones with the salt', () => {
    expect(phoneHash('a', '+14155550101')).not.toBe(phoneHash('b', '+14155550101'));
    expect(phoneHash('a', '+14155550101')).toMatch(/^[0-9a-f]{20}$/);
  });
});

describe('settling an unknown chunk', () => {
  const since = Date.parse('2030-01-01T10:00:00Z');
  const hash = (e: string) => `h${e}`;
  const seq = (id: number, phone: string, at: string, def = 1): ListedSequence => ({ id, definitionId: def, createdAt: Date.parse(at), phones: [phone] });
  const o = { definitionId: 1, sinceMs: since, claimed: new Set<number>([20]), hash };
  it('finds rows created since the run began, of the same definition, not already claimed', () => {
    const items = [
      seq(20, '+1', '2030-01-01T10:01:00Z'), // claimed by a confirmed chunk (same phone twice in the file)
      seq(21, '+1', '2030-01-01T10:01:00Z'),
      seq(22, '+2', '2030-01-01T09:00:00Z'), // before the run
      seq(23, '+3', '2030-01-01T10:02:00Z', 2), // other definition
    ];
    const r = settleRows([{ line: 5, phoneHash: 'h+1' }, { line: 6, phoneHash: 'h+2' }, { line: 7, phoneHash: 'h+3' }], items, o);
    expect(r).toEqual({ ok: true, created: [{ line: 5, id: 21 }], absent: [6, 7] });
  });
  it('two rows with one phone need two sequences', () => {
    const r = settleRows([{ line: 5, phoneHash: 'h+1' }, { line: 6, phoneHash: 'h+1' }], [seq(30, '+1', '2030-01-01T10:01:00Z')], { ...o, claimed: new Set() });
    expect(r).toEqual({ ok: true, created: [{ line: 5, id: 30 }], absent: [6] });
  });
  it('refuses without created_at, definition or phone', () => {
    expect(settleRows([], [{ id: 1, definitionId: 1, phones: ['+1'] }], o).ok).toBe(false);
    expect(settleRows([], [{ id: 1, createdAt: since + 1, phones: ['+1'] }], o).ok).toBe(false);
    expect(settleRows([], [{ id: 1, definitionId: 1, createdAt: since + 1, phones: [] }], o).ok).toBe(false);
  });
  it('reads phone from phone_number or the steps', () => {
    expect(readListed({ id: 1, sequence_definition_id: 2, created_at: '2030-01-01T00:00:00Z', steps: [{ destination_number: '+1' }, { destination_number: null }] } as never)).toEqual({
      id: 1,
      definitionId: 2,
      createdAt: Date.parse('2030-01-01T00:00:00Z'),
      phones: ['+1'],
    });
  });
  it('a listing covers the window when short, or newest-first reaching back before the run', () => {
    const many = (n: number, newestFirst: boolean, oldest: string) =>
      Array.from({ length: n }, (_, i) => seq(i, '+1', i === n - 1 ? oldest : new Date(since + (newestFirst ? n - i : i) * 1000).toISOString()));
    expect(coversWindow(many(5, true, '2030-01-01T10:00:01Z'), 1000, since).ok).toBe(true);
    expect(coversWindow(many(100, true, '2030-01-01T09:00:00Z'), 100, since).ok).toBe(true);
    expect(coversWindow(many(100, true, '2030-01-01T10:00:01Z'), 100, since).ok).toBe(false);
    expect(coversWindow(many(100, false, '2030-01-01T09:00:00Z'), 100, since).ok).toBe(false);
    expect(coversWindow([{ id: 1, phones: [] }], 1000, since)).toMatchObject({ ok: false, undated: true });
  });
});

describe('the fate of a failed create', () => {
  const api = (status: number) => new ApiError('x', 1, { status, method: 'POST', path: '/p' });
  it.each([
    [new UnknownOutcomeError('lost'), false, 'unknown'],
    [new MalformedResponseError('cut'), false, 'unknown'],
    [api(500), false, 'unknown'],
    [api(502), false, 'unknown'],
    [api(503), false, 'rejected'],
    [api(429), false, 'rejected'],
    [api(400), false, 'rejected'],
    [new NetworkError('refused'), false, 'rejected'],
    [new Error('anything'), false, 'unknown'],
    [new NetworkError('refused'), true, 'unknown'],
  ])('%s (aborted %s) → %s', (err, aborted, outcome) => {
    expect(classify(err, aborted).outcome).toBe(outcome);
  });
});

describe('resume command', () => {
  it('repeats the options, quoted for the shell', () => {
    const o = { file: "my file's.csv", definition: 3, validateOnly: false, dryRun: false, map: ['Cell Phone=phoneNumber'], country: 'CA', delimiter: '\t', out: 'r.csv', skipInvalid: true, yes: true, resume: false };
    expect(resumeCommand(o, { resume: true })).toBe(
      `outreach sequences batch 'my file'\\''s.csv' --definition 3 --map 'Cell Phone=phoneNumber' --country CA --delimiter tab --out r.csv --skip-invalid --resume --yes`,
    );
    expect(shellQuote('a b')).toBe("'a b'");
  });
});
