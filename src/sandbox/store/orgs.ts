// Organisations and their API keys (stored as sha256 digests).
import { createHash } from 'node:crypto';
import { type Db, prep } from '../db.js';

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export function orgStore(db: Db) {
  const byHash = prep(db, 'SELECT organization_id AS id FROM api_keys WHERE key_hash = ?', true);
  const delKeys = prep(db, 'DELETE FROM api_keys WHERE organization_id = ?');
  const addKey = prep(db, 'INSERT INTO api_keys (key_hash, organization_id, created_at) VALUES (?, ?, ?)');
  const list = prep(db, 'SELECT id, name FROM organizations ORDER BY id');
  return {
    /** Organisation id that owns the key, or undefined. */
    orgForKey(key: string): number | undefined {
      return byHash.get(hashKey(key)) as number | undefined;
    },
    /** Makes `key` the only key of the organisation. */
    setOnlyKey: db.transaction((orgId: number, key: string) => {
      delKeys.run(orgId);
      addKey.run(hashKey(key), orgId, new Date().toISOString());
    }),
    list: () => list.all() as { id: number; name: string }[],
  };
}
