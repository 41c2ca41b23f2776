// Making outside text (the service, a patient file, a webhook) safe for where it goes.
// One place for both rules of CLI.md "Output and files: safety rules":
//  - terminalSafe: nothing from outside may move the cursor, set the title or clear a terminal;
//  - spreadsheetCell: nothing we write to CSV/TSV/XLSX may run as a formula (OWASP CSV injection).
// `-o json`/`ndjson` never pass through here: JSON escapes control characters itself.

const NAMED: Record<string, string> = { '\x1b': '\\e', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\r': '\\r', '\t': '\\t', '\n': '\\n', '\0': '\\0' };

// C0 controls, DEL, C1 controls (0x9b is a one-byte CSI on some terminals), and the Unicode
// bidirectional overrides and isolates, which can make a line read differently than it is
// ("Trojan Source"). Line separators U+2028/U+2029 break lines on some terminals.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

export interface TerminalSafeOptions {
  /** Keep `\n` and `\t` (a transcript, a multi-line message); `\r\n` becomes `\n`. Default: false. */
  multiline?: boolean;
}

/**
 * Outside text as it may be shown on a terminal (or piped into one): every control character,
 * escape sequence introducer and bidi override is shown visibly (`\e`, `\x9b`, `\u{202e}`), so the
 * text can be read but never acts. Values that are not strings are stringified first.
 */
export function terminalSafe(value: unknown, options: TerminalSafeOptions = {}): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'string' ? value : typeof value === 'object' ? safeStringify(value) : String(value);
  if (options.multiline) {
    text = text.replace(/\r\n/g, '\n');
    return text.replace(UNSAFE_KEEP_LINES, visible);
  }
  return text.replace(UNSAFE, visible);
}

// What JSON.stringify leaves raw but a terminal may act on: C1 controls, bidi overrides, line separators.
const JSON_UNESCAPED = /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (from JSON.stringify) made inert for a terminal by writing the characters JSON.stringify
 * leaves raw as \uXXXX escapes: still valid JSON that parses to the same value. Applied by the io
 * to everything written (src/io.ts), so `-o json`/`ndjson` hold the service's values, escaped.
 */
export function jsonTerminalSafe(jsonText: string): string {
  return jsonText.replace(JSON_UNESCAPED, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** True when the text holds nothing terminalSafe would change. */
export function isTerminalSafe(text: string, options: TerminalSafeOptions = {}): boolean {
  return terminalSafe(text, options) === text;
}

/** JSON.stringify that cannot throw (cycles, BigInt, nesting deep enough to overflow the stack). */
export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '[value not shown: too deeply nested or not serialisable]';
  }
}

// A plain number as a spreadsheet reads one: 12, -3.5, +14155550121 (an E.164 phone), 1e5, -.5.
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
// Characters that start a formula in Excel, LibreOffice or Google Sheets, including the full-width
// forms some versions accept. `+`/`-` are dangerous only when what follows is not a plain number.
const FORMULA_START = /^[=@\t\r\n\uff1d\uff20]/;
const SIGN_START = /^[+\-\uff0b\uff0d]/;
// A phone number as people write it: + then digits with spaces, dots, dashes, slashes or brackets.
// Read as a formula it could at most do arithmetic on numbers (no letters: no function, no reference).
const PHONE_NUMBER = /^\+[ \u00a0\d().\-/]*\d[ \u00a0\d().\-/]*$/;

/**
 * A cell as it may be written to a CSV/TSV/XLSX meant for people: a value a spreadsheet would run
 * as a formula gets a leading `'` (OWASP), which spreadsheets show as text. Plain numbers, negative
 * amounts and phone numbers (`+14155550121`, `+1 (415) 555-0121`) are left as they are.
 */
export function spreadsheetCell(value: string): string {
  if (value === '') return value;
  if (FORMULA_START.test(value)) return `'${value}`;
  if (SIGN_START.test(value) && !PLAIN_NUMBER.test(value) && !PHONE_NUMBER.test(value)) return `'${value}`;
  return value;
}

/** True when spreadsheetCell would neutralise the value. */
export function looksLikeFormula(value: string): boolean {
  return spreadsheetCell(value) !== value;
}
