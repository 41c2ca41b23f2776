// Sequences: batch create/validate, list, get, update, metrics. Tolerant reading: list, PUT and
// batch answers may come as {success, data} or bare; `created` of a batch answer may be missing;
// error and warning items may have any shape (read by src/batch/answer.ts).
import type { BatchRequest, BatchRow, Sequence, SequenceMetricsEntry, SequenceUpdate } from './types.js';
import type { HttpClient, RequestOptions } from './http.js';
import { API_FIELDS, normalise, readBool, readInt, readList, readOne, withId } from './read.js';

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

/**
 * A batch answer, read tolerantly (bare or {success, data}, numbers as strings). `created` entries
 * are read by `rowIndex` only: API.md gives it as zero-based; an entry without it names no row.
 * Which rows the answer confirms is decided in src/batch/answer.ts.
 */
export function readBatchResult(data: unknown): BatchResult {
  const r = readOne(data, `POST ${BASE}/batch`);
  let created: BatchResult['created'];
  if (Array.isArray(r.created)) {
    created = [];
    for (const c of r.created) {
      if (!c || typeof c !== 'object') continue;
      const o = c as Record<string, unknown>;
      const rowIndex = readInt(o.rowIndex ?? o.row_index);
      if (rowIndex === undefined) continue;
      created.push({ rowIndex, sequenceId: readInt(o.sequence_id ?? o.sequenceId ?? o.id) });
    }
  }
  const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined || v === null || v === '' ? [] : [v]);
  return {
    valid: readBool(r.valid),
    totalAttempted: readInt(r.total_attempted),
    validCount: readInt(r.valid_count ?? r.passed_count ?? r.validCount),
    createdCount: readInt(r.created_count ?? r.createdCount),
    created,
    errors: list(r.errors),
    warnings: list(r.warnings),
    raw: data,
  };
}

export interface BatchOptions {
  validateOnly: boolean;
  nextActivityDate?: string;
  /** Told of each failed attempt the http core retries (a run's pacer learns of 429/503 here). */
  onRetry?: RequestOptions['onRetry'];
}

/**
 * POST /sequence-manager/sequences/batch. A validate_only request creates nothing and may be
 * repeated (idempotent); a create is repeated only when the service refused it before acting
 * (429/503, connection refused) — the http core decides.
 */
export async function postBatch(client: HttpClient, definitionId: number, rows: BatchRow[], opts: BatchOptions): Promise<BatchResult> {
  const body: BatchRequest = { sequence_definition_id: definitionId, rows, validate_only: opts.validateOnly };
  if (opts.nextActivityDate) body.next_activity_date = opts.nextActivityDate;
  const res = await client.post<unknown>(`${BASE}/batch`, body, { idempotent: opts.validateOnly, onRetry: opts.onRetry });
  return readBatchResult(res.data);
}

export type SequenceRecord = Partial<Sequence> & { id: number } & Record<string, unknown>;
export type MetricsRecord = Partial<SequenceMetricsEntry> & Record<string, unknown>;

/** A sequence with API.md's numbers and booleans read; undefined when it has no integer id. */
function toSequence(o: Record<string, unknown>): SequenceRecord | undefined {
  const s = normalise<Record<string, unknown>>(o, API_FIELDS.sequence);
  return typeof s.id === 'number' ? (s as SequenceRecord) : undefined;
}

/** The sequence read at /sequences/{id}: without an id of its own, it gets the id asked for. */
function oneSequence(rec: Record<string, unknown>, askedId: number): SequenceRecord {
  return normalise<SequenceRecord>(withId(rec, askedId), API_FIELDS.sequence);
}

export interface ListQuery {
  status?: string;
  limit?: number;
  /** Not in API.md (the sandbox honours them): callers must not rely on the filtering. */
  sequenceDefinitionId?: number;
  phoneNumber?: string;
}

/** GET the sequence list; entries without an integer id are left out (nothing can refer to them). */
export async function listSequences(client: HttpClient, q: ListQuery = {}): Promise<{ items: SequenceRecord[]; raw: unknown }> {
  const res = await client.get<unknown>(BASE, {
    query: { status: q.status, limit: q.limit, sequence_definition_id: q.sequenceDefinitionId, phone_number: q.phoneNumber },
  });
  const items = readList(res.data, `GET ${BASE}`).map(toSequence).filter((s): s is SequenceRecord => s !== undefined);
  return { items, raw: res.data };
}

export async function getSequence(client: HttpClient, id: number, includeMetrics = false): Promise<{ sequence: SequenceRecord; raw: unknown }> {
  const where = `GET ${BASE}/${id}`;
  const res = await client.get<unknown>(`${BASE}/${id}`, { query: includeMetrics ? { includeMetrics: true } : undefined });
  return { sequence: oneSequence(readOne(res.data, where), id), raw: res.data };
}

/** PUT: the answer is read like any single record ({success, data}, an array or the bare object). */
export async function updateSequence(client: HttpClient, id: number, body: SequenceUpdate | Record<string, unknown>): Promise<{ sequence?: SequenceRecord; raw: unknown }> {
  const res = await client.put<unknown>(`${BASE}/${id}`, body);
  return { sequence: oneSequence(readOne(res.data, `PUT ${BASE}/${id}`), id), raw: res.data };
}

export async function sequenceMetrics(client: HttpClient): Promise<{ items: MetricsRecord[]; raw: unknown }> {
  const res = await client.get<unknown>(`${BASE}/metrics`);
  return { items: readList(res.data, `GET ${BASE}/metrics`).map((e) => normalise<MetricsRecord>(e, API_FIELDS.metricsEntry)), raw: res.data };
}
