import { describe, expect, it } from 'vitest';
import { checkDateOfBirth } from '../../../src/validation/dob.js';

const today = new Date(2024, 5, 15, 23, 30); // 15 June 2024, local time, late evening

describe('checkDateOfBirth', () => {
  it.each(['1980-03-04', '1900-01-01', '2024-06-15', '2024-02-29', ' 2000-01-01 '])('accepts %j', (s) => {
    expect(checkDateOfBirth(s, today)).toEqual({ ok: true, date: s.trim() });
  });

  it.each([
    ['', 'empty'],
    ['2024-06-16', 'future'],
    ['2025-01-01', 'future'],
    ['1899-12-31', 'before_1900'],
    ['1800-01-01', 'before_1900'],
    ['2023-02-29', 'invalid_date'],
    ['1980-13-01', 'invalid_date'],
    ['3/4/1980', 'invalid_date'],
    ['1980-3-4', 'invalid_date'],
    ['yesterday', 'invalid_date'],
  ])('rejects %j as %s', (s, code) => {
    const r = checkDateOfBirth(s, today);
    expect(r).toMatchObject({ ok: false, code });
    if (!r.ok && s) expect(r.message).not.toContain(s);
  });

  it('uses the local calendar day of `today`', () => {
    const earlyMorning = new Date(2024, 0, 1, 0, 5);
    expect(checkDateOfBirth('2024-01-01', earlyMorning).ok).toBe(true);
    expect(checkDateOfBirth('2024-01-02', earlyMorning)).toMatchObject({ ok: false, code: 'future' });
  });
});
