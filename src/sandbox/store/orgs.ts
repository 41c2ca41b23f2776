// Organisations and their API keys (stored as sha256 digests).
import { createHash } from 'node:crypto';
import { type Db, prep } from '../db.js';

const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export function orgStore(db: Db) {
  const byHash = prep(db, 'SELECT organization_id AS id FROM api_keys WHERE key_hash = ?', true);
  const delKeys = prep(db, 'DELETE FROM api_keys WHERE organization_id = ?');
  const addKey = prep(db, 'INSERT INTO api_keys (key_hash, organization_id, created_at) VALUES (?, ?, ?)');
  const list = prep(db, 'SELECT id, name FROM organizations ORDER BY id');
  // Keys only change at start (setOnlyKey), so known keys are remembered per process: no hash and
  // no query on every request. Unknown keys are not remembered (a flood of them cannot grow this).
  const known = new Map<string, number>();
  const setOnly = db.transaction((orgId: number, key: string) => {
    delKeys.run(orgId);
    addKey.run(hashKey(key), orgId, new Date().toISOString());
  });
  return {
    /** Organisation id that owns the key, or undefined. */
    orgForKey(key: string): number | undefined {
      const hit = known.get(key);
      if (hit !== undefined) return hit;
      const org = byHash.get(hashKey(key)) as number | undefined;
      if (org !== undefined && known.size < 1000) known.set(key, org);
      return org;
    },
    /** Makes `key` the only key of the organisation. */
    setOnlyKey(orgId: number, key: string): void {
      known.clear();
      setOnly(orgId, key);
    },
    list: () => list.all() as { id: number; name: string }[],
  };
}
