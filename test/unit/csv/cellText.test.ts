import { describe, expect, it } from 'vitest';
import { cellText, dateText, isDateFormat, numberText, serialToDate } from '../../../src/csv/cellText.js';

const utc = (...p: [number, number, number, number?, number?, number?, number?]) => new Date(Date.UTC(...p));
const serialOf = (d: Date) => (d.getTime() - Date.UTC(1899, 11, 30)) / 86_400_000;

describe('cellText: numbers', () => {
  it('a phone number cell is its digits, never exponent notation', () => {
    expect(cellText({ value: 14155550121 })).toBe('14155550121');
    expect(cellText({ value: 4155550120 })).toBe('4155550120');
    expect(cellText({ value: 4155550120, numFmt: 'General' })).toBe('4155550120');
    expect(cellText({ value: 1e21 })).toBe('1000000000000000000000');
    expect(cellText({ value: -42 })).toBe('-42');
  });

  it('other numbers as the shortest decimal, at the 15 digits Excel shows', () => {
    expect(cellText({ value: 25.5 })).toBe('25.5');
    expect(cellText({ value: 0.1 + 0.2 })).toBe('0.3');
    expect(cellText({ value: 1.5e-7 })).toBe('0.00000015');
    expect(cellText({ value: -2.5e-10 })).toBe('-0.00000000025');
    expect(cellText({ value: 12.5, numFmt: '0.00' })).toBe('12.5');
  });

  it('a format of zeros pads the digits to its width (zip codes, member ids)', () => {
    expect(cellText({ value: 501, numFmt: '00000' })).toBe('00501');
    expect(cellText({ value: 12345, numFmt: '000000000' })).toBe('000012345');
    expect(cellText({ value: 1234567, numFmt: '00000' })).toBe('1234567'); // wider than the format: all digits
    expect(cellText({ value: 501, numFmt: '0.00' })).toBe('501');
    expect(numberText(7, '000')).toBe('007');
    expect(numberText(Number.NaN)).toBe('NaN');
  });
});

describe('cellText: dates and times (UTC parts: Excel dates have no zone)', () => {
  it('a date as YYYY-MM-DD, a date-time with its time, a time alone as HH:MM', () => {
    expect(cellText({ value: utc(2030, 4, 17), numFmt: 'mm-dd-yy' })).toBe('2030-05-17');
    expect(cellText({ value: utc(2030, 4, 17, 9, 30), numFmt: 'm/d/yyyy h:mm' })).toBe('2030-05-17T09:30');
    expect(cellText({ value: utc(2030, 4, 17, 9, 30, 15) })).toBe('2030-05-17T09:30:15');
    expect(cellText({ value: utc(1899, 11, 30, 10, 30), numFmt: 'h:mm' })).toBe('10:30');
    expect(cellText({ value: utc(1899, 11, 30, 0, 0, 5), numFmt: 'h:mm:ss' })).toBe('00:00:05');
    expect(cellText({ value: utc(987, 0, 2) })).toBe('0987-01-02');
  });

  it("a day fraction a hair off the second is rounded to it (Excel's floats)", () => {
    expect(dateText(new Date(Date.UTC(2030, 4, 17, 9, 29, 59, 999)))).toBe('2030-05-17T09:30');
    expect(dateText(new Date(Date.UTC(2030, 4, 16, 23, 59, 59, 600)))).toBe('2030-05-17');
    expect(dateText(new Date(Number.NaN))).toBe('');
  });

  it('a formula result in a date format is a date (exceljs leaves it a number)', () => {
    const serial = serialOf(utc(2030, 4, 17));
    expect(serial).toBe(47620);
    expect(cellText({ value: { formula: 'A1+1', result: serial }, numFmt: 'm/d/yyyy' })).toBe('2030-05-17');
    expect(cellText({ value: { formula: 'NOW()', result: serial + 0.5 }, numFmt: 'yyyy-mm-dd hh:mm' })).toBe('2030-05-17T12:00');
    expect(cellText({ value: serial }, {})).toBe('47620'); // no date format: a number
  });

  it('the 1904 date system (old Mac workbooks)', () => {
    expect(serialToDate(0, true).toISOString()).toBe('1904-01-01T00:00:00.000Z');
    expect(cellText({ value: { formula: 'X', result: 46158 }, numFmt: 'm/d/yyyy' }, { date1904: true })).toBe('2030-05-17');
    expect(dateText(serialToDate(0.75, true), true)).toBe('18:00');
  });

  it('isDateFormat: date and time parts, not text, colours, locales or escaped letters', () => {
    for (const f of ['mm-dd-yy', 'm/d/yyyy', 'd-mmm-yy', 'h:mm', 'h:mm AM/PM', '[$-409]mmmm d, yyyy', 'yyyy-mm-dd hh:mm:ss', '[h]:mm:ss']) expect(isDateFormat(f), f).toBe(true);
    for (const f of [undefined, '', 'General', '0', '0.00', '00000', '#,##0.00', '[Red]0.00', '"days: "0', '0\\ \\m', '0_m', '@', '0.00E+00']) expect(isDateFormat(f), String(f)).toBe(false);
  });
});

