// Settling unknown rows from what API.md's records carry (pure part).
import { describe, expect, it } from 'vitest';
import { readCandidate, settleRows, type Candidate } from '../../../src/batch/settle.js';

const since = Date.parse('2030-01-01T10:00:00Z');
const hash = (e: string) => `h${e}`;
const o = { definitionId: 1, sinceMs: since, hash };
const row = (line: number, phone: string) => ({ line, phone: `h${phone}`, chunk: 1, at: 't' });
const seq = (id: number, phone: string | undefined, at: string | undefined, def: number | undefined = 1, updated?: string): Candidate => ({
  id,
  definitionId: def,
  createdAt: at ? Date.parse(at) : undefined,
  updatedAt: updated ? Date.parse(updated) : undefined,
  phones: phone ? [phone] : [],
});
const complete = (candidates: Candidate[]) => ({ candidates, complete: true });

describe('settling unknown rows', () => {
  it('created: a sequence of the definition for the phone, created since the run began', () => {
    const r = settleRows([row(5, '+1'), row(6, '+2'), row(7, '+3')], complete([seq(21, '+1', '2030-01-01T10:01:00Z'), seq(23, '+3', '2030-01-01T10:02:00Z', 2)]), o);
    expect(r).toEqual({ created: [{ line: 5, id: 21 }], absent: [6, 7], unknown: [] });
  });
  it('two rows with one phone and one sequence: which one is unknown', () => {
    const r = settleRows([row(5, '+1'), row(6, '+1')], complete([seq(30, '+1', '2030-01-01T10:01:00Z')]), o);
    expect(r.created).toEqual([]);
    expect(r.unknown.map((u) => u.line)).toEqual([5, 6]);
    expect(r.unknown[0]!.why).toContain('share it');
  });
  it('API.md fields only: a sequence changed during the run, without created_at, is no proof either way', () => {
    const r = settleRows([row(5, '+1'), row(6, '+2')], complete([seq(30, '+1', undefined, 1, '2030-01-01T10:05:00Z')]), o);
    expect(r.created).toEqual([]);
    expect(r.absent).toEqual([6]);
    expect(r.unknown).toEqual([{ line: 5, why: expect.stringContaining('no creation time') }]);
  });
  it('a sequence whose phone is not shown blocks every proof of absence', () => {
    const r = settleRows([row(5, '+1'), row(6, '+2')], complete([seq(30, undefined, '2030-01-01T10:01:00Z'), seq(31, '+1', '2030-01-01T10:01:00Z')]), o);
    expect(r.created).toEqual([{ line: 5, id: 31 }]);
    expect(r.unknown).toEqual([{ line: 6, why: expect.stringContaining('1 sequence created during the run does not show a phone number') }]);
  });
  it('an incomplete listing proves creation but never absence', () => {
    const r = settleRows([row(5, '+1'), row(6, '+2')], { candidates: [seq(31, '+1', '2030-01-01T10:01:00Z')], complete: false }, o);
    expect(r.created).toEqual([{ line: 5, id: 31 }]);
    expect(r.unknown.map((u) => u.line)).toEqual([6]);
  });
  it('reads what a record carries: API.md fields, numbers as strings, sandbox extras', () => {
    expect(readCandidate({ id: '7', sequence_definition_id: '2', last_updated: '2030-01-01T00:00:00Z', steps: [{ destination_number: '+1' }, { destination_number: null }] })).toEqual({
      id: 7,
      definitionId: 2,
      createdAt: undefined,
      updatedAt: Date.parse('2030-01-01T00:00:00Z'),
      phones: ['+1'],
    });
    expect(readCandidate({ id: 1, created_at: '2030-01-01T00:00:00Z', phone_number: '+2' })).toMatchObject({ createdAt: Date.parse('2030-01-01T00:00:00Z'), phones: ['+2'] });
    expect(readCandidate({ name: 'no id' })).toBeUndefined();
  });
});
