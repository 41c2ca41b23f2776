// One word per input row saying what a person should make of it (the `result` column and --only).
// Pure: decided from the batch's fate of the row and the fields API.md names on a sequence and a
// call, read tolerantly ("false" as a string, enum values API.md does not list).

/** Why a row has no sequence to read: the batch's own word, or what reading it found. */
export const NO_SEQUENCE = ['invalid', 'skipped', 'not-sent', 'unknown', 'not-created', 'not-found'] as const;
export type NoSequence = (typeof NO_SEQUENCE)[number];

/** Every result, in the order a summary lists them: who needs a person first. */
export const RESULTS = [
  'not-reached',
  'declined',
  'callback-requested',
  'opted-out',
  'failed',
  'cancelled',
  'in-progress',
  'completed',
  'other',
  ...NO_SEQUENCE,
] as const;
export type OutcomeResult = (typeof RESULTS)[number];

/** The results a person follows up by phone (the summary's "To call by hand"). */
export const TO_CALL: readonly OutcomeResult[] = ['not-reached', 'declined', 'callback-requested'];

export interface RowFacts {
  /** `created`, or why the row has no sequence. */
  batch: 'created' | NoSequence;
  /** The sequence as last read; absent when it could not be (no id, not found). */
  sequence?: { status?: unknown; outcome?: unknown; was_contact_reached?: unknown; next_activity?: unknown };
  /** The last call of the sequence, when it was read. */
  lastCall?: { outcome?: unknown; failure_reason?: unknown };
}

const WAITING = new Set(['queued', 'in-progress', 'paused']);
const ENDED = new Set(['completed', 'failed', 'cancelled']);
const OPTED_OUT = new Set(['opt-out', 'opted-out']);
const DECLINED = new Set(['declined']);
const CALLBACK = new Set(['requested-callback', 'callback-requested']);

/** A service word compared loosely: `Opted_Out ` reads as `opted-out`. */
function word(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const w = v.trim().toLowerCase().replace(/[\s_]+/g, '-');
  return w === '' ? undefined : w;
}

function isFalse(v: unknown): boolean {
  return v === false || (typeof v === 'string' && v.trim().toLowerCase() === 'false');
}

function hasValue(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
}

/** The result of one row. */
export function classify(row: RowFacts): OutcomeResult {
  if (row.batch !== 'created') return row.batch;
  const seq = row.sequence;
  if (!seq) return 'other';
  const status = word(seq.status);
  if (status !== undefined && WAITING.has(status)) return 'in-progress';
  if (status === undefined || !ENDED.has(status)) return hasValue(seq.next_activity) ? 'in-progress' : 'other';
  // Ended: what the patient said beats how the sequence ended.
  const words = [seq.outcome, row.lastCall?.failure_reason, row.lastCall?.outcome].map(word).filter((w): w is string => w !== undefined);
  if (words.some((w) => OPTED_OUT.has(w))) return 'opted-out';
  if (words.some((w) => DECLINED.has(w))) return 'declined';
  if (words.some((w) => CALLBACK.has(w))) return 'callback-requested';
  if (isFalse(seq.was_contact_reached) || word(seq.outcome) === 'not-reached') return 'not-reached';
  if (status === 'failed' || status === 'cancelled') return status;
  return 'completed';
}

/** Parses --only: known results, comma-separated; undefined for an unknown word (the caller says which). */
export function parseOnly(raw: string): { results: Set<OutcomeResult>; unknown: string[] } {
  const parts = raw.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean);
  const known = new Set<string>(RESULTS);
  return {
    results: new Set(parts.filter((p) => known.has(p)) as OutcomeResult[]),
    unknown: parts.filter((p) => !known.has(p)),
  };
}
