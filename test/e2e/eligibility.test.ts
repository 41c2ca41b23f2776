// eligibility check/list/get/watch/payers end to end: the built CLI against a real sandbox.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sbx: TestSandbox;
let slowSbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  sbx = await startTestSandbox({ eligibilityDelayMs: 300 });
  slowSbx = await startTestSandbox({ eligibilityDelayMs: 120_000 });
});
afterAll(async () => {
  await sbx.close();
  await slowSbx.close();
});
beforeEach(() => {
  tmp = tempDir();
  env = sbx.env(tmp.dir);
});
afterEach(() => tmp.cleanup());

const PATIENT = ['--first-name', 'Ana', '--last-name', 'Diaz', '--dob', '1980-04-02', '--provider-name', 'Sandbox Clinic', '--npi', '1234567893'];
const flags = (memberId: string, payer = '87726', patientId = 'MRN-E2E') => [...PATIENT, '--member-id', memberId, '--payer', payer, '--patient-id', patientId];

async function checkCount(s: TestSandbox = sbx): Promise<number> {
  const r = await sandboxRequest<unknown[]>(s, 'GET', '/eligibility?limit=1000');
  return r.data.length;
}

describe('eligibility check', () => {
  it('-q prints the id alone; the check exists on the service', async () => {
    const r = await runCli(['eligibility', 'check', ...flags('W1234'), '-q'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\n$/);
    expect(r.stderr).toBe('');
    const id = Number(r.stdout.trim());
    const got = await sandboxRequest<Array<{ id: number; customer_patient_id: string }>>(sbx, 'GET', `/eligibility/${id}`);
    expect(got.data[0]).toMatchObject({ id, customer_patient_id: 'MRN-E2E' });
  });

  it('--wait: active coverage completes with exit 0 and shows the coverage and costs', async () => {
    const r = await runCli(['eligibility', 'check', ...flags('W1234'), '--wait', '--interval', '0.5'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\tcompleted$/m);
    expect(r.stdout).toMatch(/^outcome\tsuccess$/m);
    expect(r.stdout).toMatch(/^coverage\.is_active_today\ttrue$/m);
    expect(r.stdout).toMatch(/^coverage\.plan_name\tUnitedHealthcare HMO Plan$/m);
    // The costs under numbered dotted keys, amounts as the service sent them; no section lines.
    expect(r.stdout).toMatch(/^coverage\.patient_costs\.0\.type\tdeductible$/m);
    expect(r.stdout).toMatch(/^coverage\.patient_costs\.0\.amount\t1500\.00$/m);
    expect(r.stdout).toMatch(/^coverage\.patient_costs\.0\.description\tAnnual deductible$/m);
    for (const line of r.stdout.trimEnd().split('\n')) expect(line).toMatch(/^[a-z_.0-9]+\t[^\t]*$/);
    // piped: no spinner or escape codes anywhere
    expect(r.stderr).not.toContain('\u001b');
  });

  it('--wait --fail-inactive: inactive coverage exits 3; not-supported exits 3; without the flag both exit 0', async () => {
    const inactive = await runCli(['eligibility', 'check', ...flags('W1230'), '--wait', '--interval', '0.5', '--fail-inactive'], { env });
    expect(inactive.code).toBe(3);
    expect(inactive.stdout).toMatch(/^coverage\.is_active_today\tfalse$/m);
    expect(inactive.stderr).toContain('coverage is not active today');
    const ns = await runCli(['eligibility', 'check', ...flags('NS777'), '--wait', '--interval', '0.5', '--fail-inactive', '-o', 'json'], { env });
    expect(ns.code).toBe(3);
    const body = JSON.parse(ns.stdout);
    expect(body[0]).toMatchObject({ status: 'completed', outcome: 'not-supported' });
    const ok = await runCli(['eligibility', 'check', ...flags('NS777'), '--wait', '--interval', '0.5'], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^outcome\tnot-supported$/m);
  });

  it('-q --wait still prints only the id', async () => {
    const r = await runCli(['eligibility', 'check', ...flags('W1234'), '--wait', '--interval', '0.5', '-q'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\n$/);
  });

  it('an unsupported payer prints the supported payers and exits 3; nothing is created', async () => {
    const before = await checkCount();
    const r = await runCli(['eligibility', 'check', ...flags('W1234', '99999')], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('does not support payer 99999');
    expect(r.stderr).toMatch(/87726\s+UnitedHealthcare/);
    expect(r.stderr).toMatch(/94134\s+Kaiser Permanente/);
    expect(r.stdout).toBe('');
    expect(await checkCount()).toBe(before);
    const j = await runCli(['eligibility', 'check', ...flags('W1234', '99999'), '-o', 'json'], { env });
    expect(j.code).toBe(3);
    const err = JSON.parse(j.stderr.trim().split('\n').at(-1)!);
    expect(err.error.code).toBe('unsupported_payer');
    expect(err.error.details.supported_payers.length).toBe(8);
  });

  it('local checks: bad flag values exit 2 naming the flag, bad body values exit 3 naming the field; nothing is sent', async () => {
    const before = await checkCount();
    const npi = await runCli(['eligibility', 'check', ...flags('W1'), '--npi', '1234567890'], { env });
    expect(npi.code).toBe(2);
    expect(npi.stderr).toContain('--npi');
    expect(npi.stderr).toContain('check digit');
    const dob = await runCli(['eligibility', 'check', ...flags('W1'), '--dob', '2999-01-01'], { env });
    expect(dob.code).toBe(2);
    expect(dob.stderr).toContain('--dob');
    expect(dob.stderr).toContain('future');
    const fake = await runCli(['eligibility', 'check', ...flags('W1'), '--dob', '1980-02-30'], { env });
    expect(fake.code).toBe(2);
    const body = JSON.parse(readFileSync('fixtures/eligibility-request.json', 'utf8'));
    body.patient.date_of_birth = '2999-12-31';
    const file = join(tmp.dir, 'bad.json');
    writeFileSync(file, JSON.stringify(body));
    const bad = await runCli(['eligibility', 'check', '--input', file], { env });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('patient.date_of_birth');
    expect(bad.stderr).toContain(file);
    expect(bad.stderr).not.toContain('2999-12-31');
    const missing = await runCli(['eligibility', 'check', '--first-name', 'Ana'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing --last-name, --dob, --member-id, --payer, --provider-name, --npi');
    expect(await checkCount()).toBe(before);
  });

  it('--input FILE and --input - submit the body; flags override its fields', async () => {
    const f = await runCli(['eligibility', 'check', '--input', 'fixtures/eligibility-request.json', '-o', 'json'], { env });
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(f.stdout)).toMatchObject({ status: 'in-progress', customer_patient_id: 'MRN-1001' });
    const s = await runCli(['eligibility', 'check', '--input', '-', '--patient-id', 'MRN-OVERRIDE', '-o', 'json'], {
      env,
      input: readFileSync('fixtures/eligibility-request.json', 'utf8'),
    });
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).customer_patient_id).toBe('MRN-OVERRIDE');
  });
});

describe('webhook secret', () => {
  it('comes from --webhook-secret-env or --webhook-secret-stdin, reaches the webhook, and is never printed', async () => {
    const SECRET = 'whsec_TOPSECRET_4711';
    const got: Array<{ auth?: string; body: string }> = [];
    const hook = createServer(async (req: IncomingMessage, res) => {
      let body = '';
      for await (const c of req) body += c;
      got.push({ auth: req.headers.authorization, body });
      res.end('ok');
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    try {
      const a = await runCli(['eligibility', 'check', ...flags('W1234'), '--webhook-url', url, '--webhook-secret-env', 'HOOK_SECRET', '--wait', '--interval', '0.5', '--debug', '-o', 'json'], {
        env: { ...env, HOOK_SECRET: SECRET },
      });
      expect(a.code, a.stderr).toBe(0);
      const b = await runCli(['eligibility', 'check', ...flags('W1234'), '--webhook-url', url, '--webhook-secret-stdin', '--debug'], { env, input: `${SECRET}\n` });
      expect(b.code, b.stderr).toBe(0);
      for (const r of [a, b]) {
        expect(r.stdout).not.toContain(SECRET);
        expect(r.stderr).not.toContain(SECRET);
      }
      const deadline = Date.now() + 10_000;
      while (got.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(got.length).toBeGreaterThanOrEqual(2);
      for (const g of got) expect(g.auth).toBe(`Bearer ${SECRET}`);
      // There is no flag that takes the secret itself.
      const plain = await runCli(['eligibility', 'check', ...flags('W1234'), '--webhook-url', url, '--webhook-secret', SECRET], { env });
      expect(plain.code).toBe(2);
      expect(plain.stderr).not.toContain(SECRET);
      const unset = await runCli(['eligibility', 'check', ...flags('W1234'), '--webhook-url', url, '--webhook-secret-env', 'NOPE_UNSET'], { env });
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain('NOPE_UNSET');
    } finally {
      await new Promise<void>((r) => hook.close(() => r()));
    }
  });
});

describe('eligibility watch', () => {
  it('several ids: exit 0 when all complete; a table of results', async () => {
    const ids: string[] = [];
    for (const m of ['W1231', 'W1232']) {
      const r = await runCli(['eligibility', 'check', ...flags(m), '-q'], { env });
      ids.push(r.stdout.trim());
    }
    const w = await runCli(['eligibility', 'watch', ...ids, '--interval', '0.5'], { env });
    expect(w.code, w.stderr).toBe(0);
    const lines = w.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toMatch(/^\d+\tcompleted\tsuccess\ttrue\t/);
  });

  it('gives up at --timeout with exit 124; the worst exit code wins across ids', async () => {
    const slowEnv = slowSbx.env(tmp.dir);
    const p = await runCli(['eligibility', 'check', ...flags('W1234'), '-q'], { env: slowEnv });
    const pending = p.stdout.trim();
    const started = Date.now();
    const t = await runCli(['eligibility', 'watch', pending, '--timeout', '1.5', '--interval', '0.5'], { env: slowEnv });
    expect(t.code).toBe(124);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(t.stderr).toContain(`check ${pending} is not completed`);
    expect(t.stdout).toMatch(/^status\tin-progress$/m);
    // --wait has the same timeout behaviour
    const w = await runCli(['eligibility', 'check', ...flags('W1234'), '--wait', '--timeout', '1', '--interval', '0.3'], { env: slowEnv });
    expect(w.code).toBe(124);
    // one unknown id (404 → 5) beside a completed one
    const done = (await runCli(['eligibility', 'check', ...flags('W1234'), '-q'], { env })).stdout.trim();
    const nf = await runCli(['eligibility', 'watch', done, '999999', '--interval', '0.5'], { env });
    expect(nf.code).toBe(5);
    // inactive + --fail-inactive (3) beside a completed active one (0) → 3
    const inactive = (await runCli(['eligibility', 'check', ...flags('W1230'), '-q'], { env })).stdout.trim();
    const fi = await runCli(['eligibility', 'watch', done, inactive, '--interval', '0.5', '--fail-inactive'], { env });
    expect(fi.code).toBe(3);
  });

  it('bad ids and flags are usage errors', async () => {
    expect((await runCli(['eligibility', 'watch', 'abc'], { env })).code).toBe(2);
    expect((await runCli(['eligibility', 'watch', '1', '--timeout', '0'], { env })).code).toBe(2);
    expect((await runCli(['eligibility', 'watch'], { env })).code).toBe(2);
  });
});

describe('eligibility list, get and payers', () => {
  it('list filters by patient and status; --limit is checked locally', async () => {
    await runCli(['eligibility', 'check', ...flags('W1234', '87726', 'MRN-LIST'), '-q'], { env });
    const l = await runCli(['eligibility', 'list', '--patient', 'MRN-LIST', '-o', 'json'], { env });
    expect(l.code).toBe(0);
    const arr = JSON.parse(l.stdout);
    expect(arr.length).toBe(1);
    expect(arr[0].customer_patient_id).toBe('MRN-LIST');
    const q = await runCli(['eligibility', 'list', '--limit', '2', '-q'], { env });
    expect(q.stdout.trim().split('\n')).toHaveLength(2);
    for (const bad of ['0', '1001', 'ten']) {
      const r = await runCli(['eligibility', 'list', '--limit', bad], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--limit');
    }
    expect((await runCli(['eligibility', 'list', '--status', 'done'], { env })).code).toBe(2);
  });

  it('get: 404 exits 5; -o json prints the service body (an array)', async () => {
    const nf = await runCli(['eligibility', 'get', '999999'], { env });
    expect(nf.code).toBe(5);
    const id = (await runCli(['eligibility', 'check', ...flags('W1234'), '-q'], { env })).stdout.trim();
    const j = await runCli(['eligibility', 'get', id, '-o', 'json'], { env });
    expect(j.code).toBe(0);
    expect(Array.isArray(JSON.parse(j.stdout))).toBe(true);
  });

  it('payers: without a cache, the documented list (nothing sent); --probe learns it from the service and caches it in the profile', async () => {
    const cfgEnv = { ...env };
    delete (cfgEnv as Record<string, string | undefined>).OUTREACH_API_KEY;
    delete (cfgEnv as Record<string, string | undefined>).OUTREACH_BASE_URL;
    const login = await runCli(['login', '--with-key', '--profile', 'sbx', '--base-url', sbx.baseUrl], { env: cfgEnv, input: `${sbx.key}\n` });
    expect(login.code, login.stderr).toBe(0);
    const before = await checkCount();
    const documented = await runCli(['eligibility', 'payers'], { env: cfgEnv });
    expect(documented.code, documented.stderr).toBe(0);
    expect(documented.stdout.trim().split('\n')).toHaveLength(8);
    expect(documented.stderr).toContain("from the service's public documentation, not confirmed by the service");
    const first = await runCli(['eligibility', 'payers', '--probe'], { env: cfgEnv });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^87726\tUnitedHealthcare\t$/m);
    expect(first.stdout).toMatch(/^39026\tUMR\tUnitedHealthcare$/m);
    expect(first.stderr).toContain('made-up payer id');
    expect(first.stderr).toContain("learned from the service's 400 answer");
    expect(first.stderr).toContain('cached in profile "sbx"');
    expect(await checkCount()).toBe(before); // the probe created nothing
    const cfg = JSON.parse(readFileSync(join(tmp.dir, 'config.json'), 'utf8'));
    expect(cfg.profiles.sbx.payersCache.payers.length).toBe(21);
    const second = await runCli(['eligibility', 'payers', '-o', 'json'], { env: cfgEnv });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)[0]).toEqual({ payer_id: '87726', name: 'UnitedHealthcare', source: 'service', learned_at: cfg.profiles.sbx.payersCache.fetchedAt });
    expect(second.stderr).toContain('as the service listed them at');
  });
});
