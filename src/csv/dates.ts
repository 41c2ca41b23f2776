// Dates from patient files to YYYY-MM-DD.
//
// Accepted:
//   - year first: YYYY-MM-DD (also YYYY-M-D and YYYY/MM/DD), optionally followed by a time part
//     ("T10:00:00Z", " 00:00:00") which is dropped WITHOUT time-zone conversion: a birth date
//     exported as midnight UTC must not move to the previous day;
//   - compact YYYYMMDD (HL7 style) when the year is 1800 or later;
//   - US month first: M/D/YYYY or MM/DD/YYYY, optionally followed by a time as Excel writes it
//     ("3/4/1980 0:00", "3/4/1980 12:00:00 AM"), also dropped.
// Rejected, each with its own code: two-digit years, day-first slash dates (first part > 12),
// dates with "-" or "." between day and month (the writer's order cannot be known from the value,
// so they are refused consistently rather than accepted only when the day happens to exceed 12),
// impossible dates (2/30/2024), Excel serial numbers, and anything else.
// Messages never echo the value.

/** Why a date was rejected. */
export type DateErrorCode =
  | 'empty'
  | 'two_digit_year'
  | 'ambiguous_date'
  | 'day_first'
  | 'impossible_date'
  | 'excel_serial'
  | 'invalid_date';

/** Result of normaliseDate: an ISO calendar date, or a code and a message. */
export type DateResult = { ok: true; date: string } | { ok: false; code: DateErrorCode; message: string };

const TIME = String.raw`(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[AaPp][Mm])?(?:Z|[+-]\d{2}:?\d{2})?)?`;
const YEAR_FIRST = new RegExp(String.raw`^(\d{4})([-/])(\d{1,2})\2(\d{1,2})${TIME}$`);
const US_SLASH = new RegExp(String.raw`^(\d{1,2})/(\d{1,2})/(\d{4})${TIME.replace('[T ]', String.raw`\s+`)}$`);
const SHORT_YEAR = /^\d{1,2}([-/.])\d{1,2}\1\d{2}(?:\s+\d{1,2}:\d{2}.*)?$/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})$/; // YYYYMMDD, as HL7 and many EHR exports write it
const DAY_MONTH_OTHER = /^(\d{1,2})([-.])(\d{1,2})\2(\d{4})$/;
const ISO_STRICT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a strict YYYY-MM-DD string naming a real calendar day (leap years included). */
export function isRealIsoDate(s: string): boolean {
  const m = ISO_STRICT.exec(s);
  return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** Normalises a date from a CSV cell to YYYY-MM-DD; see the module comment for the accepted forms. */
export function normaliseDate(raw: string): DateResult {
  const value = raw.trim();
  if (value === '') return fail('empty', 'the date is empty');

  let m = YEAR_FIRST.exec(value);
  if (m) return build(Number(m[1]), Number(m[3]), Number(m[4]));

  m = COMPACT.exec(value);
  if (m && Number(m[1]) >= 1800) return build(Number(m[1]), Number(m[2]), Number(m[3]));

  m = US_SLASH.exec(value);
  if (m) {
    const first = Number(m[1]);
    const second = Number(m[2]);
    if (first > 12 && second <= 12) {
      return fail(
        'day_first',
        'the date looks day-first (day/month/year, its first part is greater than 12); write it month first (M/D/YYYY) or as YYYY-MM-DD',
      );
    }
    return build(Number(m[3]), first, second);
  }

  if (SHORT_YEAR.test(value)) {
    return fail('two_digit_year', 'the date has a two-digit year, so the century is unknown; write the year with four digits');
  }

  m = DAY_MONTH_OTHER.exec(value);
  if (m) {
    if (Number(m[1]) > 12) {
      return fail('day_first', 'the date is day-first (day-month-year); write it as YYYY-MM-DD or month first (M/D/YYYY)');
    }
    return fail(
      'ambiguous_date',
      `the date uses "${m[2]}" between day and month, so day/month order cannot be known; write it as YYYY-MM-DD or M/D/YYYY`,
    );
  }

  if (/^\d{4,5}(?:\.\d+)?$/.test(value) && Number(value) >= 1000) {
    return fail('excel_serial', 'the date is a plain number (Excel stores dates as serial numbers); format the column as a date and export again');
  }
  return fail('invalid_date', 'not a date in the form YYYY-MM-DD or M/D/YYYY');
}

function build(year: number, month: number, day: number): DateResult {
  if (!isRealDate(year, month, day)) return fail('impossible_date', 'the date does not exist in the calendar');
  return { ok: true, date: `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}` };
}

function isRealDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function fail(code: DateErrorCode, message: string): DateResult {
  return { ok: false, code, message };
}
