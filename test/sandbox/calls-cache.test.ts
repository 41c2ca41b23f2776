// The call list answer is cached between writes: it must never be stale after a delete or after the
// scheduler records a new call, and never leak across organisations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { client, sandbox, type Call } from './helpers.js';

let sbx: RunningSandbox;
let org1: Call;
let org2: Call;
beforeAll(async () => {
  sbx = await sandbox({ scheduler: true, speed: 10_000_000, schedulerTickMs: 20 });
  org1 = client(sbx);
  org2 = client(sbx, sbx.organizations[1]!.api_key);
});
afterAll(() => sbx.close());

describe('cached call lists', () => {
  it('a deleted call disappears from a list that was read (and cached) before', async () => {
    const before = await org1<Array<{ id: number }>>('GET', '/call?limit=1000');
    const victim = before.body[0]!.id;
    expect((await org1('GET', '/call?limit=1000')).body).toEqual(before.body); // second read: cached
    expect((await org1('DELETE', `/call/${victim}`)).status).toBe(204);
    const after = await org1<Array<{ id: number }>>('GET', '/call?limit=1000');
    expect(after.body.map((c) => c.id)).not.toContain(victim);
    expect(after.body).toHaveLength(before.body.length - 1);
  });

  it('lists are per organisation and per filter', async () => {
    const a = await org1<Array<{ id: number }>>('GET', '/call?limit=5');
    const b = await org2<Array<{ id: number }>>('GET', '/call?limit=5');
    expect(a.body).toHaveLength(5);
    expect(b.body).toHaveLength(5);
    expect(a.body.map((c) => c.id)).not.toEqual(b.body.map((c) => c.id));
    expect((await org1('GET', '/call?limit=3')).body).toHaveLength(3);
  });

  it('a call made by the scheduler shows up in a list read before it', async () => {
    const before = await org1<Array<{ id: number }>>('GET', '/call?limit=1000');
    const res = await org1('POST', '/sequence-manager/sequences/batch', {
      sequence_definition_id: 1,
      rows: [{ phoneNumber: '+14155550121', firstName: 'Test', lastName: 'Patient', appointmentDate: '2030-05-17' }],
    });
    expect(res.status).toBe(200);
    let after = before;
    for (let i = 0; i < 200 && after.body.length === before.body.length; i++) {
      await new Promise((r) => setTimeout(r, 25));
      after = await org1<Array<{ id: number }>>('GET', '/call?limit=1000');
    }
    expect(after.body.length).toBeGreaterThan(before.body.length);
  });
});
