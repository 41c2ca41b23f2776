// The table layer: priorities, never-cut columns, hidden columns, display width, one line per record.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { layoutTable, renderTable, truncate, type TableColumn } from '../../../src/output/table.js';
import { compactDateTime, longDateTime } from '../../../src/output/format.js';
import { createTestIo } from '../../../src/io.js';
import { writeList, writeRecord, type Column } from '../../../src/output/writer.js';
import type { Context } from '../../../src/context.js';

/** A calls list as the service might answer it: phone numbers, outcomes, a free-text summary. */
function callsTable(rows = 5): TableColumn[] {
  const r = Array.from({ length: rows }, (_v, i) => i);
  return [
    { header: 'ID', cells: r.map((i) => String(1000 + i)) },
    { header: 'STARTED', cells: r.map(() => 'Nov 23 14:05') },
    { header: 'TO', cells: r.map((i) => `+1415555${String(i).padStart(4, '0')}`) },
    { header: 'OUTCOME', cells: r.map((i) => (i % 2 ? 'appointment-rescheduled' : 'voicemail')) },
    { header: 'SUMMARY', cells: r.map(() => 'Patient asked to move the appointment; a new time was agreed.'), shrink: true },
    { header: 'DURATION', cells: r.map(() => '1m 05s'), priority: 'useful' },
    { header: 'STATUS', cells: r.map(() => 'ended'), priority: 'extra' },
    { header: 'FROM', cells: r.map(() => '+14155550100'), priority: 'extra' },
  ];
}

const widthOf = (lines: string[]) => Math.max(...lines.map((l) => stringWidth(l)));

describe('layoutTable', () => {
  it('leaves a table that fits alone: every column, natural widths', () => {
    const l = layoutTable([{ header: 'ID', cells: ['1', '22'] }, { header: 'NAME', cells: ['Ann', 'Bo'], shrink: true }], 80);
    expect(l).toEqual({ shown: [0, 1], widths: [2, 4], hidden: [] });
  });

  it.each([80, 120, 200])('at %i columns: fits, one line per record, ids/phones/outcomes whole', (width) => {
    const cols = callsTable();
    const { lines, layout } = renderTable(cols, width);
    expect(lines).toHaveLength(1 + 5);
    expect(widthOf(lines)).toBeLessThanOrEqual(width);
    for (const essential of [0, 1, 2, 3]) expect(layout.shown).toContain(essential);
    for (const cell of [...cols[0]!.cells, ...cols[2]!.cells, ...cols[3]!.cells]) {
      expect(lines.some((l) => l.includes(cell))).toBe(true);
    }
    expect(lines.join('\n')).not.toMatch(/\+1415555\d{0,3}…|appointment-re[a-z]*…/);
  });

  it('hides extra columns before useful ones, rightmost first, and says which', () => {
    const at80 = layoutTable(callsTable(), 80);
    // DURATION and FROM go; STATUS, hidden first, fits again once DURATION is gone and is given back.
    expect(at80.hidden).toEqual([5, 7]);
    expect(layoutTable(callsTable(), 85).hidden).toEqual([6, 7]); // STATUS, FROM (extra) go; DURATION (useful) stays
    expect(layoutTable(callsTable(), 100).hidden).toEqual([7]); // the rightmost extra goes first
    expect(layoutTable(callsTable(), 120).hidden).toEqual([]);
    const at200 = layoutTable(callsTable(), 200);
    expect(at200.hidden).toEqual([]);
  });

  it('free text shrinks first and is cut with … on its line', () => {
    const { lines, layout } = renderTable(callsTable(), 100);
    const summary = layout.shown.indexOf(4);
    expect(layout.widths[summary]).toBeLessThan('Patient asked to move the appointment; a new time was agreed.'.length);
    expect(lines[1]).toMatch(/Patient asked.*…/);
  });

  it('free text is not cut below a comfortable width while a low-priority column could go instead', () => {
    const cols: TableColumn[] = [
      { header: 'ID', cells: ['1'] },
      { header: 'NAME', cells: ['Appointment reminder for the annual visit'], shrink: true },
      { header: 'NOTE', cells: ['x'.repeat(30)], priority: 'extra' },
    ];
    const l = layoutTable(cols, 40);
    expect(l.hidden).toEqual([2]);
    expect(l.widths).toEqual([2, 36]);
  });

  it('a service sending absurdly long ids still gets one line per record within the width', () => {
    const cols: TableColumn[] = [
      { header: 'ID', cells: ['x'.repeat(300)] },
      { header: 'STATUS', cells: ['completed-but-with-a-status-nobody-documented'.repeat(3)] },
    ];
    const { lines } = renderTable(cols, 80);
    expect(lines).toHaveLength(2);
    expect(widthOf(lines)).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain('…');
  });

  it('measures CJK and emoji by display width, never splitting a character', () => {
    const cols: TableColumn[] = [
      { header: 'ID', cells: ['1', '2'] },
      { header: 'NAME', cells: ['山田太郎様の予約確認のお電話です', '👩‍⚕️ Dr. Nurse 🏥 follow-up call'], shrink: true },
      { header: 'PHONE', cells: ['+14155550101', '+14155550102'] },
    ];
    const { lines } = renderTable(cols, 34);
    expect(widthOf(lines)).toBeLessThanOrEqual(34);
    // Columns line up by display width: the phone numbers start at the same display column.
    const starts = lines.slice(1).map((l) => stringWidth(l.slice(0, l.indexOf('+1415'))));
    expect(new Set(starts).size).toBe(1);
    expect(lines[1]).toContain('…');
    expect(lines[1]).not.toContain('\uFFFD');
  });
});

