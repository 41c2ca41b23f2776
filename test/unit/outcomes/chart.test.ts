// The terminal summary of `sequences outcomes`: the bar chart (eighths, widths, 80 columns, hostile
// labels, zero rows) and the line of counts.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { barChart, barText } from '../../../src/outcomes/chart.js';
import { countsLine, printSummary, summaryBars, type SummaryRow } from '../../../src/outcomes/summary.js';
import type { Context } from '../../../src/context.js';
import { createTestIo } from '../../../src/io.js';

const widthOf = (lines: string[]) => Math.max(...lines.map((l) => stringWidth(l)));

describe('barText', () => {
  it('draws whole cells and the remaining eighths', () => {
    expect(barText(0, 10)).toBe('');
    expect(barText(1, 10)).toBe('█');
    expect(barText(2.5, 10)).toBe('██▌');
    expect(barText(0.125, 10)).toBe('▏');
    expect(barText(3.875, 10)).toBe('███▉');
    // 7.97 eighths round up to a whole cell, not to a ninth eighth.
    expect(barText(1.996, 10)).toBe('██');
  });

  it('never draws beyond its width', () => {
    expect(barText(12, 10)).toBe('█'.repeat(10));
    expect(barText(-1, 10)).toBe('');
  });
});

describe('barChart', () => {
  const bars = [
    { label: 'completed', count: 18 },
    { label: 'not-reached', count: 6 },
    { label: 'declined', count: 1 },
    { label: 'invalid', count: 0 },
  ];

  it('scales bars to the largest count, shows percentages of the total, and aligns the columns', () => {
    const lines = barChart(bars, { title: ['Result', 'Rows'], total: 40, width: 80 });
    expect(lines[0]).toMatch(/^Result +Rows$/);
    const [full, six, one, zero] = lines.slice(1);
    const barOf = (l: string) => l.match(/[█▏▎▍▌▋▊▉]+/)?.[0] ?? '';
    expect(barOf(full!).length).toBe(40);
    expect(barOf(six!)).toBe(`${'█'.repeat(13)}▍`); // 6/18 of 40 cells = 13.33
    expect(barOf(one!).length).toBeGreaterThan(0);
    expect(barOf(zero!)).toBe('');
    expect(full).toMatch(/^completed +18 +█+ +45%$/);
    expect(six).toMatch(/ 15%$/);
    expect(one).toMatch(/ 3%$/);
    expect(zero).toMatch(/^invalid +0 + 0%$/);
    // Every count and percentage ends in the same column.
    expect(new Set(lines.slice(1).map((l) => stringWidth(l))).size).toBe(1);
    // The counts end under the end of "Rows".
    for (const l of lines.slice(1)) expect(stringWidth(l.match(/^\S+ +[\d,]+/)![0])).toBe(stringWidth(lines[0]!));
  });

  it('fits 80 columns (and narrower terminals) whatever the labels and counts', () => {
    const wide = [{ label: 'x'.repeat(200), count: 1_234_567 }, { label: '予約確認済み予約確認済み予約確認済み', count: 3 }];
    for (const width of [80, 60, 44]) {
      const lines = barChart(wide, { title: ['Outcome (service)', 'Rows'], total: 1_234_570, width });
      expect(widthOf(lines)).toBeLessThanOrEqual(width);
      expect(lines[1]).toContain('1,234,567');
      expect(lines[1]).toContain('…');
    }
  });

  it('makes labels from the service inert before they reach a terminal', () => {
    const lines = barChart([{ label: 'ok\u001b[2J\u001b]0;pwned\u0007', count: 2 }], { title: ['Outcome', 'Rows'], total: 2, width: 80 });
    expect(lines.join('\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(lines[1]).toContain('\\e[2J');
  });

  it('draws nothing but the heading for no bars, and no percentage of nothing', () => {
    expect(barChart([], { title: ['Result', 'Rows'], total: 0, width: 80 })).toEqual(['Result  Rows']);
    const lines = barChart([{ label: 'completed', count: 0 }], { title: ['Result', 'Rows'], total: 0, width: 80 });
    expect(lines[1]).toMatch(/^completed +0$/);
  });

  it('colours only the bar, when asked', () => {
    const lines = barChart([{ label: 'declined', count: 1 }], { title: ['Result', 'Rows'], total: 1, width: 80, style: (label, bar) => `<${label}>${bar}</>` });
    expect(lines[1]).toMatch(/^declined +1 +<declined>█+<\/> +100%$/);
  });
});

describe('countsLine and summaryBars', () => {
  const rows: SummaryRow[] = [
    ...Array.from({ length: 18 }, () => ({ created: true, result: 'completed' as const, outcome: 'appointment-confirmed' })),
    ...Array.from({ length: 6 }, () => ({ created: true, result: 'not-reached' as const, outcome: 'not-reached' })),
    ...Array.from({ length: 6 }, () => ({ created: true, result: 'in-progress' as const, outcome: null })),
    { created: true, result: 'not-found' as const },
    ...Array.from({ length: 3 }, () => ({ created: false, result: 'invalid' as const })),
    { created: false, result: 'skipped' as const },
  ];

  it('counts rows, sequences, rows without one, and sequences ended or running', () => {
    expect(countsLine(rows)).toBe('35 rows: 31 sequences, 3 invalid, 1 skipped · 24 ended, 6 in progress, 1 not found');
    expect(countsLine([])).toBe('0 rows: 0 sequences');
    expect(countsLine([{ created: false, result: 'not-created' }])).toBe('1 row: 0 sequences, 1 not-created');
  });

  it('charts the results present in a fixed order, and the service outcomes most first', () => {
    const { results, outcomes } = summaryBars(rows);
    expect(results.map((b) => `${b.label}=${b.count}`)).toEqual(['not-reached=6', 'in-progress=6', 'completed=18', 'invalid=3', 'skipped=1', 'not-found=1']);
    expect(outcomes).toEqual([{ label: 'appointment-confirmed', count: 18 }, { label: 'not-reached', count: 6 }]);
  });

  it('groups the rarest outcomes when there are many', () => {
    const many: SummaryRow[] = Array.from({ length: 12 }, (_, i) => ({ created: true, result: 'completed' as const, outcome: `o${String(i).padStart(2, '0')}` }));
    const { outcomes } = summaryBars(many, 4);
    expect(outcomes.map((b) => b.label)).toEqual(['o00', 'o01', 'o02', '(9 others)']);
    expect(outcomes[3]!.count).toBe(9);
  });
});

describe('printSummary', () => {
  const rows: SummaryRow[] = [
    ...Array.from({ length: 18 }, () => ({ created: true, result: 'completed' as const, outcome: 'appointment-confirmed' })),
    ...Array.from({ length: 6 }, () => ({ created: true, result: 'not-reached' as const, outcome: 'voicemail\u001b[31m' })),
    { created: true, result: 'callback-requested' as const, outcome: 'callback-requested' },
    { created: false, result: 'invalid' as const },
  ];
  const ctxFor = (tty: boolean, quiet = false) => {
    const t = createTestIo({ tty, quiet });
    const ctx = { io: t.io, globals: { quiet }, info: (text: string) => (quiet ? undefined : t.io.err(`${text}\n`)) } as unknown as Context;
    return { ctx, stderr: t.stderr };
  };
  const command = (extra: string[]) => ['outreach', 'sequences', 'outcomes', 'patients.csv', ...extra].join(' ');

  it('on a terminal: the counts, both charts within 80 columns, and the command that lists whom to call', async () => {
    const { ctx, stderr } = ctxFor(true);
    await printSummary(ctx, rows, { filtered: false, command });
    const lines = stderr().trimEnd().split('\n');
    expect(lines[0]).toBe('26 rows: 25 sequences, 1 invalid · 25 ended, 0 in progress');
    // Every line fits: the command is broken between arguments (` \\`), so it still pastes whole.
    expect(widthOf(lines)).toBeLessThanOrEqual(80);
    expect(lines.filter((l) => /^(Result|Outcome \(service\)) +Rows$/.test(l))).toHaveLength(2);
    expect(lines.some((l) => /^completed +18 +█+ +69%$/.test(l))).toBe(true);
    expect(stderr()).toContain('voicemail\\e[31m'); // the service's words, inert
    expect(stderr()).not.toContain('\u001b');
    expect(lines.slice(-3)).toEqual(['To call by hand:', '  outreach sequences outcomes patients.csv --only \\', '      not-reached,callback-requested --out to-call.csv']);
  });

  it('piped: one plain line of counts; with -q nothing; filtered: no suggestion', async () => {
    const piped = ctxFor(false);
    await printSummary(piped.ctx, rows, { filtered: false, command });
    expect(piped.stderr()).toBe('26 rows: 25 sequences, 1 invalid · 25 ended, 0 in progress.\n');
    const quiet = ctxFor(true, true);
    await printSummary(quiet.ctx, rows, { filtered: false, command });
    expect(quiet.stderr()).toBe('');
    const filtered = ctxFor(true);
    await printSummary(filtered.ctx, rows, { filtered: true, command });
    expect(filtered.stderr()).not.toContain('To call by hand');
  });

  it('on a terminal with no rows: the counts alone', async () => {
    const { ctx, stderr } = ctxFor(true);
    await printSummary(ctx, [], { filtered: false, command });
    expect(stderr()).toBe('0 rows: 0 sequences\n');
  });
});
