import { describe, expect, it } from 'vitest';
import { checkNpi } from '../../../src/validation/npi.js';

describe('checkNpi', () => {
  it.each(['1234567893', '1245319599', '1003000126', ' 1234567893 '])('accepts %j', (s) => {
    expect(checkNpi(s)).toEqual({ ok: true, npi: s.trim() });
  });

  it.each([
    ['', 'empty'],
    ['123456789', 'not_10_digits'],
    ['12345678931', 'not_10_digits'],
    ['123456789a', 'not_10_digits'],
    ['1234-56789', 'not_10_digits'],
    ['1.23457E+9', 'not_10_digits'],
    ['1234567890', 'bad_check_digit'],
    ['1234567894', 'bad_check_digit'],
    ['2134567893', 'bad_check_digit'], // two digits swapped
    ['1245319598', 'bad_check_digit'],
  ])('rejects %j as %s', (s, code) => {
    expect(checkNpi(s)).toMatchObject({ ok: false, code });
  });

  it('exactly one check digit is valid for each 9-digit base', () => {
    for (const base of ['123456789', '124531959', '100300012', '999999999']) {
      const valid = [...'0123456789'].filter((d) => checkNpi(base + d).ok);
      expect(valid).toHaveLength(1);
    }
  });
});
