// The problem-report renderer shared by `sequences batch` and `eligibility check --csv`: collapsing,
// plurals, values on a terminal only, 80 columns with CJK and long messages, truncation, commands.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { clip, renderOptionsFor, renderProblems, wrapCommand, wrapLine, type ProblemEntry, type RenderOptions } from '../../../src/output/problems.js';
import { createTestIo } from '../../../src/io.js';

const TERMINAL: RenderOptions = { width: 80, showValues: true, maxLines: 10 };
const PIPED: RenderOptions = { width: 80, showValues: false, maxLines: Infinity };
const EXCEL =
  'the phone number was turned into a number by Excel (scientific notation like 4.41E+11) and its last digits were lost; ' +
  'format the column as Text in the original file and export again';

const err = (line: number | null, label: string, message: string, value?: string): ProblemEntry => ({ line, label, message, severity: 'error', value });
const render = (problems: ProblemEntry[], opts: RenderOptions, extra: { next?: string[]; omitted?: number } = {}) =>
  renderProblems({ sections: [{ heading: `${problems.length} problems:`, problems }], fullList: 'results.csv has every row', next: extra.next ?? [], omitted: extra.omitted }, opts);

function widths(text: string): number[] {
  return text.split('\n').filter(Boolean).map((l) => stringWidth(l));
}

describe('collapsing', () => {
  it('the same message on many lines is said once, with the first lines and a count of the rest', () => {
    const lines = [5, 6, 9, ...Array.from({ length: 31 }, (_, i) => 40 + 2 * i)];
    const text = render(lines.map((l) => err(l, 'Phone', EXCEL, '4.41E+11')), PIPED);
    expect(text.match(/Excel/g)).toHaveLength(1);
    expect(text).toContain('lines 5, 6, 9 and 31 more: Phone: the phone number was turned');
  });

  it('consecutive lines read as a range; different messages stay apart, in the order of their first line', () => {
    const text = render([err(12, 'DOB', 'not a date'), err(3, 'Phone', 'contains letters'), err(4, 'Phone', 'contains letters'), err(5, 'Phone', 'contains letters'), err(7, 'DOB', 'not a date')], PIPED);
    const body = text.split('\n').slice(1, 3);
    expect(body).toEqual(['  lines 3-5: Phone: contains letters', '  lines 7 and 12: DOB: not a date']);
  });

  it('a problem on no line (a chunk the service did not break down) comes last', () => {
    const text = render([{ ...err(null, '', 'the service found 2 rows invalid but named none'), fromService: true }, err(4, 'Phone', 'too short')], PIPED);
    expect(text.split('\n').slice(1, 3)).toEqual(['  line 4: Phone: too short', '  no line: the service found 2 rows invalid but named none']);
  });
});

describe('the offending value', () => {
  const problems = [err(6, 'Phone', 'the phone number contains letters', 'call me')];

  it('is shown on a terminal, quoted beside the column', () => {
    expect(render(problems, TERMINAL)).toContain('line 6: Phone "call me": the phone number contains letters');
  });

  it('is never shown when piped', () => {
    const text = render(problems, PIPED);
    expect(text).toContain('line 6: Phone: the phone number contains letters');
    expect(text).not.toContain('call me');
  });

  it('several lines: a few examples at the end, inert and clipped', () => {
    const text = render([err(8, 'Date', 'looks day-first', '17/05/2030'), err(9, 'Date', 'looks day-first', '\x1b[31m18/05/2030'), err(10, 'Date', 'looks day-first', 'x'.repeat(60)), err(11, 'Date', 'looks day-first', '20/05/2030')], TERMINAL);
    const oneLine = text.replace(/\n\s+/g, ' ');
    expect(oneLine).toContain(`lines 8-11: Date: looks day-first ("17/05/2030" on line 8, "\\e[31m18/05/2030" on line 9, "${'x'.repeat(23)}…" on line 10, …)`);
    expect(text).not.toContain('\x1b');
  });

  it('is decided by where the report goes: stderr a terminal, and never with -o json', () => {
    const { io } = createTestIo({ tty: true });
    expect(renderOptionsFor(io, 'table')).toMatchObject({ showValues: true, maxLines: 10 });
    expect(renderOptionsFor(io, 'table').width).toBeLessThan(1000);
    expect(renderOptionsFor(io, 'json').showValues).toBe(false);
    const piped = createTestIo({ tty: false }).io;
    expect(renderOptionsFor(piped, 'table')).toEqual({ width: Infinity, showValues: false, maxLines: Infinity });
  });
});

