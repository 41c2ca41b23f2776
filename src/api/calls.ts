// Calls: list, read, delete. Tolerant reading: a list may come as an array or wrapped in {data}.
import { MalformedResponseError } from '../errors.js';
import type { Call, CallListQuery } from './types.js';
import type { HttpClient } from './http.js';
import type { AttemptFailure } from './retry.js';

export interface Listed<T> {
  items: T[];
  /** The body as the service sent it (printed as is by -o json). */
  raw: unknown;
}

export function listFrom<T>(data: unknown): T[] {
  if (Array.isArray(data)) return data as T[];
  if (data && typeof data === 'object') {
    const d = (data as { data?: unknown }).data;
    if (Array.isArray(d)) return d as T[];
  }
  return [];
}

/** A single record: the bare object, or an array holding it. */
export function recordFrom<T>(data: unknown): T | undefined {
  if (Array.isArray(data)) return data[0] as T | undefined;
  if (data && typeof data === 'object') {
    const d = (data as { data?: unknown }).data;
    if (d && typeof d === 'object' && !Array.isArray(d) && !('id' in (data as object))) return d as T;
    return data as T;
  }
  return undefined;
}

/** GET /call with limit and the createdAtGe / createdAtLe date filters. */
export async function listCalls(client: HttpClient, q: CallListQuery = {}): Promise<Listed<Call>> {
  const res = await client.get('/call', {
    query: { limit: q.limit, createdAtGe: q.createdAtGe, createdAtLe: q.createdAtLe },
  });
  return { items: listFrom<Call>(res.data), raw: res.data };
}

export async function getCall(client: HttpClient, id: number | string): Promise<{ call: Call; raw: unknown }> {
  const res = await client.get(`/call/${encodeURIComponent(String(id))}`);
  const call = recordFrom<Call>(res.data);
  if (!call) {
    throw new MalformedResponseError(`The service answered GET /call/${id} without a call record.`, { status: res.status });
  }
  return { call, raw: res.data };
}

/** A failed attempt after which the service may have acted (so a later 404 can mean "done"). */
export function mayHaveActed(failure: AttemptFailure): boolean {
  if (failure.kind === 'lost') return true;
  if (failure.kind === 'status') return [408, 500, 502, 504].includes(failure.status);
  return false;
}

export interface DeleteResult {
  /** 'deleted': 2xx. 'deleted-on-retry': an earlier attempt may have landed and the retry found it gone (404). */
  outcome: 'deleted' | 'deleted-on-retry';
  status: number;
}

/**
 * DELETE /call/{id}. The http core repeats a DELETE whose answer was lost; if the retry then gets
 * 404, the first attempt most likely deleted it, so that counts as deleted, not as "not found".
 */
export async function deleteCall(client: HttpClient, id: number | string): Promise<DeleteResult> {
  let earlierMayHaveActed = false;
  try {
    const res = await client.delete(`/call/${encodeURIComponent(String(id))}`, {
      onRetry: (failure) => {
        if (mayHaveActed(failure)) earlierMayHaveActed = true;
      },
    });
    return { outcome: 'deleted', status: res.status };
  } catch (err) {
    if (earlierMayHaveActed && (err as { status?: number }).status === 404) return { outcome: 'deleted-on-retry', status: 404 };
    throw err;
  }
}
