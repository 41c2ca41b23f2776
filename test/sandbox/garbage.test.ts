// Bad input of every kind must be a 4xx in the endpoint's error shape, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxUnavailableError, type RunningSandbox } from '../../src/sandbox/index.js';
import { client, sandbox, type Call } from './helpers.js';

const WRITES: [string, string][] = [
  ['POST', '/eligibility'],
  ['POST', '/sequence-manager/sequences/batch'],
  ['PUT', '/sequence-manager/sequences/1'],
  ['PUT', '/sequence-manager/sequence-definitions/1'],
  ['POST', '/assistant'],
  ['PATCH', '/assistant/1'],
  ['PATCH', '/tool/x'],
  ['PATCH', '/tool/c027fd4c-4528-4596-a20a-6ba2a53a8fc5'],
];
const BODIES = ['[]', 'null', '"text"', '123', 'true', '{"rows":"x","steps":{},"patient":[],"function":1}', '{', '\u0000'];

describe('garbage in, 4xx out', () => {
  let sbx: RunningSandbox;
  let c: Call;
  beforeAll(async () => {
    sbx = await sandbox();
    c = client(sbx);
  });
  afterAll(() => sbx.close());

  it.each(WRITES)('%s %s rejects malformed bodies with 400/404 and the family error shape', async (method, path) => {
    for (const body of BODIES) {
      const r = await c(method, path, body);
      expect(r.status, `${method} ${path} ${body}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${method} ${path} ${body}`).toBeLessThan(500);
      expect(r.body, `${method} ${path} ${body}`).toHaveProperty('error');
      if (path.startsWith('/assistant')) expect(typeof r.body.error).toBe('number');
      else expect(typeof r.body.error).toBe('string');
    }
  });

  it('rejects a non-JSON content type with 415', async () => {
    const r = await c('POST', '/assistant', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ error: 415 });
  });

  it('rejects huge and negative ids with 400, not 500', async () => {
    for (const p of ['/call/99999999999999999999', '/call/-1', '/eligibility/1.5', '/sequence-manager/sequences/0']) {
      const r = await c('GET', p);
      expect(r.status, p).toBe(400);
    }
  });
});

describe('SandboxUnavailableError', () => {
  it('says how to repair the native module', () => {
    const e = new SandboxUnavailableError(new Error('Cannot find module libsql-linux-x64-gnu'));
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('SandboxUnavailableError');
    expect(e.message).toMatch(/npm rebuild libsql/);
    expect(e.message).toMatch(/libsql-linux-x64-gnu/);
  });
});
