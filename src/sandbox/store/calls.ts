// Calls are stored as their finished JSON document, so a list is a string join, not a re-encode.
import type { Call } from '../../api/types.js';
import { type Db, prep } from '../db.js';

export interface CallFilter {
  limit: number;
  createdAtGe?: string; // ISO, UTC
  createdAtLe?: string;
}

export function callStore(db: Db) {
  // SQLite joins the documents itself and hands them over as bytes (a BLOB arrives as a Buffer):
  // one value crosses into JS instead of one row per call, and nothing is decoded and re-encoded.
  const list = prep(
    db,
    `SELECT CAST('[' || COALESCE(group_concat(doc, ','), '') || ']' AS BLOB) FROM (
       SELECT doc FROM calls WHERE organization_id = ?1
         AND (?2 IS NULL OR created_at >= ?2) AND (?3 IS NULL OR created_at <= ?3)
       ORDER BY created_at DESC, id DESC LIMIT ?4)`,
    true,
  );
  const get = prep(db, 'SELECT CAST(doc AS BLOB) FROM calls WHERE id = ? AND organization_id = ?', true);
  const del = prep(db, 'DELETE FROM calls WHERE id = ? AND organization_id = ?');
  const insert = prep(db, 'INSERT INTO calls (organization_id, created_at, doc) VALUES (?, ?, ?)');
  const setDoc = prep(db, 'UPDATE calls SET doc = ? WHERE id = ?');
  const docById = prep(db, 'SELECT doc FROM calls WHERE id = ?', true);
  // List answers are cached until the next write to calls: dashboards and scripts poll the same
  // list far more often than calls change. Every write below goes through this store (the only
  // writer of the table) and clears the cache, so an answer is never stale.
  const listCache = new Map<string, Buffer>();
  const written = () => listCache.clear();
  return {
    /** The JSON array of calls, UTF-8 encoded. */
    listJson(orgId: number, f: CallFilter): Buffer {
      const key = `${orgId}|${f.createdAtGe ?? ''}|${f.createdAtLe ?? ''}|${f.limit}`;
      let body = listCache.get(key);
      if (!body) {
        body = list.get(orgId, f.createdAtGe ?? null, f.createdAtLe ?? null, f.limit) as Buffer;
        if (listCache.size >= 256) listCache.clear();
        listCache.set(key, body);
      }
      return body;
    },
    /** One call as UTF-8 JSON, or undefined. */
    getJson: (orgId: number, id: number) => get.get(id, orgId) as Buffer | undefined,
    delete: (orgId: number, id: number) => {
      written();
      return del.run(id, orgId).changes > 0;
    },
    /** The stored document of a call (any organisation: for the scheduler), or undefined once deleted. */
    doc(id: number): Record<string, unknown> | undefined {
      const text = docById.get(id) as string | undefined;
      return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
    },
    /** Replaces a call's document (no-op when the call was deleted). */
    replace(id: number, doc: Record<string, unknown>): void {
      written();
      setDoc.run(JSON.stringify({ ...doc, id }), id);
    },
    insert(orgId: number, call: Omit<Call, 'id'> & { created_at: string }): number {
      written();
      const id = Number(insert.run(orgId, call.created_at, '{}').lastInsertRowid);
      setDoc.run(JSON.stringify({ id, ...call }), id);
      return id;
    },
  };
}
