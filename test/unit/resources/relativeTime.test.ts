import { describe, expect, it } from 'vitest';
import { parseWhen, TimeParseError } from '../../../src/util/relativeTime.js';

// Tests run with whatever TZ the machine has; local-day expectations are built with local Dates.
const now = new Date(2024, 4, 15, 13, 45, 30, 0); // 15 May 2024 13:45:30 local

describe('parseWhen', () => {
  it('relative amounts go back from now', () => {
    expect(parseWhen('30m', now).getTime()).toBe(now.getTime() - 30 * 60_000);
    expect(parseWhen('12h', now).getTime()).toBe(now.getTime() - 12 * 3_600_000);
    expect(parseWhen('2d', now).getTime()).toBe(now.getTime() - 2 * 86_400_000);
    expect(parseWhen('1w', now).getTime()).toBe(now.getTime() - 7 * 86_400_000);
    expect(parseWhen('90s', now).getTime()).toBe(now.getTime() - 90_000);
    expect(parseWhen('2d ago', now).getTime()).toBe(now.getTime() - 2 * 86_400_000);
    expect(parseWhen('1.5h', now).getTime()).toBe(now.getTime() - 5_400_000);
  });

  it('today, yesterday and days: start for --since, end for --until', () => {
    expect(parseWhen('today', now, 'start')).toEqual(new Date(2024, 4, 15, 0, 0, 0, 0));
    expect(parseWhen('today', now, 'end')).toEqual(new Date(2024, 4, 15, 23, 59, 59, 999));
    expect(parseWhen('yesterday', now, 'start')).toEqual(new Date(2024, 4, 14, 0, 0, 0, 0));
    expect(parseWhen('Yesterday', now, 'end')).toEqual(new Date(2024, 4, 14, 23, 59, 59, 999));
    expect(parseWhen('2024-03-01', now, 'start')).toEqual(new Date(2024, 2, 1));
    expect(parseWhen('2024-03-01', now, 'end')).toEqual(new Date(2024, 2, 1, 23, 59, 59, 999));
    expect(parseWhen('now', now)).toEqual(now);
  });

  it('yesterday across a month boundary', () => {
    const first = new Date(2024, 2, 1, 8, 0);
    expect(parseWhen('yesterday', first)).toEqual(new Date(2024, 1, 29));
  });

  it('ISO date-times with and without offsets', () => {
    expect(parseWhen('2024-05-01T08:00:00Z', now).toISOString()).toBe('2024-05-01T08:00:00.000Z');
    expect(parseWhen('2024-05-01T08:00:00.250Z', now).toISOString()).toBe('2024-05-01T08:00:00.250Z');
    expect(parseWhen('2024-05-01T08:00+02:00', now).toISOString()).toBe('2024-05-01T06:00:00.000Z');
    expect(parseWhen('2024-05-01T08:00:00-0500', now).toISOString()).toBe('2024-05-01T13:00:00.000Z');
    expect(parseWhen('2024-05-01 08:00', now)).toEqual(new Date(2024, 4, 1, 8, 0));
  });

  it('rejects what it cannot read, saying why', () => {
    for (const bad of ['', 'soon', '2x', '-2d', '2024-02-30', '2024-13-01', '2024-05-01T25:00Z', '05/01/2024', '1714550400']) {
      expect(() => parseWhen(bad, now), bad).toThrow(TimeParseError);
    }
    expect(() => parseWhen('2024-02-30', now)).toThrow(/no such day/);
    expect(() => parseWhen('soon', now)).toThrow(/ISO 8601/);
  });
});
