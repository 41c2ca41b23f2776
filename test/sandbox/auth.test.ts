import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_KEYS } from '../../src/sandbox/seed.js';
import { client, sandbox } from './helpers.js';

describe('health, auth and organisations', () => {
  let sbx: RunningSandbox;
  beforeAll(async () => {
    sbx = await sandbox();
  });
  afterAll(() => sbx.close());

  it('reports its base URL, port and the two seeded organisations with keys and tool ids', () => {
    expect(sbx.baseUrl).toBe(`http://127.0.0.1:${sbx.port}/v1`);
    expect(sbx.organizations.map((o) => [o.id, o.api_key])).toEqual([
      [1, SANDBOX_KEYS[1]],
      [2, SANDBOX_KEYS[2]],
    ]);
    for (const o of sbx.organizations) expect(o.tool_ids).toHaveLength(3);
    expect(sbx.organizations[0]!.tool_ids).not.toEqual(sbx.organizations[1]!.tool_ids);
  });

  it('answers GET /health without a key', async () => {
    const r = await client(sbx, null)('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('rejects a missing key with 401 in the standard error shape', async () => {
    const r = await client(sbx, null)('GET', '/call');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
    expect(r.body.message).toMatch(/Authorization/);
  });

  it('rejects an unknown key and a non-Bearer scheme with 401', async () => {
    expect((await client(sbx, 'sbx_nope')('GET', '/phone-number')).status).toBe(401);
    const basic = await client(sbx, null)('GET', '/phone-number', undefined, { authorization: `Basic ${SANDBOX_KEYS[1]}` });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toBe('Unauthorized');
  });

  it('answers an unknown route with 404', async () => {
    const r = await client(sbx)('GET', '/no-such-thing');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'Not Found', statusCode: 404 });
  });

  it('serves an OpenAPI document without a key', async () => {
    const r = await client(sbx, null)('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining(['/health', '/eligibility', '/eligibility/{id}', '/sequence-manager/sequences/batch', '/sequence-manager/sequences/metrics', '/call/{callId}', '/tool/{id}', '/phone-number', '/assistant/{assistantId}']),
    );
    expect(r.body.paths['/call/{callId}'].delete.responses['204']).toBeDefined();
    expect(r.body.paths['/eligibility'].post.requestBody.content['application/json'].schema.required).toEqual(['patient', 'insurance', 'provider']);
  });
});

describe('log', () => {
  it('shows method, path, status and worker events, never keys, query strings, secrets or patient data', async () => {
    const lines: string[] = [];
    const sbx = await sandbox({ log: (l) => lines.push(l), eligibilityDelayMs: 0 });
    try {
      const c = client(sbx);
      await c('GET', '/eligibility?customer_patient_id=PATIENT-SECRET-42');
      const sub = await c('POST', '/eligibility', {
        patient: { first_name: 'Zelda', last_name: 'Quixote', date_of_birth: '1970-01-01', member_id: 'MEMBER777' },
        insurance: { payer_id: '87726' },
        provider: { organization_name: 'X', npi: '1234567893' },
        webhook_url: 'http://127.0.0.1:9/hook?token=URLTOKEN',
        webhook_secret: 'WEBHOOK-SECRET',
      });
      expect(sub.status).toBe(201);
      const all = lines.join('\n');
      expect(all).toMatch(/GET \/v1\/eligibility 200/);
      expect(all).toMatch(new RegExp(`eligibility check ${sub.body.id} completed: success, active`));
      for (const secret of ['PATIENT-SECRET-42', 'Zelda', 'Quixote', 'MEMBER777', 'URLTOKEN', 'WEBHOOK-SECRET', sbx.organizations[0]!.api_key]) {
        expect(all).not.toContain(secret);
      }
    } finally {
      await sbx.close();
    }
  });
});

describe('keys and persistence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sbx-auth-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('apiKey replaces organisation 1 key; keys are stored hashed; data survives a restart', async () => {
    const dbPath = join(dir, 'keys.db');
    const a = await sandbox({ dbPath, apiKey: 'my-own-key-123' });
    expect(a.organizations[0]!.api_key).toBe('my-own-key-123');
    expect((await client(a, 'my-own-key-123')('GET', '/phone-number')).status).toBe(200);
    expect((await client(a, SANDBOX_KEYS[1])('GET', '/phone-number')).status).toBe(401);
    const created = await client(a, 'my-own-key-123')('POST', '/assistant', { name: 'Persisted' });
    expect(created.status).toBe(201);
    await a.close();

    // No key is stored in clear.
    const Database = createRequire(import.meta.url)('libsql');
    const db = new Database(dbPath);
    const rows = db.prepare('SELECT key_hash FROM api_keys').all() as { key_hash: string }[];
    db.close();
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.key_hash).not.toContain('my-own-key');
    }

    // Restart without apiKey: the default key works again, and the data is still there.
    const b = await sandbox({ dbPath });
    try {
      expect(b.organizations[0]!.api_key).toBe(SANDBOX_KEYS[1]);
      expect((await client(b, 'my-own-key-123')('GET', '/phone-number')).status).toBe(401);
      const patched = await client(b)('PATCH', `/assistant/${created.body.id}`, { first_message: 'hi' });
      expect(patched.status).toBe(200);
      expect(patched.body.name).toBe('Persisted');
    } finally {
      await b.close();
    }
  });
});
