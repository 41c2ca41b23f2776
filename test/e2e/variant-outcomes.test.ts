// `sequences outcomes` against the variant server (test/helpers/variantServer.ts): a service that
// sends only API.md's fields (no phone_number, name or created_at on sequences), numbers as strings,
// single records inside an array, booleans as strings, sequences without an outreach array, a call
// record that is gone (404), a sequence that is gone, a status API.md does not list, and refusals
// (429) on the way. The command must still join every row and leave what it cannot know empty.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { baseEnv, runCli, tempDir } from '../helpers/cli.js';
import { json, startVariantServer, variantEnv, type VariantServer } from '../helpers/variantServer.js';

let server: VariantServer;
let tmp: ReturnType<typeof tempDir>;
beforeEach(async () => {
  server = await startVariantServer({ single: 'array', numbersAsStrings: true, apiFieldsOnly: true });
  tmp = tempDir();
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});

const CSV = 'First Name,Last Name,Phone\nAna,Lopez,(415) 555-0100\nBo,Chen,(415) 555-0101\nCy,Patel,(415) 555-0102\nDi,Okafor,(415) 555-0103\nEd,Novak,(415) 555-0104\n';

it('joins every row using API.md fields only, leaving unknown fields empty', async () => {
  const env = variantEnv(server, baseEnv(tmp.dir));
  const patients = join(tmp.dir, 'patients.csv');
  writeFileSync(patients, CSV);
  const batch = await runCli(['sequences', 'batch', patients, '--definition', '1', '--yes'], { env });
  expect(batch.code, batch.stderr).toBe(0);
  const seqs = server.store.sequences;
  expect(seqs).toHaveLength(5);
  const [a, b, c, d, e] = seqs as Array<Record<string, unknown>>;
  // Line 2: ended and reached; its last call (the highest step) is on record.
  Object.assign(a!, { status: 'completed', outcome: 'appointment-confirmed', was_contact_reached: 'true', next_activity: null, outreach: [{ type: 'call', step: '2', call_record_id: '1', messaging_encounter_id: null, analysis: {} }, { type: 'call', step: '1', call_record_id: '2' }] });
  // Line 3: ended, not reached ("false" as a string); its call record was deleted (404).
  Object.assign(b!, { status: 'failed', outcome: 'voicemail', was_contact_reached: 'false', next_activity: null, outreach: [{ type: 'call', step: 1, call_record_id: 999 }] });
  // Line 4: a status API.md does not list, with something scheduled; no outreach array at all.
  Object.assign(c!, { status: 'on-hold', next_activity: '2030-01-02T09:00:00.000Z' });
  // Line 5: a status API.md does not list, nothing scheduled.
  Object.assign(d!, { status: 'archived', next_activity: null });
  // Line 6: gone from the service.
  seqs.splice(seqs.indexOf(e!), 1);
  // The service refuses the first reads; with no retries in the http core, the run's own pacing
  // must carry them.
  server.override('GET', /\/sequences\/\d+$/, json(429, { message: 'Too many requests', statusCode: 429 }, { 'retry-after': '2' }), 6);

  const run = await runCli(['sequences', 'outcomes', patients, '-o', 'json'], { env: { ...env, OUTREACH_MAX_RETRIES: '0' } });
  expect(run.code, run.stderr).toBe(0);
  const rows = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
  const pick = (r: Record<string, unknown>) => [r.line, r.status, r.outcome, r.was_contact_reached, r.last_call_at, r.last_call_outcome, r.result];
  expect(rows.map(pick)).toEqual([
    [2, 'completed', 'appointment-confirmed', true, '2026-11-20T10:00:00.000Z', 'appointment-confirmed', 'completed'],
    [3, 'failed', 'voicemail', false, null, null, 'not-reached'],
    [4, 'on-hold', null, false, null, null, 'in-progress'],
    [5, 'archived', null, false, null, null, 'other'],
    [6, 'not-found', null, null, null, null, 'not-found'],
  ]);
  // The ids the batch recorded, whatever form the service sends them in.
  expect(rows.slice(0, 4).map((r) => r.sequence_id)).toEqual([a!.id, b!.id, c!.id, d!.id]);
  expect(rows.every((r) => r.ended_reason === null)).toBe(true);
  // Every sequence read with its outreach; the last call of line 2 is call 1 (step 2), never call 2.
  const reads = server.requests.filter((r) => r.method === 'GET').map((r) => r.url.replace(/^\/v1/, ''));
  expect(reads.filter((u) => u.startsWith('/sequence-manager/sequences/')).every((u) => u.endsWith('?includeMetrics=true'))).toBe(true);
  expect(reads.filter((u) => u.startsWith('/call/')).sort()).toEqual(['/call/1', '/call/999']);
  expect(run.stderr).toContain('5 rows: 5 sequences · 3 ended, 1 in progress, 1 not found');
  expect(run.stderr).toContain('The service asked to slow down 6 times.');
});

it('stops with the service\'s error when it refuses the key (exit 4)', async () => {
  const env = variantEnv(server, baseEnv(tmp.dir));
  const patients = join(tmp.dir, 'patients.csv');
  writeFileSync(patients, CSV);
  expect((await runCli(['sequences', 'batch', patients, '--definition', '1', '--yes'], { env })).code).toBe(0);
  const run = await runCli(['sequences', 'outcomes', patients, '--out', join(tmp.dir, 'f.csv')], { env: { ...env, OUTREACH_API_KEY: 'wrong' } });
  expect(run.code).toBe(4);
});
