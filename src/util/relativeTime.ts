// Dates for --since / --until: ISO 8601 (a date, or a date-time with or without an offset) or a
// relative form — `30m`, `12h`, `2d`, `1w` ago, `now`, `today`, `yesterday`. Pure: the caller
// gives "now". Days without a time are local days (TZ); an --until day means the end of that day,
// so `--since yesterday --until yesterday` covers all of yesterday.

export class TimeParseError extends Error {}

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// Date-time: T or a space, minutes required, seconds and fraction optional, then Z or ±HH:MM / ±HHMM or nothing (local).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function startOfLocalDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate(), 0, 0, 0, 0);
}

function endOfLocalDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate(), 23, 59, 59, 999);
}

function validDay(y: number, m: number, d: number): Date | undefined {
  const date = new Date(y, m - 1, d);
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d ? date : undefined;
}

/**
 * Parses a --since/--until value into an instant. `edge` says which end of a whole day a day-only
 * value stands for: 'start' for --since, 'end' for --until.
 */
export function parseWhen(input: string, now: Date, edge: 'start' | 'end' = 'start'): Date {
  const raw = input.trim();
  const s = raw.toLowerCase();
  if (s === '') throw new TimeParseError('it is empty');
  if (s === 'now') return new Date(now.getTime());
  if (s === 'today') return edge === 'start' ? startOfLocalDay(now) : endOfLocalDay(now);
  if (s === 'yesterday') {
    const y = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
    return edge === 'start' ? startOfLocalDay(y) : endOfLocalDay(y);
  }
  const rel = /^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)(?:\s*ago)?$/.exec(s);
  if (rel) {
    const amount = Number(rel[1]);
    const ms = amount * UNIT_MS[rel[2]!]!;
    if (!Number.isFinite(ms) || ms > 100 * 365 * 86_400_000) throw new TimeParseError('it is too far back');
    return new Date(now.getTime() - ms);
  }
  const day = DATE_ONLY.exec(raw);
  if (day) {
    const d = validDay(Number(day[1]), Number(day[2]), Number(day[3]));
    if (!d) throw new TimeParseError('there is no such day');
    return edge === 'start' ? startOfLocalDay(d) : endOfLocalDay(d);
  }
  const dt = DATE_TIME.exec(raw);
  if (dt) {
    const [, y, mo, d, h, mi, sec] = dt;
    if (!validDay(Number(y), Number(mo), Number(d))) throw new TimeParseError('there is no such day');
    if (Number(h) > 23 || Number(mi) > 59 || Number(sec ?? 0) > 59) throw new TimeParseError('the time of day is out of range');
    const iso = raw.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
    const parsed = new Date(iso);
    if (Number.isNaN(parsed.getTime())) throw new TimeParseError('it is not a valid date-time');
    return parsed;
  }
  throw new TimeParseError('use an ISO 8601 date or date-time (2024-05-01, 2024-05-01T08:00:00Z) or a relative form (30m, 12h, 2d, 1w, today, yesterday)');
}