describe('truncate', () => {
  it('cuts to the display width with …, keeping whole graphemes', () => {
    expect(truncate('appointment', 20)).toBe('appointment');
    expect(truncate('appointment', 6)).toBe('appoi…');
    expect(stringWidth(truncate('山田太郎', 5))).toBeLessThanOrEqual(5);
    expect(truncate('山田太郎', 5)).toBe('山田…');
    expect(truncate('👩‍⚕️👩‍⚕️👩‍⚕️', 5)).toBe('👩‍⚕️👩‍⚕️…');
  });
});

describe('dates on a terminal', () => {
  const now = new Date(2026, 10, 23, 12, 0);
  it('this year: month, day and time on one line; another year: the day', () => {
    expect(compactDateTime(new Date(2026, 10, 23, 14, 5), now)).toBe('Nov 23 14:05');
    expect(compactDateTime(new Date(2026, 0, 2, 9, 0), now)).toBe('Jan 02 09:00');
    expect(compactDateTime(new Date(2025, 10, 23, 14, 5), now)).toBe('2025-11-23');
    expect(compactDateTime(new Date(2027, 0, 5, 8, 0), now)).toBe('2027-01-05');
  });
  it('a get view: date, time and zone', () => {
    expect(longDateTime(new Date(2026, 10, 23, 14, 5))).toMatch(/^2026-11-23 14:05( \S+)?$/);
  });
});

describe('the writer on a terminal and piped', () => {
  function ctxFor(opts: { tty: boolean; columns?: number; format?: string }) {
    const t = createTestIo({ tty: opts.tty });
    Object.assign(t.io, { columns: opts.columns ?? 80 });
    const ctx = {
      io: t.io,
      globals: { format: opts.format ?? 'table', quiet: false, formatExplicit: false },
      now: () => new Date('2026-11-23T12:00:00Z'),
    } as unknown as Context;
    return { ctx, ...t };
  }
  interface Rec {
    id: number;
    started_at: string;
    duration_ms: number;
    summary: string;
  }
  const recs: Rec[] = [
    { id: 1, started_at: '2026-11-23T14:05:00Z', duration_ms: 65000, summary: 'two\nlines of\ttext' },
    { id: 2, started_at: '2025-01-02T09:00:00Z', duration_ms: 5000, summary: 'short' },
  ];
  const columns: Column<Rec>[] = [
    { header: 'ID', key: 'id', value: (r) => r.id },
    { header: 'STARTED', key: 'started_at', value: (r) => r.started_at, kind: 'datetime' },
    { header: 'DURATION', key: 'duration_ms', value: (r) => r.duration_ms, kind: 'duration' },
    { header: 'SUMMARY', key: 'summary', value: (r) => r.summary, shrink: true },
    { header: 'EMPTY', key: 'empty', value: () => null },
  ];

  it('a terminal: one line per record, compact dates, human durations, no always-empty column', async () => {
    const { ctx, stdout } = ctxFor({ tty: true });
    await writeList(ctx, recs, columns);
    const lines = stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).not.toContain('EMPTY');
    expect(lines[1]).toMatch(/^1 +Nov 23 \d\d:05 +1m 05s +two lines of text$/);
    expect(lines[2]).toMatch(/^2 +2025-01-02 +5s +short$/);
  });

  it('piped: tab-separated, no header, ISO dates and milliseconds; csv headers are the JSON names', async () => {
    const piped = ctxFor({ tty: false });
    await writeList(piped.ctx, recs, columns);
    expect(piped.stdout()).toBe('1\t2026-11-23T14:05:00.000Z\t65000\ttwo lines of text\t\n2\t2025-01-02T09:00:00.000Z\t5000\tshort\t\n');
    const csv = ctxFor({ tty: false, format: 'csv' });
    await writeList(csv.ctx, recs, columns);
    expect(csv.stdout().split('\n')[0]).toBe('id,started_at,duration_ms,summary,empty');
    expect(csv.stdout()).toContain('\n1,2026-11-23T14:05:00.000Z,65000,"two\nlines of\ttext",\n2,');
  });

  it('a get view: long text wrapped at word boundaries under the value column; piped: flat key<TAB>value', async () => {
    const long = 'Coinsurance after deductible applies to every specialist visit in network, with a separate amount for imaging and labs.';
    const fields = [
      { label: 'id', key: 'id', value: () => 7 },
      { label: 'description', key: 'coverage.description', value: () => long },
    ];
    const tty = ctxFor({ tty: true, columns: 60 });
    await writeRecord(tty.ctx, {}, fields);
    const lines = tty.stdout().trimEnd().split('\n');
    expect(widthOf(lines)).toBeLessThanOrEqual(60);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(4); // wrapped by words, never one word per line
    for (const l of lines.slice(2)) expect(l).toMatch(/^ {13}\S/);
    expect(lines.slice(1).map((l) => l.slice(13)).join(' ')).toBe(long);
    const piped = ctxFor({ tty: false });
    await writeRecord(piped.ctx, {}, fields);
    expect(piped.stdout()).toBe(`id\t7\ncoverage.description\t${long}\n`);
  });
});
