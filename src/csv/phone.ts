// Phone numbers to E.164, with messages a care coordinator can act on.
//
// Uses libphonenumber-js with the "max" metadata: "min" only checks lengths, so it accepts numbers
// no one can own (e.g. US exchanges starting with 0 or 1); for numbers we will call, the strict
// check costs no measurable import time over "min" (both ≈60 ms in-process on Node 20 here).
// Messages never contain the number itself: it is patient data.

import {
  isSupportedCountry as libIsSupportedCountry,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
  type CountryCode,
} from 'libphonenumber-js/max';

/** Why a phone value was rejected. */
export type PhoneErrorCode =
  | 'empty'
  | 'excel_scientific'
  | 'letters'
  | 'invalid_characters'
  | 'extension'
  | 'too_short'
  | 'too_long'
  | 'invalid';

/** Result of normalisePhone: the E.164 form, or a code and a message that does not echo the value. */
export type PhoneResult = { ok: true; e164: string } | { ok: false; code: PhoneErrorCode; message: string };

/** True when `country` is an ISO 3166-1 alpha-2 code the phone metadata knows (check --country once). */
export function isSupportedCountry(country: string): boolean {
  return libIsSupportedCountry(country.toUpperCase());
}

// 4.41E+11, 4.4155E+11, 1.23457E+14, 4,41E+11 (comma-decimal locales)
const SCIENTIFIC = /^[+-]?\d+(?:[.,]\d+)?e[+-]?\d+$/i;
const EXTENSION = /(?:\s*(?:ext\.?|extension|x|#)\s*\d+)$/i;
const ALLOWED = /^[\d\s()\-./+\u00a0]+$/;

/**
 * Normalises a phone number to E.164; numbers without +country are read as `defaultCountry`.
 * Throws RangeError for an unknown country (check --country once with isSupportedCountry).
 */
export function normalisePhone(raw: string, defaultCountry = 'US'): PhoneResult {
  if (!isSupportedCountry(defaultCountry)) throw new RangeError(`unknown country code "${defaultCountry}"`);
  const country = defaultCountry.toUpperCase() as CountryCode;
  const value = raw.trim();
  if (value === '') return fail('empty', 'the phone number is empty');
  if (SCIENTIFIC.test(value)) {
    return fail(
      'excel_scientific',
      'the phone number was turned into a number by Excel (scientific notation like 4.41E+11) and its last digits were lost; ' +
        'format the column as Text in the original file and export again',
    );
  }
  if (EXTENSION.test(value) && /\d/.test(value.replace(EXTENSION, ''))) {
    // An extension cannot be dialled by an automated call; calling the main line would reach the wrong person.
    return fail('extension', 'the phone number has an extension, which cannot be dialled; give a direct number');
  }
  if (/\p{L}/u.test(value)) return fail('letters', 'the phone number contains letters');
  if (!ALLOWED.test(value)) return fail('invalid_characters', 'the phone number contains characters other than digits, spaces, + ( ) - . /');
  if (value.indexOf('+') > 0) return fail('invalid_characters', 'the phone number has a + that is not at the start');

  // One parse for the common case (~17 µs); the length check, a second parse, only to explain a failure.
  const parsed = parsePhoneNumberFromString(value, country);
  if (parsed && parsed.isValid()) return { ok: true, e164: parsed.number };

  const where = value.startsWith('+') ? 'phone number' : `${country} phone number`;
  const hint = value.startsWith('+') ? '' : '; if it is international, write it with + and the country code';
  const lengthProblem = validatePhoneNumberLength(value, country);
  if (lengthProblem === 'TOO_SHORT' || lengthProblem === 'NOT_A_NUMBER') {
    return fail('too_short', `the phone number is too short for a ${where}`);
  }
  if (lengthProblem === 'TOO_LONG') return fail('too_long', `the phone number is too long for a ${where}${hint}`);
  return fail('invalid', `not a valid ${where}${hint}`);
}

function fail(code: PhoneErrorCode, message: string): PhoneResult {
  return { ok: false, code, message };
}
