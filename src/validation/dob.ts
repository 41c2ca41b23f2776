// Date of birth check for eligibility requests: a real YYYY-MM-DD date between 1900-01-01 and
// today. "Today" is the local calendar date of `today` (the operator's day, as the user sees it).

import { isRealIsoDate } from '../csv/dates.js';

/** Result of checkDateOfBirth: the date, or a code and a message that does not echo the value. */
export type DobResult =
  | { ok: true; date: string }
  | { ok: false; code: 'empty' | 'invalid_date' | 'future' | 'before_1900'; message: string };

/** Checks a date of birth given as YYYY-MM-DD against the calendar date of `today`. */
export function checkDateOfBirth(s: string, today: Date): DobResult {
  const date = s.trim();
  if (date === '') return { ok: false, code: 'empty', message: 'the date of birth is empty' };
  if (!isRealIsoDate(date)) {
    return { ok: false, code: 'invalid_date', message: 'the date of birth must be a real date written YYYY-MM-DD' };
  }
  if (date < '1900-01-01') return { ok: false, code: 'before_1900', message: 'the date of birth is before 1900' };
  const pad = (n: number) => String(n).padStart(2, '0');
  const todayIso = `${today.getFullYear()}-${pad(today.getMonth() + 1)}-${pad(today.getDate())}`;
  // Plain string comparison is chronological for zero-padded YYYY-MM-DD.
  if (date > todayIso) return { ok: false, code: 'future', message: 'the date of birth is in the future' };
  return { ok: true, date };
}
