// Calls are stored as their finished JSON document, so a list is a string join, not a re-encode.
import type { Call } from '../../api/types.js';
import { type Db, prep } from '../db.js';

export interface CallFilter {
  limit: number;
  createdAtGe?: string; // ISO, UTC
  createdAtLe?: string;
}

export function callStore(db: Db) {
  // SQLite joins the documents itself: one value crosses into JS instead of one row per call.
  const list = prep(
    db,
    `SELECT '[' || COALESCE(group_concat(doc, ','), '') || ']' FROM (
       SELECT doc FROM calls WHERE organization_id = ?1
         AND (?2 IS NULL OR created_at >= ?2) AND (?3 IS NULL OR created_at <= ?3)
       ORDER BY created_at DESC, id DESC LIMIT ?4)`,
    true,
  );
  const get = prep(db, 'SELECT doc FROM calls WHERE id = ? AND organization_id = ?', true);
  const del = prep(db, 'DELETE FROM calls WHERE id = ? AND organization_id = ?');
  const insert = prep(db, 'INSERT INTO calls (organization_id, created_at, doc) VALUES (?, ?, ?)');
  const setDoc = prep(db, 'UPDATE calls SET doc = ? WHERE id = ?');
  return {
    /** JSON text of the array of calls. */
    listJson(orgId: number, f: CallFilter): string {
      return list.get(orgId, f.createdAtGe ?? null, f.createdAtLe ?? null, f.limit) as string;
    },
    getJson: (orgId: number, id: number) => get.get(id, orgId) as string | undefined,
    delete: (orgId: number, id: number) => del.run(id, orgId).changes > 0,
    insert(orgId: number, call: Omit<Call, 'id'> & { created_at: string }): number {
      const id = Number(insert.run(orgId, call.created_at, '{}').lastInsertRowid);
      setDoc.run(JSON.stringify({ id, ...call }), id);
      return id;
    },
  };
}
