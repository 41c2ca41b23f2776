// phone-numbers (list) against a real sandbox.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import type { PhoneNumber } from '../../src/api/types.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(() => sbx.close());
beforeEach(() => {
  tmp = tempDir();
  env = sbx.env(tmp.dir);
});
afterEach(() => tmp.cleanup());

describe('phone-numbers', () => {
  it('alone lists, as `list` does: plain rows when piped', async () => {
    const direct = (await sandboxRequest<PhoneNumber[]>(sbx, 'GET', '/phone-number')).data;
    expect(direct.length).toBeGreaterThan(1);
    const alone = await runCli(['phone-numbers'], { env });
    expect(alone.code, alone.stderr).toBe(0);
    const list = await runCli(['phone-numbers', 'list'], { env });
    expect(list.stdout).toBe(alone.stdout);
    expect(alone.stdout.split('\n').slice(0, -1).map((l) => l.split('\t'))).toEqual(
      direct.map((p) => [String(p.id), p.number, p.name, p.assistant_id === null ? '' : String(p.assistant_id)]),
    );
  });

  it('--assistant filters (also without `list`); -o json is the service body', async () => {
    const direct = (await sandboxRequest<PhoneNumber[]>(sbx, 'GET', '/phone-number?assistantId=1')).data;
    expect(direct.length).toBeGreaterThan(0);
    const r = await runCli(['phone-numbers', 'list', '--assistant', '1', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(direct);
    const alone = await runCli(['phone-numbers', '--assistant', '1', '-o', 'json'], { env });
    expect(alone.code, alone.stderr).toBe(0);
    expect(JSON.parse(alone.stdout)).toEqual(direct);
    const all = await runCli(['phone-numbers', '-o', 'json'], { env });
    expect(JSON.parse(all.stdout)).toEqual((await sandboxRequest(sbx, 'GET', '/phone-number')).data);
  });

  it('ndjson, csv, tsv and -q', async () => {
    const direct = (await sandboxRequest<PhoneNumber[]>(sbx, 'GET', '/phone-number')).data;
    const nd = await runCli(['phone-numbers', '-o', 'ndjson'], { env });
    expect(nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(direct);
    const csv = await runCli(['phone-numbers', '-o', 'csv'], { env });
    expect(csv.stdout.split('\n')[0]).toBe('id,number,name,assistant_id');
    expect(csv.stdout.trimEnd().split('\n')).toHaveLength(direct.length + 1);
    const tsv = await runCli(['phone-numbers', '-o', 'tsv'], { env });
    expect(tsv.stdout.split('\n')[0]).toBe('id\tnumber\tname\tassistant_id');
    const q = await runCli(['phone-numbers', '-q'], { env });
    expect(q.stdout).toBe(direct.map((p) => `${p.number}\n`).join(''));
  });

  it('an assistant with no numbers gives an empty list; a bad --assistant exits 2', async () => {
    const r = await runCli(['phone-numbers', '--assistant', '9999', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    const bad = await runCli(['phone-numbers', '--assistant', 'x'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Invalid --assistant "x"');
  });

  it('a wrong key exits 4 and the key is not printed', async () => {
    const r = await runCli(['phone-numbers'], { env: { ...env, OUTREACH_API_KEY: 'sk_wrong_key_123456' } });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain('sk_wrong_key_123456');
  });

  it('help has examples', async () => {
    const r = await runCli(['phone-numbers', 'list', '--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:');
  });
});
