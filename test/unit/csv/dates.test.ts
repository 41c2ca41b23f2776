import { describe, expect, it } from 'vitest';
import { isRealIsoDate, normaliseDate } from '../../../src/csv/dates.js';

describe('normaliseDate: accepted', () => {
  it.each([
    ['2024-03-04', '2024-03-04'],
    ['2024-3-4', '2024-03-04'],
    ['2024/03/04', '2024-03-04'],
    ['2024-03-04T10:30:00Z', '2024-03-04'],
    ['1980-01-02T00:00:00.000-05:00', '1980-01-02'],
    ['1980-01-02T00:00:00+00:00', '1980-01-02'], // no time-zone shift
    ['2024-03-04 00:00:00', '2024-03-04'],
    ['3/4/2024', '2024-03-04'],
    ['03/04/2024', '2024-03-04'],
    ['12/31/1999', '1999-12-31'],
    ['1/13/2024', '2024-01-13'],
    ['3/4/1980 0:00', '1980-03-04'],
    ['3/4/1980 12:00:00 AM', '1980-03-04'],
    ['  7/4/1976 ', '1976-07-04'],
    ['19800304', '1980-03-04'],
    ['2/29/2024', '2024-02-29'], // leap year
    ['2000-02-29', '2000-02-29'], // divisible by 400
  ])('%j → %s', (raw, date) => {
    expect(normaliseDate(raw)).toEqual({ ok: true, date });
  });
});

describe('normaliseDate: rejected', () => {
  it.each([
    ['', 'empty'],
    ['3/4/24', 'two_digit_year'],
    ['03-04-24', 'two_digit_year'],
    ['3.4.24', 'two_digit_year'],
    ['3/4/24 0:00', 'two_digit_year'],
    ['03-04-2024', 'ambiguous_date'],
    ['03.04.2024', 'ambiguous_date'],
    ['12-25-2024', 'ambiguous_date'], // refused consistently, see dates.ts
    ['25/12/2024', 'day_first'],
    ['13/1/2024', 'day_first'],
    ['25-12-2024', 'day_first'],
    ['31.01.1980', 'day_first'],
    ['2/30/2024', 'impossible_date'],
    ['2/29/2023', 'impossible_date'],
    ['1900-02-29', 'impossible_date'], // not a leap year
    ['2100-02-29', 'impossible_date'],
    ['4/31/2024', 'impossible_date'],
    ['2024-13-01', 'impossible_date'],
    ['2024-00-10', 'impossible_date'],
    ['13/13/2024', 'impossible_date'],
    ['0000-01-01', 'impossible_date'],
    ['29221', 'excel_serial'],
    ['44927.5', 'excel_serial'],
    ['March 4, 2024', 'invalid_date'],
    ['2024-03', 'invalid_date'],
    ['yesterday', 'invalid_date'],
    ['12251980', 'invalid_date'], // MMDDYYYY is not accepted
    ['3/4/2024/1', 'invalid_date'],
  ])('%j → %s', (raw, code) => {
    const r = normaliseDate(raw);
    expect(r).toMatchObject({ ok: false, code });
    if (!r.ok && raw.trim()) expect(r.message).not.toContain(raw.trim());
  });

  it('says a day-first date is not the US form', () => {
    const r = normaliseDate('25/12/2024');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/day-first.*M\/D\/YYYY/);
  });
});

describe('isRealIsoDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-28', true],
    ['2023-02-29', false],
    ['2024-04-31', false],
    ['2024-4-30', false],
    ['2024-04-30T00:00:00Z', false],
    [' 2024-04-30', false],
    ['', false],
  ])('%j → %s', (s, ok) => expect(isRealIsoDate(s)).toBe(ok));
});
