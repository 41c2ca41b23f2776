import { describe, expect, it } from 'vitest';
import { isTerminalSafe, looksLikeFormula, safeStringify, spreadsheetCell, terminalSafe } from '../../src/output/safe.js';

describe('terminalSafe', () => {
  it('shows escape sequences visibly so they cannot act', () => {
    expect(terminalSafe('\x1b]0;pwned\x07Ann')).toBe('\\e]0;pwned\\aAnn');
    expect(terminalSafe('x\x1b[2Jy')).toBe('x\\e[2Jy');
    expect(terminalSafe('\x9b2J')).toBe('\\x9b2J');
    expect(terminalSafe('a\x00b\x7fc')).toBe('a\\0b\\x7fc');
  });
  it('shows bidi overrides and line separators visibly', () => {
    expect(terminalSafe('abc\u202edef')).toBe('abc\\u{202e}def');
    expect(terminalSafe('a\u2028b')).toBe('a\\u{2028}b');
  });
  it('keeps newlines and tabs only for multi-line fields', () => {
    expect(terminalSafe('one\ntwo\tthree')).toBe('one\\ntwo\\tthree');
    expect(terminalSafe('one\r\ntwo\tthree\x1b[K', { multiline: true })).toBe('one\ntwo\tthree\\e[K');
    expect(terminalSafe('a\rb', { multiline: true })).toBe('a\\rb');
  });
  it('leaves ordinary text, accents and emoji alone', () => {
    for (const text of ['Zoë O’Brien-Núñez', '日本語', '👍 ok', '+14155550121', '']) {
      expect(terminalSafe(text)).toBe(text);
      expect(isTerminalSafe(text)).toBe(true);
    }
    expect(isTerminalSafe('\x1b[31m')).toBe(false);
  });
  it('stringifies objects and survives what JSON.stringify cannot', () => {
    expect(terminalSafe({ a: '\x1b' })).toBe('{"a":"\\u001b"}');
    let deep: unknown = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(safeStringify(deep)).toMatch(/not shown/);
    expect(terminalSafe(null)).toBe('');
  });
});

describe('spreadsheetCell (OWASP CSV injection)', () => {
  it('neutralises cells a spreadsheet would run', () => {
    for (const cell of ['=HYPERLINK("http://x","click")', '@SUM(1)', '-2+3', '+A1', '\t=1', '\r=1', '＝1+1', '-', '+', '+1 (415) SUM(1)', '+1\n=2', '-415 555 0121', '+()']) {
      expect(spreadsheetCell(cell)).toBe(`'${cell}`);
      expect(looksLikeFormula(cell)).toBe(true);
    }
  });
  it('keeps phone numbers, negative amounts and plain text readable', () => {
    for (const cell of ['+14155550121', '+1 (415) 555-0121', '+44 20 7946 0958', '+1.415.555.0121', '-12.50', '-0.5', '42', '1e5', 'Ann', 'a=b', 'x@y.org', '']) {
      expect(spreadsheetCell(cell)).toBe(cell);
    }
  });
});
