// The scheduler's calendar rules, pure (no clock, no database) so they can be tested with any "now".
//
//   nextOpening(schedule, t)            t itself when the schedule is open at t, else the next opening
//   nextActivityAt(schedule, from, h)   nextOpening(from + h hours)
//
// A schedule is open at an instant when, on the wall clock of its IANA time zone, the weekday is in
// days_of_week and start <= time-of-day < end. Delays are real elapsed hours (24 h across a DST change
// is 24 h, not "same time tomorrow"); openings are wall-clock times, so 09:00 stays 09:00 on both sides
// of a DST change. A wall-clock time that does not exist (the spring-forward gap) moves forward by the
// gap (02:30 → 03:30); one that exists twice (fall-back) is the first of the two.
// Lenient by design: an unknown time zone is UTC; an empty or unreadable days_of_week means every day;
// unreadable hours, or end <= start, mean the whole day.
import type { OutreachSchedule } from '../api/types.js';

const HOUR_MS = 3_600_000;
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A valid IANA zone name, else 'UTC'. */
function zoneOrUtc(tz: string | undefined): string {
  if (!tz) return 'UTC';
  if (formatters.has(tz)) return tz; // known valid: building a formatter to check costs ~50 µs
  try {
    formatter(tz);
    return tz;
  } catch {
    return 'UTC';
  }
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The wall clock of `tz` at instant `ms`. */
// formatToParts costs ~10 µs and a batch schedules hundreds of steps at the same instants.
const wallClocks = new Map<string, WallClock>();

function wallClock(ms: number, tz: string): WallClock {
  const key = `${tz}|${Math.floor(ms / 1000)}`;
  const known = wallClocks.get(key);
  if (known) return known;
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const w = { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
  if (wallClocks.size >= 10_000) wallClocks.clear();
  wallClocks.set(key, w);
  return w;
}

/** Offset of `tz` from UTC at instant `ms`, in ms (New York in winter: -5 h). */
function offsetAt(ms: number, tz: string): number {
  const w = wallClock(ms, tz);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The instant at which the wall clock of `tz` shows this civil date and time (see the gap/overlap rule above). */
export function zonedTime(year: number, month: number, day: number, hour: number, minute: number, tz: string): number {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  const a = guess - offsetAt(guess, tz);
  const b = guess - offsetAt(a, tz);
  const matches = (t: number) => {
    const w = wallClock(t, tz);
    return w.year === year && w.month === month && w.day === day && w.hour === hour && w.minute === minute;
  };
  const candidates = [a, b].filter(matches).sort((x, y) => x - y);
  if (candidates.length > 0) return candidates[0]!;
  return Math.max(a, b); // in the gap: moved forward by its length
}

function minutesOf(hhmm: unknown): number | undefined {
  const m = typeof hhmm === 'string' ? /^(\d{1,2}):(\d{2})$/.exec(hhmm.trim()) : null;
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 24 || min > 59 || (h === 24 && min > 0)) return undefined;
  return h * 60 + min;
}

export interface ResolvedSchedule {
  tz: string;
  days: Set<number>; // 0 = Sunday
  start: number; // minutes after midnight
  end: number;
}

/** The schedule with the lenient defaults applied. */
export function resolveSchedule(s: Partial<OutreachSchedule> | null | undefined): ResolvedSchedule {
  const tz = zoneOrUtc(s?.timezone);
  const days = new Set<number>();
  for (const d of Array.isArray(s?.days_of_week) ? s.days_of_week : []) {
    const i = DAY_NAMES.indexOf(String(d).trim().toLowerCase());
    if (i >= 0) days.add(i);
  }
  if (days.size === 0) for (let i = 0; i < 7; i++) days.add(i);
  let start = minutesOf(s?.business_hours?.start);
  let end = minutesOf(s?.business_hours?.end);
  if (start === undefined || end === undefined || end <= start) {
    start = 0;
    end = 24 * 60;
  }
  return { tz, days, start, end };
}

/** Civil date arithmetic (no time zone involved). */
function addDays(y: number, m: number, d: number, n: number): [number, number, number, number] {
  const t = new Date(Date.UTC(y, m - 1, d + n));
  return [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCDay()];
}

/** `at` (epoch ms) when the schedule is open then, else the next moment it opens. */
export function nextOpening(schedule: Partial<OutreachSchedule> | null | undefined, at: number): number {
  const s = resolveSchedule(schedule);
  const w = wallClock(at, s.tz);
  for (let i = 0; i <= 8; i++) {
    const [y, m, d, weekday] = addDays(w.year, w.month, w.day, i);
    if (!s.days.has(weekday)) continue;
    const open = zonedTime(y, m, d, Math.floor(s.start / 60), s.start % 60, s.tz);
    let close: number;
    if (s.end >= 24 * 60) {
      const [ny, nm, nd] = addDays(y, m, d, 1);
      close = zonedTime(ny, nm, nd, 0, 0, s.tz);
    } else {
      close = zonedTime(y, m, d, Math.floor(s.end / 60), s.end % 60, s.tz);
    }
    if (at < open) return open;
    if (at < close) return at;
  }
  return at; // unreachable with at least one allowed day; never blocks
}

export function isOpen(schedule: Partial<OutreachSchedule> | null | undefined, at: number): boolean {
  return nextOpening(schedule, at) === at;
}

/** When an activity `delayHours` after `from` happens: that moment, or the next opening after it. */
export function nextActivityAt(schedule: Partial<OutreachSchedule> | null | undefined, from: Date, delayHours: number): Date {
  const delay = Number.isFinite(delayHours) && delayHours > 0 ? delayHours : 0;
  return new Date(nextOpening(schedule, from.getTime() + delay * HOUR_MS));
}

/** Real milliseconds to wait for `simMs` of outreach time at this speed (3600: an hour is a second). */
export function realDelayMs(simMs: number, speed: number): number {
  const s = Number.isFinite(speed) && speed > 0 ? speed : 1;
  return Math.max(0, simMs) / s;
}
