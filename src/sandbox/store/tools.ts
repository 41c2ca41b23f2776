import type { Tool, ToolFunction } from '../../api/types.js';
import { type Db, prep } from '../db.js';

interface Row {
  id: string;
  organization_id: number;
  async: number;
  function: string;
  created_at: string;
  updated_at: string;
}

const toWire = (r: Row): Tool => ({
  type: 'function',
  id: r.id,
  orgId: String(r.organization_id),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  async: r.async === 1,
  function: JSON.parse(r.function) as ToolFunction,
});

export function toolStore(db: Db) {
  const get = prep(db, 'SELECT * FROM tools WHERE id = ? AND organization_id = ?');
  const ids = prep(db, 'SELECT id FROM tools WHERE organization_id = ? ORDER BY created_at, rowid', true);
  const insert = prep(db, 'INSERT INTO tools (id, organization_id, async, function, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  const update = prep(db, 'UPDATE tools SET async = ?, function = ?, updated_at = ? WHERE id = ? AND organization_id = ?');
  return {
    get(orgId: number, id: string): Tool | undefined {
      const r = get.get(id, orgId) as Row | undefined;
      return r && toWire(r);
    },
    ids: (orgId: number) => ids.all(orgId) as string[],
    insert(orgId: number, id: string, fn: ToolFunction, isAsync: boolean, now: string) {
      insert.run(id, orgId, isAsync ? 1 : 0, JSON.stringify(fn), now, now);
    },
    update(orgId: number, id: string, fn: ToolFunction, isAsync: boolean, now: string): Tool | undefined {
      update.run(isAsync ? 1 : 0, JSON.stringify(fn), now, id, orgId);
      return this.get(orgId, id);
    },
  };
}
