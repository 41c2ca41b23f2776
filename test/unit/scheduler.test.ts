// The sandbox scheduler's calendar rules (src/sandbox/schedule.ts) and its deterministic call results
// (src/sandbox/outreachRules.ts), with explicit instants: no clock, no waiting.
import { describe, expect, it } from 'vitest';
import { isOpen, nextActivityAt, nextOpening, realDelayMs, resolveSchedule, zonedTime } from '../../src/sandbox/schedule.js';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
const ny = { timezone: 'America/New_York', business_hours: { start: '09:00', end: '17:00' }, days_of_week: WEEKDAYS };
const la = { ...ny, timezone: 'America/Los_Angeles' };
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('business hours and days', () => {
  it('an instant inside the hours on an allowed day stays where it is', () => {
    // Tuesday 2025-06-10 10:15 New York (EDT, UTC-4)
    expect(iso(nextOpening(ny, at('2025-06-10T14:15:00Z')))).toBe('2025-06-10T14:15:00.000Z');
    expect(isOpen(ny, at('2025-06-10T14:15:00Z'))).toBe(true);
  });

  it('before the opening moves to the opening of the same day; at or after the end to the next day', () => {
    expect(iso(nextOpening(ny, at('2025-06-10T11:00:00Z')))).toBe('2025-06-10T13:00:00.000Z'); // 07:00 → 09:00 EDT
    expect(iso(nextOpening(ny, at('2025-06-10T21:00:00Z')))).toBe('2025-06-11T13:00:00.000Z'); // 17:00 is closed
    expect(iso(nextOpening(ny, at('2025-06-10T20:59:59Z')))).toBe('2025-06-10T20:59:59.000Z'); // 16:59:59 still open
  });

  it('skips days not in days_of_week (Friday evening → Monday 09:00)', () => {
    expect(iso(nextOpening(ny, at('2025-06-13T22:00:00Z')))).toBe('2025-06-16T13:00:00.000Z');
    expect(iso(nextOpening(ny, at('2025-06-14T15:00:00Z')))).toBe('2025-06-16T13:00:00.000Z'); // Saturday noon
    const weekendsOnly = { ...ny, days_of_week: ['saturday', 'Sunday'] };
    expect(iso(nextOpening(weekendsOnly, at('2025-06-10T14:00:00Z')))).toBe('2025-06-14T13:00:00.000Z');
  });

  it('uses the time zone of the schedule: the same instant is open in New York and closed in Los Angeles', () => {
    const t = at('2025-06-10T14:00:00Z'); // 10:00 New York, 07:00 Los Angeles
    expect(isOpen(ny, t)).toBe(true);
    expect(iso(nextOpening(la, t))).toBe('2025-06-10T16:00:00.000Z'); // 09:00 PDT
    // The weekday is the one of the zone: Monday 02:00 UTC is still Sunday evening in Los Angeles.
    expect(iso(nextOpening(la, at('2025-06-16T02:00:00Z')))).toBe('2025-06-16T16:00:00.000Z');
    const tokyo = { ...ny, timezone: 'Asia/Tokyo' };
    // Friday 20:00 UTC is Saturday 05:00 in Tokyo → Monday 09:00 JST = Monday 00:00 UTC.
    expect(iso(nextOpening(tokyo, at('2025-06-13T20:00:00Z')))).toBe('2025-06-16T00:00:00.000Z');
  });

  it('is lenient: unknown zone → UTC, no days → every day, unreadable or inverted hours → the whole day', () => {
    expect(resolveSchedule({ timezone: 'Mars/Olympus', business_hours: { start: '09:00', end: '17:00' }, days_of_week: [] })).toMatchObject({ tz: 'UTC', start: 540, end: 1020 });
    expect(resolveSchedule({ timezone: 'Mars/Olympus', business_hours: { start: '09:00', end: '17:00' }, days_of_week: [] }).days.size).toBe(7);
    expect(resolveSchedule({ timezone: 'UTC', business_hours: { start: '18:00', end: '08:00' }, days_of_week: WEEKDAYS })).toMatchObject({ start: 0, end: 1440 });
    expect(isOpen(null, at('2025-06-14T03:00:00Z'))).toBe(true);
    const utc = { timezone: 'UTC', business_hours: { start: '9:00', end: '24:00' }, days_of_week: ['monday'] };
    expect(isOpen(utc, at('2025-06-16T23:59:00Z'))).toBe(true);
    expect(iso(nextOpening(utc, at('2025-06-17T00:00:00Z')))).toBe('2025-06-23T09:00:00.000Z');
  });
});

