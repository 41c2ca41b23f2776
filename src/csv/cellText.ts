// A workbook cell as the text a CSV export of it would hold, so that the row checks see the same
// values whatever the file type: phone numbers as their digits (never 1.4155550121E+10), dates as
// YYYY-MM-DD, padded ids with their zeros. Pure: the cell's value as exceljs gives it, and its
// number format.

/** What cellText needs of an exceljs cell: its value and its number format. */
export interface CellLike {
  value: unknown;
  numFmt?: string;
}

export interface CellTextOptions {
  /** The workbook counts days from 1904 (old Mac Excel): for formula results in a date format. */
  date1904?: boolean;
  /** The workbook's shared string at an index, for cells that refer to one (`{sharedString: n}`). */
  sharedString?: (index: number) => string | undefined;
}

// Excel shows 15 significant digits and stores up to 17: 0.1+0.2 is stored as
// 0.30000000000000004 and shown as 0.3, which is what the person typed or saw.
const EXCEL_DIGITS = 15;
const MS_PER_DAY = 86_400_000;

export function cellText(cell: CellLike, options: CellTextOptions = {}): string {
  return valueText(cell.value, cell.numFmt, options);
}

function valueText(value: unknown, numFmt: string | undefined, options: CellTextOptions): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    // exceljs turns plain date cells into Dates itself, but not the results of formulas.
    if (Number.isFinite(value) && isDateFormat(numFmt)) return dateText(serialToDate(value, options.date1904), options.date1904);
    return numberText(value, numFmt);
  }
  if (value instanceof Date) return dateText(value, options.date1904);
  if (typeof value !== 'object') return String(value);
  const v = value as Record<string, unknown>;
  if (typeof v.sharedString === 'number') {
    // A text the cell refers to by number: it must be found, a lost text must not pass for empty.
    const text = options.sharedString?.(v.sharedString);
    if (text === undefined) throw new Error('a cell refers to a shared string that was not read');
    return text;
  }
  if (Array.isArray(v.richText)) return v.richText.map((run: { text?: unknown }) => (typeof run?.text === 'string' ? run.text : '')).join('');
  if (typeof v.error === 'string') return v.error;
  if ('formula' in v || 'sharedFormula' in v || 'result' in v) {
    // The streaming reader parses an error result (#N/A) as a number: NaN. Its text is lost, but it
    // must stay an error, not become a value the row checks could take for data.
    if (typeof v.result === 'number' && Number.isNaN(v.result)) return '#ERROR!';
    return valueText(v.result, numFmt, options); // no cached result: ""
  }
  if ('text' in v) return valueText(v.text, numFmt, options); // a hyperlink: its text
  return '';
}

/** Integers as all their digits; other numbers as the shortest decimal, never in exponent notation. */
export function numberText(n: number, numFmt?: string): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) {
    const digits = BigInt(n).toString();
    // "00000": a zip code or member id kept at its width by a format of zeros.
    const width = zeroPadWidth(numFmt);
    return width && n >= 0 ? digits.padStart(width, '0') : digits;
  }
  return plainDecimal(Number(n.toPrecision(EXCEL_DIGITS)));
}

function zeroPadWidth(numFmt: string | undefined): number | undefined {
  return numFmt && /^0+$/.test(numFmt) ? numFmt.length : undefined;
}

// String(1.5e-7) is "1.5e-7"; a spreadsheet user wrote 0.00000015.
function plainDecimal(n: number): string {
  const s = String(n);
  const e = s.indexOf('e');
  if (e === -1) return s;
  const sign = s.startsWith('-') ? '-' : '';
  const mantissa = s.slice(sign.length, e);
  const exponent = Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const point = (dot === -1 ? mantissa.length : dot) + exponent;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * True for a number format that shows a date or a time. Quoted text, [colour]/[$-409] sections
 * and escaped or padding characters (\m, _m, *m) hold no date parts.
 */
export function isDateFormat(numFmt: string | undefined): boolean {
  if (!numFmt) return false;
  const bare = numFmt.replace(/"[^"]*"/g, '').replace(/\[[^\]]*\]/g, '').replace(/[\\_*]./g, '');
  return /[ymdhs]/i.test(bare);
}

/** A day count in Excel's calendar as the Date exceljs would give (UTC parts are the cell's). */
export function serialToDate(serial: number, date1904 = false): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * MS_PER_DAY));
}

/**
 * A date cell's text: YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] when it has a time of day, HH:MM[:SS] for a
 * time alone (day 0 of Excel's calendar). UTC parts: Excel dates have no time zone.
 */
export function dateText(d: Date, date1904 = false): string {
  // Excel's day fractions land a hair off the second (0.99999 s): round to the nearest second.
  const t = Math.round(d.getTime() / 1000) * 1000;
  if (!Number.isFinite(t)) return '';
  const u = new Date(t);
  const date = `${String(u.getUTCFullYear()).padStart(4, '0')}-${two(u.getUTCMonth() + 1)}-${two(u.getUTCDate())}`;
  const seconds = u.getUTCSeconds();
  const time = `${two(u.getUTCHours())}:${two(u.getUTCMinutes())}${seconds ? `:${two(seconds)}` : ''}`;
  if (date === (date1904 ? '1904-01-01' : '1899-12-30')) return time;
  return time === '00:00' ? date : `${date}T${time}`;
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}
