// What a webhook delivery is, by its shape, and a one-line summary of it without patient data
// (ids of checks, calls and sequences, statuses, outcomes and durations only: no patient ids, payers,
// names, dates of birth, member ids or phone numbers). Every value in a summary is terminal-safe.
// Pure.
import { timingSafeEqual } from 'node:crypto';
import { terminalSafe } from '../output/safe.js';
import { clipToWidth } from './fit.js';

export type DeliveryKind = 'eligibility' | 'end-of-call' | 'end-of-sequence' | 'unrecognised';

const SEQUENCE_STATUSES = new Set(['in-progress', 'completed', 'failed', 'cancelled', 'queued', 'paused']);
const ELIGIBILITY_STATUSES = new Set(['in-progress', 'completed', 'queued']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The call record of an end-of-call report: {type, call} (sandbox) or {message: {type, call}} (Vapi-style). */
function callOf(body: Obj): Obj | undefined {
  const msg = isObj(body.message) ? body.message : undefined;
  if (body.type === 'end-of-call-report') return isObj(body.call) ? body.call : body;
  if (msg?.type === 'end-of-call-report') return isObj(msg.call) ? msg.call : msg;
  return undefined;
}

/** The eligibility check of a delivery (the service may send the record alone or in a one-item array). */
function checkOf(body: unknown): Obj | undefined {
  const rec = Array.isArray(body) && body.length === 1 ? body[0] : body;
  if (!isObj(rec) || rec.id === undefined) return undefined;
  if (isObj(rec.coverage)) return rec;
  if ((rec.outcome === 'success' || rec.outcome === 'not-supported') && !('steps' in rec) && !('outreach' in rec)) return rec;
  if (typeof rec.status === 'string' && ELIGIBILITY_STATUSES.has(rec.status) && 'customer_patient_id' in rec && !('steps' in rec)) return rec;
  return undefined;
}

export function classify(body: unknown): DeliveryKind {
  if (isObj(body) && callOf(body)) return 'end-of-call';
  if (
    isObj(body) &&
    body.id !== undefined &&
    typeof body.status === 'string' &&
    SEQUENCE_STATUSES.has(body.status) &&
    ('outcome_description' in body || Array.isArray(body.outreach))
  ) {
    return 'end-of-sequence';
  }
  if (checkOf(body)) return 'eligibility';
  return 'unrecognised';
}

/** Widest value shown in a summary, in terminal columns: an id or a status never needs more. */
const MAX_SHOWN = 40;

/** Text from a delivery as it may be shown on a line: escapes made visible, clipped to MAX_SHOWN columns. */
export function shown(v: unknown): string {
  return clipToWidth(terminalSafe(v), MAX_SHOWN);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' || typeof v === 'number' ? shown(v) : undefined);

/** 92000 → "1m32s". */
export function shortDuration(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return undefined;
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * One piece of a delivery's summary and what may happen to it when the line is too wide:
 * `key` (ids, statuses, outcomes) is never cut, `free` (free text) is clipped first, `extra`
 * (a duration, a step number) is left out next.
 */
export interface SummaryPart {
  text: string;
  role: 'key' | 'free' | 'extra';
  /** Of extras, the lower is left out first. */
  keep?: number;
}

/** The pieces of a summary: ids, status, outcome, duration. Never patient data; every value terminal-safe. */
export function summaryParts(kind: DeliveryKind, body: unknown): SummaryPart[] {
  const parts: SummaryPart[] = [];
  const add = (role: SummaryPart['role'], label: string, v: unknown, keep?: number) => {
    const s = str(v);
    if (s !== undefined && s !== '') parts.push({ text: label ? `${label} ${s}` : s, role, ...(keep === undefined ? {} : { keep }) });
  };
  switch (kind) {
    case 'end-of-call': {
      const b = body as Obj;
      const call = callOf(b)!;
      add('key', 'call', call.id);
      add('key', '', call.call_status);
      add('key', '', call.outcome);
      if (call.failure_reason && call.failure_reason !== call.outcome) add('free', 'failure:', call.failure_reason);
      // Narrow, the step goes first, then the duration, then the sequence (its own report names it).
      add('extra', '', shortDuration(call.duration_ms), 1);
      add('extra', 'sequence', b.sequence_id, 2);
      add('extra', 'step', b.step, 0);
      return parts;
    }
    case 'end-of-sequence': {
      const b = body as Obj;
      add('key', 'sequence', b.id);
      add('key', '', b.status);
      const outreach = Array.isArray(b.outreach) ? b.outreach.filter(isObj) : [];
      if (outreach.length > 0) {
        const items = outreach.map((o) => {
          const outcome = isObj(o.analysis) ? str(o.analysis.outcome) : undefined;
          return `${str(o.type) ?? '?'}${outcome ? `:${outcome}` : ''}`;
        });
        parts.push({ text: `outreach ${runs(items).join(', ')}`, role: 'free' });
      } else {
        parts.push({ text: 'no outreach', role: 'extra' });
      }
      return parts;
    }
    case 'eligibility': {
      const c = checkOf(body)!;
      add('key', 'check', c.id);
      add('key', '', c.status);
      add('key', '', c.outcome);
      if (isObj(c.coverage) && typeof c.coverage.is_active_today === 'boolean') parts.push({ text: c.coverage.is_active_today ? 'active' : 'inactive', role: 'key' });
      return parts;
    }
    default:
      return [];
  }
}

/** Consecutive equal items as one: ["call:x", "call:x", "sms"] → ["call:x ×2", "sms"]. */
function runs(items: string[]): string[] {
  const out: { item: string; n: number }[] = [];
  for (const item of items) {
    const last = out.at(-1);
    if (last?.item === item) last.n++;
    else out.push({ item, n: 1 });
  }
  return out.map(({ item, n }) => (n > 1 ? `${item} ×${n}` : item));
}

/** The width kind names are padded to, so that what follows lines up ("end-of-sequence" is the longest). */
export const KIND_WIDTH = 'end-of-sequence'.length;

/** The whole summary on one line, as `-o ndjson` gives it: the kind, then every part. */
export function summarise(kind: DeliveryKind, body: unknown): string {
  if (kind === 'unrecognised') return 'unrecognised delivery';
  return `${kind.padEnd(KIND_WIDTH)}  ${summaryParts(kind, body)
    .map((p) => p.text)
    .join('  ')}`;
}

export type AuthResult = 'ok' | 'missing' | 'mismatch' | 'not-checked';

/** Checks `Authorization: Bearer <secret>` in constant time. Without a configured secret nothing is checked. */
export function checkAuthorization(header: string | undefined, secret: string | undefined): AuthResult {
  if (!secret) return 'not-checked';
  if (header === undefined || header.trim() === '') return 'missing';
  const m = /^Bearer\s+(.+?)\s*$/i.exec(header);
  if (!m) return 'mismatch';
  const got = Buffer.from(m[1]!);
  const want = Buffer.from(secret);
  if (got.length !== want.length) return 'mismatch';
  return timingSafeEqual(got, want) ? 'ok' : 'mismatch';
}