describe('delays', () => {
  it('adds delay_hours, then moves to the next opening', () => {
    // Tuesday 10:00 EDT + 4 h = 14:00 EDT (open)
    expect(nextActivityAt(ny, new Date('2025-06-10T14:00:00Z'), 4).toISOString()).toBe('2025-06-10T18:00:00.000Z');
    // Tuesday 15:00 EDT + 4 h = 19:00 (closed) → Wednesday 09:00
    expect(nextActivityAt(ny, new Date('2025-06-10T19:00:00Z'), 4).toISOString()).toBe('2025-06-11T13:00:00.000Z');
    // Thursday 10:00 + 48 h = Saturday 10:00 → Monday 09:00
    expect(nextActivityAt(ny, new Date('2025-06-12T14:00:00Z'), 48).toISOString()).toBe('2025-06-16T13:00:00.000Z');
    // 0 h, negative or missing delays are "now"
    expect(nextActivityAt(ny, new Date('2025-06-10T14:00:00Z'), 0).toISOString()).toBe('2025-06-10T14:00:00.000Z');
    expect(nextActivityAt(ny, new Date('2025-06-10T14:00:00Z'), -3).toISOString()).toBe('2025-06-10T14:00:00.000Z');
  });

  it('speed divides the real wait: 3600 turns an hour into a second', () => {
    expect(realDelayMs(3_600_000, 3600)).toBe(1000);
    expect(realDelayMs(24 * 3_600_000, 86_400)).toBe(1000);
    expect(realDelayMs(5000, 1)).toBe(5000);
    expect(realDelayMs(-10, 1)).toBe(0);
    expect(realDelayMs(1000, 0)).toBe(1000); // a nonsensical speed is 1
  });
});

describe('daylight saving time', () => {
  it('a 24 h delay across the autumn change lands an hour earlier on the wall clock, then waits for 09:00', () => {
    // Saturday 2025-11-01 09:00 EDT (13:00Z) + 24 h = Sunday 08:00 EST; every day allowed → 09:00 EST = 14:00Z
    const everyDay = { ...ny, days_of_week: [...WEEKDAYS, 'saturday', 'sunday'] };
    expect(nextActivityAt(everyDay, new Date('2025-11-01T13:00:00Z'), 24).toISOString()).toBe('2025-11-02T14:00:00.000Z');
    // Weekdays only: Monday 09:00 EST
    expect(nextActivityAt(ny, new Date('2025-11-01T13:00:00Z'), 24).toISOString()).toBe('2025-11-03T14:00:00.000Z');
  });

  it('openings keep their wall-clock time across the spring change (Friday 16:00 EST + 1 h → Monday 09:00 EDT)', () => {
    expect(nextActivityAt(ny, new Date('2025-03-07T21:00:00Z'), 1).toISOString()).toBe('2025-03-10T13:00:00.000Z');
    expect(nextActivityAt(la, new Date('2025-03-08T20:00:00Z'), 0).toISOString()).toBe('2025-03-10T16:00:00.000Z');
  });

  it('a wall-clock time in the spring gap moves forward; one that happens twice is the first', () => {
    expect(iso(zonedTime(2025, 3, 9, 2, 30, 'America/New_York'))).toBe('2025-03-09T07:30:00.000Z'); // = 03:30 EDT
    expect(iso(zonedTime(2025, 11, 2, 1, 30, 'America/New_York'))).toBe('2025-11-02T05:30:00.000Z'); // 01:30 EDT, not EST
    const night = { timezone: 'America/New_York', business_hours: { start: '02:30', end: '05:00' }, days_of_week: ['sunday'] };
    // Sunday 2025-03-09 00:00 EST: the 02:30 opening does not exist that night → 03:30 EDT
    expect(iso(nextOpening(night, at('2025-03-09T05:00:00Z')))).toBe('2025-03-09T07:30:00.000Z');
  });
});
