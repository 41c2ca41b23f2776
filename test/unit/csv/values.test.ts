import { describe, expect, it } from 'vitest';
import { checkValue } from '../../../src/csv/values.js';

describe('checkValue', () => {
  it.each([
    ['text', '  00123 ', '00123'],
    ['text', 'Dr. O\'Neil, MD', 'Dr. O\'Neil, MD'],
    ['custom-type', '0042', '0042'],
    ['number', '42', '42'],
    ['number', '007', '007'],
    ['number', '-3.50', '-3.50'],
    ['number', '+1', '+1'],
    ['number', '.5', '.5'],
    ['date', '3/4/2024', '2024-03-04'],
    ['date', '2024-03-04', '2024-03-04'],
    ['boolean', 'TRUE', 'true'],
    ['boolean', 'Yes', 'true'],
    ['boolean', 'y', 'true'],
    ['boolean', '1', 'true'],
    ['boolean', 'false', 'false'],
    ['boolean', 'NO', 'false'],
    ['boolean', 'n', 'false'],
    ['boolean', '0', 'false'],
  ])('%s %j → %j', (type, raw, value) => {
    expect(checkValue(type, raw)).toEqual({ ok: true, value });
  });

  it.each([
    ['text', '   ', 'empty'],
    ['number', '', 'empty'],
    ['number', '1,234', 'invalid_number'],
    ['number', '1.234,5', 'invalid_number'],
    ['number', '1E+5', 'invalid_number'],
    ['number', '12 kg', 'invalid_number'],
    ['number', '$5', 'invalid_number'],
    ['number', '-', 'invalid_number'],
    ['date', '3/4/24', 'two_digit_year'],
    ['date', '03-04-2024', 'ambiguous_date'],
    ['boolean', 'maybe', 'invalid_boolean'],
    ['boolean', 'ja', 'invalid_boolean'],
  ])('%s %j → %s', (type, raw, code) => {
    expect(checkValue(type, raw)).toMatchObject({ ok: false, code });
  });

  it('explains the comma rule', () => {
    const r = checkValue('number', '1,234');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/thousands separators/);
  });
});
