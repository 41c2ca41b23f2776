// Tolerant reading, one behaviour for every command. The real service may answer a single record as
// an object, an array holding it or {success, data}; a list bare or wrapped; numbers as strings;
// enum values API.md does not list (kept as sent). What cannot be read — an empty body, null, a
// list where a record belongs — is a MalformedResponseError (exit 1) saying what came instead.
// Nothing here modifies what the service sent: commands print that (`raw`) for -o json.
import { MalformedResponseError } from '../errors.js';
import { terminalSafe } from '../output/safe.js';

export type Rec = Record<string, unknown>;

/** A list as read, with the body as the service sent it (printed as is by -o json). */
export interface Listed<T> {
  items: T[];
  raw: unknown;
}

export function isRecord(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An object with at least one field: an empty {} is no record. */
function hasFields(v: unknown): v is Rec {
  return isRecord(v) && Object.keys(v).length > 0;
}

function describe(v: unknown): string {
  if (v === undefined) return 'empty body';
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : 'a list without records';
  if (typeof v === 'object') return Object.keys(v).length === 0 ? 'an empty object' : 'an object';
  return `a ${typeof v}`;
}

function malformed(where: string, what: 'record' | 'list', detail: string): MalformedResponseError {
  // A write answered with nothing readable may still have been carried out.
  const acted = /^(POST|PUT|PATCH|DELETE) /.test(where) ? ' It may have acted on the request: check before sending it again.' : '';
  return new MalformedResponseError(`The service answered ${where} without a ${what} (${detail}).${acted}`);
}

const ENVELOPE_ONLY = new Set(['success', 'message', 'error', 'statusCode']);

/**
 * An envelope is an object without an id of its own holding `data`, or only {success, message...}.
 * A record with a field named data (it has an id), or with success beside its own fields, is not one.
 */
function isEnvelope(o: Rec): boolean {
  if ('id' in o) return false;
  return 'data' in o || ('success' in o && Object.keys(o).every((k) => ENVELOPE_ONLY.has(k)));
}

function refused(o: Rec, where: string, what: 'record' | 'list'): MalformedResponseError | undefined {
  if (o.success !== false) return undefined;
  const msg = typeof o.message === 'string' ? o.message : typeof o.error === 'string' ? o.error : undefined;
  // The service's words go into an error message: inert.
  return malformed(where, what, `success: false${msg ? `: ${terminalSafe(msg)}` : ''}`);
}

/**
 * One record from a bare object, an array (its first object) or a {success, data} / {data}
 * envelope whose data is an object or an array. Used for reads and for write answers alike.
 * `where` is "METHOD /path", for the message.
 */
export function readOne(data: unknown, where: string): Rec {
  if (Array.isArray(data)) {
    const first = data.find(hasFields);
    if (!first) throw malformed(where, 'record', describe(data));
    return first;
  }
  if (!hasFields(data)) throw malformed(where, 'record', describe(data));
  if (!isEnvelope(data)) return data;
  const bad = refused(data, where, 'record');
  if (bad) throw bad;
  const inner = data.data;
  const rec = Array.isArray(inner) ? inner.find(hasFields) : hasFields(inner) ? inner : undefined;
  if (!rec) throw malformed(where, 'record', 'an envelope with nothing inside');
  return rec;
}

/**
 * A list from a bare array, {data: [...]}, {success, data: [...]}, {items: [...]} or
 * {data: {items: [...]}}. An empty array is a valid empty list; items that are not objects are
 * dropped (nothing can be shown of them).
 */
export function readList(data: unknown, where: string): Rec[] {
  let arr: unknown[] | undefined;
  if (Array.isArray(data)) arr = data;
  else if (isRecord(data)) {
    const bad = refused(data, where, 'list');
    if (bad) throw bad;
    const inner = data.data;
    if (Array.isArray(inner)) arr = inner;
    else if (isRecord(inner) && Array.isArray(inner.items)) arr = inner.items;
    else if (Array.isArray(data.items)) arr = data.items;
    if (!arr) throw malformed(where, 'list', 'an object without a list in it');
  }
  if (!arr) throw malformed(where, 'list', describe(data));
  return arr.filter(isRecord);
}

/** An integer from a number or a digit string ("1", " 42 "); undefined for anything else. */
export function readInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** A boolean from true/false or "true"/"false" (any case); undefined for anything else. */
export function readBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return undefined;
}

