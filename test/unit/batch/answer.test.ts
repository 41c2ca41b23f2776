// Reading a batch answer from everything it says: created entries, created_count, errors and
// warnings of any shape, ambiguous row numbering.
import { describe, expect, it } from 'vitest';
import { readBatchResult } from '../../../src/api/sequences.js';
import { readChunkAnswer, readIssues, scrub, type NumberingState } from '../../../src/batch/answer.js';

const chunk: { lines: number[]; rows: Array<Record<string, string>> } = { lines: [10, 12, 15], rows: [{ phoneNumber: '+14155550101', firstName: 'Ann' }, { phoneNumber: '+14155550102' }, {}] };
const read = (answer: unknown, mode: 'validate' | 'create' = 'create', numbering: NumberingState = {}) => readChunkAnswer(readBatchResult(answer), chunk, mode, numbering);
const summary = (a: ReturnType<typeof read>) => ({ created: [...a.created], invalid: [...a.invalid], unknown: a.unknown });

describe('which rows a create answer confirms', () => {
  it.each([
    ['created entries', { created_count: 3, created: [{ rowIndex: 0, sequence_id: 5 }, { rowIndex: 1, sequence_id: 6 }, { rowIndex: 2, sequence_id: 7 }] }, { created: [[0, 5], [1, 6], [2, 7]], invalid: [], unknown: [] }],
    ['created_count covering every row, no list', { valid: true, total_attempted: 3, valid_count: 3, created_count: 3 }, { created: [[0, null], [1, null], [2, null]], invalid: [], unknown: [] }],
    ['created: [] but created_count 3 (the list is not filled in)', { valid: true, total_attempted: 3, valid_count: 3, created_count: 3, created: [] }, { created: [[0, null], [1, null], [2, null]], invalid: [], unknown: [] }],
    ['created_count 2 for 3 rows, no error', { created_count: 2 }, { created: [], invalid: [], unknown: [0, 1, 2] }],
    ['created_count 0, no error', { created_count: 0, errors: [] }, { created: [], invalid: [], unknown: [0, 1, 2] }],
    ['nothing that counts', { valid: true }, { created: [], invalid: [], unknown: [0, 1, 2] }],
    ['the count covers the rows no error names', { created_count: 2, errors: [{ rowIndex: 1, message: 'bad' }] }, { created: [[0, null], [2, null]], invalid: [1], unknown: [] }],
    ['an error naming no row: the count cannot be placed', { created_count: 2, errors: ['something is wrong'] }, { created: [], invalid: [], unknown: [0, 1, 2] }],
    ['listed entries win over an error naming the same row', { created: [{ rowIndex: 1, sequence_id: 9 }], errors: [{ rowIndex: 1, message: 'odd' }] }, { created: [[1, 9]], invalid: [], unknown: [0, 2] }],
    ['numbers as strings', { created_count: '1', created: [{ rowIndex: '2', sequence_id: '8' }] }, { created: [[2, 8]], invalid: [], unknown: [0, 1] }],
    ['{success, data} envelope', { success: true, data: { created_count: 3 } }, { created: [[0, null], [1, null], [2, null]], invalid: [], unknown: [] }],
  ])('%s', (_name, answer, expected) => {
    expect(summary(read(answer))).toEqual(expected);
  });
});