describe('80 columns', () => {
  it('long messages wrap at word boundaries with a hanging indent, never to column 0', () => {
    const text = render([err(5, 'Phone', EXCEL), err(6, 'Phone', `${EXCEL} (again)`)], PIPED);
    for (const w of widths(text)) expect(w).toBeLessThanOrEqual(80);
    const body = text.split('\n').slice(1).filter(Boolean);
    expect(body.every((l) => l.startsWith('  '))).toBe(true);
    expect(body.filter((l) => l.startsWith('      ')).length).toBeGreaterThan(1);
    // No word is cut by the wrapping.
    expect(body.map((l) => l.trim()).join(' ')).toContain(EXCEL);
  });

  it('CJK and emoji are measured by display width', () => {
    const label = '電話番号';
    const text = render([err(3, label, `${'患者の電話番号が正しくありません '.repeat(6)}📞`, '〒100-0001 東京都千代田区')], TERMINAL);
    for (const w of widths(text)) expect(w).toBeLessThanOrEqual(80);
    expect(text).toContain('📞');
    expect(stringWidth(clip('東京都千代田区千代田一丁目', 9))).toBeLessThanOrEqual(9);
  });

  it("the service's words are inert, on one line and clipped", () => {
    const text = render([{ ...err(7, '', `Payer 99999\n\x1b]0;pwned\x07 is not supported ${'x'.repeat(300)}`), fromService: true }], PIPED);
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f]/);
    expect(text).toContain('Payer 99999 \\e]0;pwned\\a is not supported');
    expect(text).toContain('…');
    expect(text.length).toBeLessThan(260);
  });

  it('a long command breaks between arguments with \\ continuations (still one command when pasted)', () => {
    const cmd = "  outreach sequences batch '/data/exports/May 2030/patients with mistakes.csv' --definition 1 --validate-only --map 'Cell Phone=phoneNumber'";
    const lines = wrapCommand(cmd, 80);
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(80);
    expect(lines.slice(0, -1).every((l) => l.endsWith(' \\'))).toBe(true);
    expect(lines.map((l) => l.replace(/ \\$/, '').trim()).join(' ')).toBe(cmd.trim());
    expect(lines.join('\n')).toContain("'/data/exports/May 2030/patients with mistakes.csv'");
  });

  it('wrapLine keeps the leading indent and indents continuation lines', () => {
    expect(wrapLine(`  ${'word '.repeat(30).trim()}`, 40, '    ').every((l, i) => (i === 0 ? l.startsWith('  w') : l.startsWith('    w')) && l.length <= 40)).toBe(true);
  });
});

describe('truncation and plurals', () => {
  it('a terminal shows a screenful, then how many more and where every row is', () => {
    const problems = Array.from({ length: 40 }, (_, i) => err(i * 2 + 2, 'Phone', `problem number ${i}`));
    const text = render(problems, TERMINAL);
    const body = text.split('\n').filter(Boolean);
    expect(body).toHaveLength(1 + 10 + 1);
    expect(body.at(-1)).toBe('  … and 30 more problems (results.csv has every row)');
  });

  it('piped: every problem', () => {
    const problems = Array.from({ length: 40 }, (_, i) => err(i * 2 + 2, 'Phone', `problem number ${i}`));
    expect(render(problems, PIPED).split('\n').filter(Boolean)).toHaveLength(41);
  });

  it('one more problem is singular; problems kept out of memory are counted', () => {
    const problems = Array.from({ length: 11 }, (_, i) => err(i * 2 + 2, 'Phone', `problem number ${i}`));
    expect(render(problems, TERMINAL)).toContain('… and 1 more problem (');
    expect(render(problems.slice(0, 2), PIPED, { omitted: 5 })).toContain('… and 5 more problems (');
  });

  it('an empty report says nothing; next steps follow the problems', () => {
    expect(renderProblems({ sections: [{ heading: 'x', problems: [] }], fullList: '', next: [] }, TERMINAL)).toBe('');
    const text = render([err(3, 'Phone', 'too short')], PIPED, { next: ['Fix those lines and check again:', '  outreach sequences batch p.csv --definition 1 --validate-only'] });
    expect(text.endsWith('Fix those lines and check again:\n  outreach sequences batch p.csv --definition 1 --validate-only\n')).toBe(true);
  });
});
