// Eligibility endpoints of API.md, read by read.ts: the single read may be an array (as API.md
// shows), an object or {success, data}; the list bare or wrapped; numbers may come as strings;
// extra fields are kept, missing optional fields stay undefined, unknown statuses are kept. The
// unsupported-payer 400 lists the supported payers in a shape the real service does not publish:
// any list found in the body is read (see payersFromBody).
import { ApiError, MalformedResponseError } from '../errors.js';
import type { HttpClient } from './http.js';
import { API_FIELDS, isRecord, normalise, readInt, readList, readOne, withId } from './read.js';
import type { EligibilityCheck, EligibilityRequest, EligibilitySubmitted } from './types.js';

export interface ListQuery {
  patient?: string;
  status?: string;
  limit?: number;
}

/** POST /eligibility. Never retried blindly: `maxRetries` defaults to the client's policy (only refusals). */
export async function submitEligibility(
  client: HttpClient,
  body: EligibilityRequest,
  opts: { maxRetries?: number } = {},
): Promise<{ submitted: EligibilitySubmitted; raw: unknown }> {
  const res = await client.post<unknown>('/eligibility', body, opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries });
  const rec = normalise<Record<string, unknown>>(readOne(res.data, 'POST /eligibility'), API_FIELDS.eligibility);
  if (readInt(rec.id) === undefined) {
    throw new MalformedResponseError('The service accepted the eligibility check but its answer holds no id (POST /eligibility).');
  }
  return { submitted: rec as unknown as EligibilitySubmitted, raw: res.data };
}

/** GET /eligibility with filters. */
export async function listEligibility(client: HttpClient, q: ListQuery = {}): Promise<{ checks: EligibilityCheck[]; raw: unknown }> {
  const res = await client.get<unknown>('/eligibility', {
    query: { customer_patient_id: q.patient, status: q.status, limit: q.limit },
  });
  return { checks: readList(res.data, 'GET /eligibility').map((c) => normalise<EligibilityCheck>(c, API_FIELDS.eligibility)), raw: res.data };
}

/** GET /eligibility/{id}: the body is an array holding the check (API.md) or the bare object. */
export async function getEligibility(client: HttpClient, id: number | string): Promise<{ check: EligibilityCheck; raw: unknown }> {
  const path = `/eligibility/${encodeURIComponent(String(id))}`;
  const res = await client.get<unknown>(path);
  const rec = withId(normalise<Record<string, unknown>>(readOne(res.data, `GET ${path}`), API_FIELDS.eligibility), readInt(id) ?? id);
  return { check: rec as unknown as EligibilityCheck, raw: res.data };
}

const isObject = isRecord;

// ---------- supported payers ----------

/** One supported payer as shown to the user: subsidiaries flattened with their parent's name. */
export interface PayerRow {
  payer_id: string;
  name: string;
  parent?: string;
}

const ID_KEYS = ['payer_id', 'payerId', 'id', 'code'];
const NAME_KEYS = ['name', 'payer_name', 'payerName', 'display_name'];

function pick(o: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (typeof v === 'number') return String(v);
  }
  return undefined;
}

function rowsFromArray(arr: unknown[], parent?: string): PayerRow[] {
  const rows: PayerRow[] = [];
  for (const item of arr) {
    if (typeof item === 'string' && item.trim()) {
      rows.push({ payer_id: '', name: item.trim(), ...(parent ? { parent } : {}) });
    } else if (isObject(item)) {
      const id = pick(item, ID_KEYS) ?? '';
      const name = pick(item, NAME_KEYS) ?? id;
      if (!id && !name) continue;
      rows.push({ payer_id: id, name, ...(parent ? { parent } : {}) });
      for (const key of ['subsidiaries', 'children', 'affiliates']) {
        if (Array.isArray(item[key])) rows.push(...rowsFromArray(item[key] as unknown[], name));
      }
    }
  }
  return rows;
}

/**
 * The supported payers listed in an error body, whatever its shape: a field named like
 * supported_payers/payers, else the first array of payer-like items anywhere in the body.
 */
export function payersFromBody(body: unknown, depth = 0): PayerRow[] | undefined {
  if (depth > 4) return undefined;
  if (Array.isArray(body)) {
    const rows = rowsFromArray(body);
    return rows.length > 0 ? rows : undefined;
  }
  if (!isObject(body)) return undefined;
  const preferred = Object.keys(body).filter((k) => /payer/i.test(k));
  for (const k of preferred) {
    const v = body[k];
    if (Array.isArray(v)) {
      const rows = rowsFromArray(v);
      if (rows.length > 0) return rows;
    }
  }
  for (const [k, v] of Object.entries(body)) {
    if (preferred.includes(k)) continue;
    if (Array.isArray(v) || isObject(v)) {
      const rows = payersFromBody(v, depth + 1);
      if (rows && rows.some((r) => r.payer_id)) return rows;
    }
  }
  return undefined;
}

/** The supported payers when `err` is the service's 400 for an unsupported payer, else undefined. */
export function unsupportedPayerList(err: unknown): PayerRow[] | undefined {
  if (!(err instanceof ApiError) || err.status !== 400) return undefined;
  return payersFromBody(err.body);
}
