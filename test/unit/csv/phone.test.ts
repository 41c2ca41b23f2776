import { describe, expect, it } from 'vitest';
import { isSupportedCountry, normalisePhone } from '../../../src/csv/phone.js';

describe('normalisePhone: accepted', () => {
  it.each([
    ['(415) 555-2671', '+14155552671'],
    ['415-555-2671', '+14155552671'],
    ['415.555.2671', '+14155552671'],
    ['415 555 2671', '+14155552671'],
    ['4155552671', '+14155552671'],
    ['14155552671', '+14155552671'],
    ['1-415-555-2671', '+14155552671'],
    ['+1 415 555 2671', '+14155552671'],
    ['+1 (415) 555-2671', '+14155552671'],
    ['  415-555-2671  ', '+14155552671'],
    ['212 555 0123', '+12125550123'],
    ['+44 20 7183 8750', '+442071838750'],
    ['+44 7911 123456', '+447911123456'],
    ['+447911123456', '+447911123456'],
  ])('%j → %s', (raw, e164) => {
    expect(normalisePhone(raw)).toEqual({ ok: true, e164 });
  });

  it('reads national numbers in the given country', () => {
    expect(normalisePhone('020 7183 8750', 'GB')).toEqual({ ok: true, e164: '+442071838750' });
    expect(normalisePhone('07911 123456', 'gb')).toEqual({ ok: true, e164: '+447911123456' });
  });
});

describe('normalisePhone: rejected', () => {
  it.each([
    ['4.41E+11', 'excel_scientific'],
    ['4.4155E+11', 'excel_scientific'],
    ['1.23457E+14', 'excel_scientific'],
    ['4,41E+11', 'excel_scientific'],
    ['4.41e11', 'excel_scientific'],
    ['', 'empty'],
    ['   ', 'empty'],
    ['555-CALL-NOW', 'letters'],
    ['1-800-FLOWERS', 'letters'],
    ['abc', 'letters'],
    ['415-555-2671 ext 12', 'extension'],
    ['415-555-2671 x12', 'extension'],
    ['555-1234', 'too_short'],
    ['12', 'too_short'],
    ['415*555*2671', 'invalid_characters'],
    ['415 555+2671', 'invalid_characters'],
    ['415555267112345', 'too_long'],
    ['(123) 456-7890', 'invalid'], // US area codes never start with 1
    ['(201) 055-0123', 'invalid'], // nor exchanges with 0
    ['555-555-5555', 'invalid'],
    ['+44 20 1234', 'too_short'],
  ])('%j → %s', (raw, code) => {
    const r = normalisePhone(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe(code);
  });

  it('explains Excel damage without echoing the value', () => {
    const r = normalisePhone('4.4155E+11');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/Excel/);
    expect(r.message).toMatch(/digits were lost|last digits were lost/);
    expect(r.message).not.toContain('4.4155');
  });

  it('names the country, hints at + for international numbers, never echoes the number', () => {
    const r = normalisePhone('(123) 456-7890');
    expect(r).toMatchObject({ ok: false, code: 'invalid' });
    if (r.ok) return;
    expect(r.message).toContain('not a valid US phone number');
    expect(r.message).toContain('+');
    for (const part of ['123', '456', '7890']) expect(r.message).not.toContain(part);
  });

  it('reports a UK number without + as too long for the US', () => {
    const r = normalisePhone('442071838750');
    expect(r).toMatchObject({ ok: false, code: 'too_long' });
  });

  it('throws on an unknown default country', () => {
    expect(() => normalisePhone('4155552671', 'XX')).toThrow(RangeError);
    expect(isSupportedCountry('us')).toBe(true);
    expect(isSupportedCountry('XX')).toBe(false);
  });
});
