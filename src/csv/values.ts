// Checks a CSV value against the type of a sequence definition input. Values stay text (the
// service takes strings): a number keeps its leading zeros and digits exactly as written.
//
// Decisions:
//   - number: plain decimal only (`-12`, `3.5`, `.5`). `1,234` is rejected: the comma may be a
//     thousands separator or a decimal comma (European exports), and guessing changes the value
//     a thousandfold. Exponents (`1E+5`) are rejected too: usually Excel damage.
//   - date: via normaliseDate, output YYYY-MM-DD.
//   - boolean: true/false, yes/no, y/n, 1/0 (any case) → 'true'/'false'.
//   - text, and any type this client does not know yet: trimmed, otherwise unchanged.
//   - empty is its own result (code 'empty') for every type: whether a field may be blank is the
//     caller's decision (the input's `required`).

import { normaliseDate } from './dates.js';

/** Input types with a local check; others are treated as text. */
export type InputType = 'text' | 'number' | 'date' | 'boolean';

/** Result of checkValue: the value to send, or a code and a message that does not echo the value. */
export type ValueResult = { ok: true; value: string } | { ok: false; code: string; message: string };

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** Checks and normalises one value for an input of the given type (unknown types: text). */
export function checkValue(type: InputType | (string & {}), raw: string): ValueResult {
  const value = raw.trim();
  if (value === '') return { ok: false, code: 'empty', message: 'the value is empty' };
  switch (type) {
    case 'number':
      if (NUMBER.test(value)) return { ok: true, value };
      if (/^[+-]?[\d.,]+$/.test(value) && value.includes(',')) {
        return {
          ok: false,
          code: 'invalid_number',
          message: 'the number contains a comma; write it without thousands separators and with . as the decimal point',
        };
      }
      return { ok: false, code: 'invalid_number', message: 'not a number (digits, an optional sign and . as the decimal point)' };
    case 'date': {
      const d = normaliseDate(value);
      return d.ok ? { ok: true, value: d.date } : d;
    }
    case 'boolean': {
      const v = value.toLowerCase();
      if (TRUE.has(v)) return { ok: true, value: 'true' };
      if (FALSE.has(v)) return { ok: true, value: 'false' };
      return { ok: false, code: 'invalid_boolean', message: 'not a yes/no value (true/false, yes/no, y/n, 1/0)' };
    }
    default:
      return { ok: true, value };
  }
}