/**
 * The integer and boolean fields API.md names for a resource, as paths: `a.b` for a field of an
 * object field, `a[].b` for a field of each item of an array field.
 */
export interface FieldSpec {
  ints?: readonly string[];
  bools?: readonly string[];
}

const OUTREACH_ITEM = ['step', 'call_record_id', 'messaging_encounter_id'];

export const API_FIELDS = {
  sequence: {
    ints: [
      'id', 'current_step', 'organization_id', 'patient_id', 'sequence_definition_id',
      'steps[].voice_assistant_id',
      ...OUTREACH_ITEM.map((f) => `outreach[].${f}`),
    ],
    bools: ['was_contact_reached', 'is_test_mode'],
  },
  metricsEntry: { ints: ['id', ...OUTREACH_ITEM.map((f) => `outreach[].${f}`)] },
  definition: {
    ints: [
      'id', 'voice_assistant_id', 'organization_id',
      'steps_definition[].order', 'steps_definition[].delay_hours', 'steps_definition[].voice_assistant_id', 'steps_definition[].messaging_assistant_id',
    ],
    bools: ['is_archived', 'allow_repeat_contact', 'inputs_definition[].required', 'steps_definition[].inputs[].required'],
  },
  eligibility: { ints: ['id'], bools: ['coverage.is_active_today'] },
  call: { ints: ['id', 'assistant_id', 'duration_ms', 'analysis.repetition_count', 'analysis.interruption_count'] },
  assistant: { ints: ['id', 'organization_id', 'max_duration_seconds'], bools: ['is_webhook_secret_set'] },
  phoneNumber: { ints: ['id', 'organization_id', 'assistant_id'] },
  tool: { bools: ['async', 'function.strict'] },
} satisfies Record<string, FieldSpec>;

function convertAt(value: unknown, path: string[], conv: (v: unknown) => unknown): unknown {
  if (path.length === 0) return conv(value);
  const [head, ...rest] = path as [string, ...string[]];
  const each = head.endsWith('[]');
  const key = each ? head.slice(0, -2) : head;
  if (!isRecord(value) || !(key in value)) return value;
  const inner = value[key];
  let next: unknown;
  if (each) {
    if (!Array.isArray(inner)) return value;
    next = inner.map((item) => convertAt(item, rest, conv));
  } else next = convertAt(inner, rest, conv);
  return next === inner ? value : { ...value, [key]: next };
}

// Only a value that converts is replaced; anything else (null, "P-1", an unknown enum) stays as sent.
const toInt = (v: unknown) => readInt(v) ?? v;
const toBool = (v: unknown) => readBool(v) ?? v;

/**
 * A copy of `record` with the digit strings of the named integer fields as numbers and the
 * "true"/"false" strings of the named boolean fields as booleans. Extra fields are kept; missing
 * or null fields stay as they are. Arrays are copied, never changed in place.
 */
export function normalise<T = Rec>(record: Rec, spec: FieldSpec): T {
  let out: unknown = record;
  for (const p of spec.ints ?? []) out = convertAt(out, p.split('.'), toInt);
  for (const p of spec.bools ?? []) out = convertAt(out, p.split('.'), toBool);
  return out as T;
}

/** A record read at /thing/{id} whose answer carries no id is still that record: it gets the id asked for. */
export function withId<T extends Rec>(rec: T, askedId: number | string): T {
  return rec.id === undefined || rec.id === null ? { ...rec, id: askedId } : rec;
}
