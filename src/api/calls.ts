// Calls: list, read, delete. Reading goes through read.ts (records bare, in an array or in
// {success, data}; numbers as strings; an empty body is malformed).
import { fateOfAttempt } from './errors.js';
import type { Call, CallListQuery } from './types.js';
import type { HttpClient } from './http.js';
import type { AttemptFailure } from './retry.js';
import { API_FIELDS, normalise, readInt, readList, readOne, withId, type Listed } from './read.js';

export type { Listed } from './read.js';

/** GET /call with limit and the createdAtGe / createdAtLe date filters. */
export async function listCalls(client: HttpClient, q: CallListQuery = {}): Promise<Listed<Call>> {
  const res = await client.get('/call', {
    query: { limit: q.limit, createdAtGe: q.createdAtGe, createdAtLe: q.createdAtLe },
  });
  return { items: readList(res.data, 'GET /call').map((c) => normalise<Call>(c, API_FIELDS.call)), raw: res.data };
}

export async function getCall(client: HttpClient, id: number | string): Promise<{ call: Call; raw: unknown }> {
  const path = `/call/${encodeURIComponent(String(id))}`;
  const res = await client.get(path);
  const call = withId(normalise(readOne(res.data, `GET ${path}`), API_FIELDS.call), readInt(id) ?? id);
  return { call: call as unknown as Call, raw: res.data };
}

/** A failed attempt after which the service may have acted (so a later 404 can mean "done"). */
export function mayHaveActed(failure: AttemptFailure): boolean {
  return fateOfAttempt(failure) === 'unknown';
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
