// Sequences: batch create/validate, list, get, update, metrics. Tolerant reading: list, PUT and
// batch answers may come as {success, data} or bare; `created` of a batch answer may be missing;
// error and warning items may have any shape (read by src/batch/issues.ts).
import type { BatchRequest, BatchRow, Sequence, SequenceMetricsEntry, SequenceUpdate } from './types.js';
import type { HttpClient } from './http.js';
import { MalformedResponseError } from '../errors.js';

const BASE = '/sequence-manager/sequences';

/** A batch answer as read: counts may be missing (undefined), `created` undefined when not sent. */
export interface BatchResult {
  valid?: boolean;
  totalAttempted?: number;
  validCount?: number;
  createdCount?: number;
  created?: Array<{ rowIndex: number; sequenceId?: number }>;
  errors: unknown[];
  warnings: unknown[];
  raw: unknown;
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v);
  return undefined;
}

function unwrap(data: unknown): unknown {
  if (data && typeof data === 'object' && !Array.isArray(data) && 'data' in data && (data as { data: unknown }).data !== undefined) {
    const inner = (data as { data: unknown }).data;
    // {success, data} envelope: unwrap only when the payload is not itself at the top.
    if (!('valid' in data) && !('id' in data)) return inner;
  }
  return data;
}

export function readBatchResult(data: unknown): BatchResult {
  const d = unwrap(data);
  if (!d || typeof d !== 'object' || Array.isArray(d)) {
    throw new MalformedResponseError('The service answered the batch request without a result object.');
  }
  const r = d as Record<string, unknown>;
  let created: BatchResult['created'];
  if (Array.isArray(r.created)) {
    created = [];
    for (const c of r.created) {
      if (!c || typeof c !== 'object') continue;
      const o = c as Record<string, unknown>;
      const rowIndex = num(o.rowIndex ?? o.row_index ?? o.index ?? o.row);
      if (rowIndex === undefined) continue;
      created.push({ rowIndex, sequenceId: num(o.sequence_id ?? o.sequenceId ?? o.id) });
    }
  }
  return {
    valid: typeof r.valid === 'boolean' ? r.valid : undefined,
    totalAttempted: num(r.total_attempted),
    validCount: num(r.valid_count ?? r.passed_count ?? r.validCount),
    createdCount: num(r.created_count ?? r.createdCount),
    created,
    errors: Array.isArray(r.errors) ? r.errors : r.errors ? [r.errors] : [],
    warnings: Array.isArray(r.warnings) ? r.warnings : r.warnings ? [r.warnings] : [],
    raw: data,
  };
}

export interface BatchOptions {
  validateOnly: boolean;
  nextActivityDate?: string;
}

/**
 * POST /sequence-manager/sequences/batch. A validate_only request creates nothing and may be
 * repeated (idempotent); a create is repeated only when the service refused it before acting
 * (429/503, connection refused) — the http core decides.
 */
export async function postBatch(client: HttpClient, definitionId: number, rows: BatchRow[], opts: BatchOptions): Promise<BatchResult> {
  const body: BatchRequest = { sequence_definition_id: definitionId, rows, validate_only: opts.validateOnly };
  if (opts.nextActivityDate) body.next_activity_date = opts.nextActivityDate;
  const res = await client.post<unknown>(`${BASE}/batch`, body, { idempotent: opts.validateOnly });
  return readBatchResult(res.data);
}

export type SequenceRecord = Partial<Sequence> & { id: number } & Record<string, unknown>;

function listOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    if (Array.isArray(d.data)) return d.data;
    if (d.data && typeof d.data === 'object' && Array.isArray((d.data as Record<string, unknown>).items)) {
      return (d.data as { items: unknown[] }).items;
    }
    if (Array.isArray(d.items)) return d.items;
  }
  throw new MalformedResponseError('The service answered the sequence list without a list of sequences.');
}

function toSequence(v: unknown): SequenceRecord | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const id = num(o.id);
  if (id === undefined) return undefined;
  return { ...o, id } as SequenceRecord;
}

export interface ListQuery {
  status?: string;
  limit?: number;
  /** Not in API.md (the sandbox honours them): callers must not rely on the filtering. */
  sequenceDefinitionId?: number;
  phoneNumber?: string;
}

export async function listSequences(client: HttpClient, q: ListQuery = {}): Promise<{ items: SequenceRecord[]; raw: unknown }> {
  const res = await client.get<unknown>(BASE, {
    query: { status: q.status, limit: q.limit, sequence_definition_id: q.sequenceDefinitionId, phone_number: q.phoneNumber },
  });
  return { items: listOf(res.data).map(toSequence).filter((s): s is SequenceRecord => s !== undefined), raw: res.data };
}

export async function getSequence(client: HttpClient, id: number, includeMetrics = false): Promise<{ sequence: SequenceRecord; raw: unknown }> {
  const res = await client.get<unknown>(`${BASE}/${id}`, { query: includeMetrics ? { includeMetrics: true } : undefined });
  const one = Array.isArray(res.data) ? res.data[0] : unwrap(res.data);
  const s = toSequence(one);
  if (!s) throw new MalformedResponseError(`The service answered GET ${BASE}/${id} without a sequence.`);
  return { sequence: s, raw: res.data };
}

export async function updateSequence(client: HttpClient, id: number, body: SequenceUpdate | Record<string, unknown>): Promise<{ sequence?: SequenceRecord; raw: unknown }> {
  const res = await client.put<unknown>(`${BASE}/${id}`, body);
  return { sequence: toSequence(unwrap(res.data)), raw: res.data };
}

export async function sequenceMetrics(client: HttpClient): Promise<{ items: Array<Partial<SequenceMetricsEntry> & Record<string, unknown>>; raw: unknown }> {
  const res = await client.get<unknown>(`${BASE}/metrics`);
  const items = listOf(res.data).filter((x): x is Record<string, unknown> => Boolean(x) && typeof x === 'object');
  return { items: items as Array<Partial<SequenceMetricsEntry> & Record<string, unknown>>, raw: res.data };
}
