// Calls are stored as their finished JSON document, so a list is a string join, not a re-encode.
import type { Call } from '../../api/types.js';
import { type Db, prep } from '../db.js';

export interface CallFilter {
  limit: number;
  createdAtGe?: string; // ISO, UTC
  createdAtLe?: string;
}

export function callStore(db: Db) {
  const list = prep(db, 
    `SELECT doc FROM calls WHERE organization_id = @org
       AND (@ge IS NULL OR created_at >= @ge) AND (@le IS NULL OR created_at <= @le)
     ORDER BY created_at DESC, id DESC LIMIT @limit`, true);
  const get = prep(db, 'SELECT doc FROM calls WHERE id = ? AND organization_id = ?', true);
  const del = prep(db, 'DELETE FROM calls WHERE id = ? AND organization_id = ?');
  const insert = prep(db, 'INSERT INTO calls (organization_id, created_at, doc) VALUES (?, ?, ?)');
  const setDoc = prep(db, 'UPDATE calls SET doc = ? WHERE id = ?');
  return {
    /** JSON text of the array of calls. */
    listJson(orgId: number, f: CallFilter): string {
      const docs = list.all({ org: orgId, ge: f.createdAtGe ?? null, le: f.createdAtLe ?? null, limit: f.limit }) as string[];
      return `[${docs.join(',')}]`;
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