describe('cellText: text, formulas and the rest', () => {
  it('text as text; rich text runs joined; hyperlinks their text', () => {
    expect(cellText({ value: 'Maria' })).toBe('Maria');
    expect(cellText({ value: ' (415) 555-0122 ' })).toBe(' (415) 555-0122 ');
    expect(cellText({ value: { richText: [{ text: 'Dr. ', font: {} }, { text: 'Singh', font: { bold: true } }] } })).toBe('Dr. Singh');
    expect(cellText({ value: { text: 'Clinic page', hyperlink: 'https://example.org' } })).toBe('Clinic page');
    expect(cellText({ value: { text: { richText: [{ text: 'a' }, { text: 'b' }] }, hyperlink: 'x' } })).toBe('ab');
  });

  it('booleans, errors, empty cells', () => {
    expect(cellText({ value: true })).toBe('true');
    expect(cellText({ value: false })).toBe('false');
    expect(cellText({ value: { error: '#N/A' } })).toBe('#N/A');
    expect(cellText({ value: null })).toBe('');
    expect(cellText({ value: undefined })).toBe('');
    expect(cellText({ value: { something: 'else' } })).toBe('');
    const strings = ['Maria', 'North Clinic'];
    expect(cellText({ value: { sharedString: 1 } }, { sharedString: (i) => strings[i] })).toBe('North Clinic');
    expect(cellText({ value: { sharedString: 0 } }, { sharedString: (i) => strings[i] })).toBe('Maria');
    // A text that was not read is not an empty cell.
    expect(() => cellText({ value: { sharedString: 2 } }, { sharedString: (i) => strings[i] })).toThrow(/shared string/);
    expect(() => cellText({ value: { sharedString: 0 } })).toThrow(/shared string/);
  });

  it('formulas give their cached result, converted the same way', () => {
    expect(cellText({ value: { formula: '"Main"&" St"', result: 'Main St' } })).toBe('Main St');
    expect(cellText({ value: { formula: 'A2', result: 14155550121 } })).toBe('14155550121');
    expect(cellText({ value: { formula: '', result: 12 } })).toBe('12'); // a shared formula's other cells
    expect(cellText({ value: { sharedFormula: 'C2', result: 'x' } })).toBe('x');
    expect(cellText({ value: { formula: 'A1' } })).toBe(''); // no cached value
    expect(cellText({ value: { formula: 'A1', result: { error: '#REF!' } } })).toBe('#REF!');
    expect(cellText({ value: { formula: 'VLOOKUP(A1,B:C,2)', result: Number.NaN } })).toBe('#ERROR!'); // an error result, as the streaming reader parses it
  });
});
