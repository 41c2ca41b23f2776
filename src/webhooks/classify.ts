// What a webhook delivery is, by its shape, and a one-line summary of it without patient data
// (ids of checks, calls and sequences, statuses, outcomes and durations only: no patient ids, payers,
// names, dates of birth, member ids or phone numbers). Every value in a summary is terminal-safe.
// Pure.
import { timingSafeEqual } from 'node:crypto';
import { terminalSafe } from '../output/safe.js';

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

/** Longest value shown in a summary: an id or a status never needs more. */
const MAX_SHOWN = 40;

/** Text from a delivery as it may be shown on a line: escapes made visible, clipped to MAX_SHOWN. */
export function shown(v: unknown): string {
  const s = terminalSafe(v);
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN - 1)}…` : s;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' || typeof v === 'number' ? shown(v) : undefined);

/** 92000 → "1m32s". */
export function shortDuration(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return undefined;
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** A short readable summary: kind, ids, status, outcome, duration. Never patient data. */
export function summarise(kind: DeliveryKind, body: unknown): string {
  const parts: string[] = [];
  const add = (label: string, v: unknown) => {
    const s = str(v);
    if (s !== undefined && s !== '') parts.push(label ? `${label} ${s}` : s);
  };
  switch (kind) {
    case 'end-of-call': {
      const b = body as Obj;
      const call = callOf(b)!;
      add('call', call.id);
      add('', call.call_status);
      add('', call.outcome);
      if (call.failure_reason && call.failure_reason !== call.outcome) add('failure:', call.failure_reason);
      add('', shortDuration(call.duration_ms));
      add('sequence', b.sequence_id);
      add('step', b.step);
      return `end-of-call      ${parts.join('  ')}`;
    }
    case 'end-of-sequence': {
      const b = body as Obj;
      add('sequence', b.id);
      add('', b.status);
      const outreach = Array.isArray(b.outreach) ? b.outreach.filter(isObj) : [];
      if (outreach.length > 0) {
        const items = outreach.map((o) => {
          const outcome = isObj(o.analysis) ? str(o.analysis.outcome) : undefined;
          return `${str(o.type) ?? '?'}${outcome ? `:${outcome}` : ''}`;
        });
        parts.push(`outreach ${items.join(', ')}`);
      } else {
        parts.push('no outreach');
      }
      return `end-of-sequence  ${parts.join('  ')}`;
    }
    case 'eligibility': {
      const c = checkOf(body)!;
      add('check', c.id);
      add('', c.status);
      add('', c.outcome);
      if (isObj(c.coverage) && typeof c.coverage.is_active_today === 'boolean') parts.push(c.coverage.is_active_today ? 'active' : 'inactive');
      return `eligibility      ${parts.join('  ')}`;
    }
    default:
      return 'unrecognised delivery';
  }
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
