import type { PhoneNumber } from '../../api/types.js';
import { type Db, prep } from '../db.js';

export function phoneNumberStore(db: Db) {
  const all = prep(db, 'SELECT id, number, organization_id, name, assistant_id FROM phone_numbers WHERE organization_id = ? ORDER BY id');
  const byAssistant = prep(db, 
    'SELECT id, number, organization_id, name, assistant_id FROM phone_numbers WHERE organization_id = ? AND assistant_id = ? ORDER BY id',
  );
  const insert = prep(db, 'INSERT INTO phone_numbers (organization_id, number, name, assistant_id) VALUES (?, ?, ?, ?)');
  return {
    list(orgId: number, assistantId?: number): PhoneNumber[] {
      return (assistantId === undefined ? all.all(orgId) : byAssistant.all(orgId, assistantId)) as PhoneNumber[];
    },
    /** The number a call for this assistant goes out from: its own, else the organisation's first. */
    sourceFor(orgId: number, assistantId: number | null): string | null {
      const own = assistantId == null ? [] : (byAssistant.all(orgId, assistantId) as PhoneNumber[]);
      const pick = own[0] ?? (all.all(orgId) as PhoneNumber[])[0];
      return pick?.number ?? null;
    },
    insert(orgId: number, number: string, name: string, assistantId: number | null): number {
      return Number(insert.run(orgId, number, name, assistantId).lastInsertRowid);
    },
  };
}