describe('errors and warnings of any shape, each message once', () => {
  it.each([
    [{ rowIndex: 1, field: 'phoneNumber', code: 'x', message: 'bad' }, [[12, 'phoneNumber', 'bad']]],
    [{ row_index: '2', column: 'clinic', msg: 'too long' }, [[15, 'clinic', 'too long']]],
    [{ rowIndex: 0, path: ['rows', 0, 'firstName'], error: { message: 'nested' } }, [[10, 'rows.0.firstName', 'nested']]],
    [{ rowIndex: 0, errors: ['phoneNumber is missing', { field: 'lastName', message: 'lastName is empty' }] }, [[10, 'phoneNumber', 'phoneNumber is missing'], [10, 'lastName', 'lastName is empty']]],
    [{ rowIndex: 0, weird: true, limit: 3 }, [[10, '', 'weird: true; limit: 3']]],
    ['the whole chunk is wrong', [[null, '', 'the whole chunk is wrong (the service named no row; chunk of lines 10-15)']]],
    [{ rowIndex: 9, message: 'out of range' }, [[null, '', 'out of range (the service named no row; chunk of lines 10-15)']]],
    [null, [[null, '', 'rejected by the service (no reason given) (the service named no row; chunk of lines 10-15)']]],
    // Row 3 can only be the third row (1-based): a 0-based 3 is outside a chunk of 3.
    ['Row 3: phoneNumber 555 is not a valid phone number', [[15, 'phoneNumber', 'Row 3: phoneNumber 555 is not a valid phone number']]],
  ])('%j', (item, expected) => {
    const a = read({ created_count: 0, errors: [item] });
    expect(a.problems.map((p) => [p.line, p.field, p.message])).toEqual(expected);
  });

  it('an ambiguous row number is reported as such, on no line, and names no row invalid', () => {
    const a = read({ created_count: 2, errors: ['Row 2: phoneNumber is not a valid phone number'] });
    expect(a.problems[0]).toMatchObject({ line: null, message: expect.stringContaining("the service's row 2 is line 12 or line 15: it does not say whether it counts rows from 0 or 1") });
    expect(summary(a)).toEqual({ created: [], invalid: [], unknown: [0, 1, 2] });
  });

  it('the numbering is learnt from a 0, from the chunk size, or from the created entries, and kept', () => {
    const n: NumberingState = {};
    read({ errors: [{ row: 3, message: 'x' }] }, 'validate', n);
    expect(n.base).toBe('one');
    const after = read({ errors: [{ row: 2, message: 'x' }] }, 'validate', n);
    expect(after.problems[0]!.line).toBe(12);
    const z: NumberingState = {};
    read({ errors: ['Row 0: x'] }, 'validate', z);
    expect(z.base).toBe('zero');
    // Rows 0 and 2 created: the error's row 2 must be 1-based (row index 1).
    const c: NumberingState = {};
    const a = read({ created: [{ rowIndex: 0, sequence_id: 1 }, { rowIndex: 2, sequence_id: 2 }], errors: [{ row: 2, message: 'bad' }] }, 'create', c);
    expect(c.base).toBe('one');
    expect(summary(a)).toEqual({ created: [[0, 1], [2, 2]], invalid: [1], unknown: [] });
  });

  it('validate: counts invalid rows the service does not name', () => {
    expect(read({ valid: false, valid_count: 1, errors: [{ rowIndex: 0, message: 'x' }] }, 'validate').unnamedInvalid).toBe(1);
    expect(read({ valid: false, errors: [] }, 'validate').unnamedInvalid).toBe(1);
    expect(read({ valid: true, valid_count: 3, errors: [] }, 'validate').unnamedInvalid).toBe(0);
    const a = read({ valid: false, valid_count: 2, errors: [{ rowIndex: 1, message: 'x' }] }, 'validate');
    expect([a.unnamedInvalid, [...a.invalid]]).toEqual([0, [1]]);
  });

  it("scrubs the row's own values from messages", () => {
    expect(scrub('phoneNumber "+14155550101" (4155550101) for Ann', { phoneNumber: '+14155550101', firstName: 'Ann' })).toBe('phoneNumber "…" (…) for …');
    expect(read({ errors: [{ rowIndex: 0, message: 'phoneNumber +14155550101 invalid' }] }).problems[0]!.message).toBe('phoneNumber … invalid');
  });

  it('flattens lists of messages under any usual key', () => {
    expect(readIssues({ row: 1, messages: ['a', 'b'] }).map((i) => [i.ref?.value, i.message])).toEqual([[1, 'a'], [1, 'b']]);
  });
});

describe('a batch answer that is no answer', () => {
  it.each([[undefined], [{}], [[]], [null], ['ok']])('%j is malformed (a create then counts as unknown)', (data) => {
    expect(() => readBatchResult(data)).toThrow(/without a record/);
  });
  it('created entries are placed by rowIndex only (zero-based in API.md), never by a "row" that may count from 1', () => {
    expect(readBatchResult({ created: [{ row: 1, sequence_id: 5 }, { rowIndex: '0', sequence_id: '6' }] }).created).toEqual([{ rowIndex: 0, sequenceId: 6 }]);
  });
});
