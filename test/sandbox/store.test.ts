// Below the HTTP layer: migrations, atomic batch creation, determinism of seed and results.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { migrate, openDb, prep, schemaVersion, type DbConstructor } from '../../src/sandbox/db.js';
import { eligibilityResult } from '../../src/sandbox/eligibilityRules.js';
import { MIGRATIONS } from '../../src/sandbox/migrations.js';
import { resolvePayer } from '../../src/sandbox/payers.js';
import { batchCreator } from '../../src/sandbox/routes/sequences.js';
import { seed } from '../../src/sandbox/seed.js';
import { createStores } from '../../src/sandbox/stores.js';
import { validateRows } from '../../src/sandbox/batch.js';

const Database = createRequire(import.meta.url)('libsql') as DbConstructor;

function freshDb(at = new Date('2025-03-01T12:00:00Z')) {
  const db = openDb(Database, ':memory:');
  const stores = createStores(db);
  seed(db, stores, at);
  return { db, stores };
}

describe('migrations', () => {
  it('records each applied version and applies nothing twice', () => {
    const db = openDb(Database, ':memory:');
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(migrate(db)).toEqual([]);
    expect(prep(db, 'SELECT COUNT(*) FROM schema_version', true).get()).toBe(MIGRATIONS.length);
    db.close();
  });
});

describe('batch creation is atomic', () => {
  it('a failure part-way through a batch leaves nothing created', () => {
    const { db, stores } = freshDb();
    const def = stores.definitions.get(1, 1)!;
    const rows = Array.from({ length: 5 }, (_, i) => ({ phoneNumber: `+1415555020${i}`, firstName: 'A', lastName: 'B', appointmentDate: '2030-01-01' }));
    const { validRows } = validateRows(def, rows);
    const before = prep(db, 'SELECT COUNT(*) FROM sequences', true).get();
    const patientsBefore = prep(db, 'SELECT COUNT(*) FROM patients', true).get();
    const realCreate = stores.sequences.create.bind(stores.sequences);
    let n = 0;
    stores.sequences.create = (org, seq) => {
      if (++n === 4) throw new Error('disk full (simulated)');
      return realCreate(org, seq);
    };
    const create = batchCreator(db, stores);
    expect(() => create(1, def, validRows, new Date().toISOString())).toThrow(/simulated/);
    expect(prep(db, 'SELECT COUNT(*) FROM sequences', true).get()).toBe(before);
    expect(prep(db, 'SELECT COUNT(*) FROM patients', true).get()).toBe(patientsBefore);
    stores.sequences.create = realCreate;
    expect(create(1, def, validRows, new Date().toISOString())).toHaveLength(5);
    db.close();
  });
});

describe('determinism', () => {
  it('seeding twice at the same moment gives identical data', () => {
    const a = freshDb();
    const b = freshDb();
    const dump = (db: typeof a.db) => ['calls', 'sequences', 'sequence_definitions', 'tools', 'assistants', 'phone_numbers'].map((t) => prep(db, `SELECT * FROM ${t} ORDER BY id`).all());
    expect(dump(a.db)).toEqual(dump(b.db));
    expect(prep(a.db, 'SELECT COUNT(*) FROM calls WHERE organization_id = 1', true).get()).toBe(30);
    a.db.close();
    b.db.close();
  });

  it('eligibility results follow the member id rules', () => {
    const payer = resolvePayer('60054')!;
    const at = new Date('2025-03-01T12:00:00Z');
    expect(eligibilityResult('NS123', payer, at)).toEqual({ outcome: 'not-supported', coverage: null });
    const inactive = eligibilityResult('AB120', payer, at);
    expect(inactive.coverage).toMatchObject({ is_active_today: false, patient_costs: [], checked_date: '2025-03-01', payer_name: 'Aetna' });
    const active = eligibilityResult(' ab129 ', payer, at);
    expect(active.coverage).toMatchObject({ is_active_today: true, member_id: 'ab129', plan_name: 'Aetna EPO Plan', group_number: 'GRP-AB129' });
    expect(active.coverage!.patient_costs.map((c) => [c.type, c.coverage_level, c.amount])).toEqual([
      ['deductible', 'individual', '2750.00'],
      ['deductible', 'family', '5500.00'],
      ['deductible', 'individual', '5500.00'],
      ['out_of_pocket_max', 'individual', '7500.00'],
      ['copay', 'individual', '65.00'],
      ['coinsurance', 'individual', '20.00'],
    ]);
    expect(eligibilityResult('AB129', payer, at)).toEqual(eligibilityResult('AB129', payer, at));
  });

  it('resolves payer ids and subsidiaries case-insensitively; unknown ones are unsupported', () => {
    expect(resolvePayer('87726')?.name).toBe('UnitedHealthcare');
    expect(resolvePayer(' oscar ')?.name).toBe('Oscar Health');
    expect(resolvePayer('94135')).toMatchObject({ name: 'Kaiser Permanente Northern California', parent: { name: 'Kaiser Permanente' } });
    expect(resolvePayer('12345')).toBeUndefined();
  });
});
