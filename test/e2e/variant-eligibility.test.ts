// Eligibility and the other writes against the variant server (a second reading of API.md): watch
// stops on a status it does not know, `payers` creates nothing unless --probe, and a write whose
// fate is unknown (a gateway's 502 after the service acted, a 5xx) is said to be unknown — never
// "not created" — and a bulk re-run never sends such a row again by itself.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, runCli, tempDir } from '../helpers/cli.js';
import { virtualClock } from '../helpers/clock.js';
import { actThenPage, json, NGINX_502, startVariantServer, text, variantEnv, type Handler, type VariantServer } from '../helpers/variantServer.js';

let server: VariantServer;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeEach(async () => {
  server = await startVariantServer();
  tmp = tempDir();
  env = variantEnv(server, baseEnv(tmp.dir));
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});

const FLAGS = ['--first-name', 'Ana', '--last-name', 'Diaz', '--dob', '1980-04-02', '--member-id', 'W1234', '--patient-id', 'MRN-V', '--payer', '87726', '--provider-name', 'Clinic', '--npi', '1234567893'];

function addCheck(id: number, patient = `MRN-${id}`): void {
  server.store.checks.push({ id, status: 'queued', created_at: new Date().toISOString(), customer_patient_id: patient, reads: 0 });
}

const posts = () => server.requests.filter((r) => r.method === 'POST');
const eligibilityPosts = () => posts().filter((r) => r.url.split('?')[0]!.endsWith('/eligibility'));

function csvOf(prefix: string, n: number, payer = (_i: number) => '87726'): string {
  const lines = ['customer_patient_id,first_name,last_name,date_of_birth,member_id,payer_id,provider_name,npi'];
  for (let i = 1; i <= n; i++) lines.push(`${prefix}-${i},Pat${i},Test,1980-01-${String(i + 1).padStart(2, '0')},W${1000 + i}1,${payer(i)},Clinic,1234567893`);
  return lines.join('\n') + '\n';
}

function results(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

describe('watch stops on a status it does not know', () => {
  it('eligibility watch: "failed" ends the watch at once with exit 1, naming the status, and prints the record', async () => {
    server.set({ eligibilityStatuses: ['in-progress', 'failed'] });
    addCheck(12);
    const t0 = Date.now();
    const r = await runCli(['eligibility', 'watch', '12', '--interval', '0.1', '--timeout', '30'], { env, timeoutMs: 45_000 });
    const elapsed = Date.now() - t0;
    expect(r.code, r.stderr).toBe(1);
    expect(elapsed).toBeLessThan(15_000); // broken code polls until --timeout (30 s), then exits 124
    expect(r.stderr).toContain('check 12 has status "failed", which this version does not know; it is not waiting any more');
    expect(r.stdout).toMatch(/^status\tfailed$/m);
    // -o json prints the service's record as it does for completed ones
    addCheck(13);
    const j = await runCli(['eligibility', 'watch', '13', '--interval', '0.1', '--timeout', '30', '-o', 'json'], { env, timeoutMs: 45_000 });
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ id: 13, status: 'failed' });
  });

  it('several ids: a completed one and one in an unknown status print both; the worst exit code wins', async () => {
    server.set({ eligibilityStatuses: ['in-progress', 'cancelled'] });
    addCheck(20);
    addCheck(21);
    server.override('GET', /\/eligibility\/20$/, json(200, { id: 20, status: 'completed', outcome: 'success', created_at: '2026-11-20T10:00:00.000Z', coverage: { is_active_today: false } }), Infinity);
    const r = await runCli(['eligibility', 'watch', '20', '21', '--interval', '0.1', '--timeout', '30', '-o', 'json'], { env, timeoutMs: 45_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout).map((c: { id: number; status: string }) => [c.id, c.status])).toEqual([[20, 'completed'], [21, 'cancelled']]);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'unknown_status', message: expect.stringContaining('check 21 has status "cancelled"') });
    // --fail-inactive on the completed one (3) beats the unknown status (1)
    const worse = await runCli(['eligibility', 'watch', '20', '21', '--interval', '0.1', '--timeout', '30', '--fail-inactive'], { env, timeoutMs: 45_000 });
    expect(worse.code).toBe(3);
    expect(worse.stderr).toContain('check 20: coverage is not active today');
    expect(worse.stderr).toContain('check 21 has status "cancelled"');
  });

  it('eligibility check --wait stops the same way', async () => {
    server.set({ eligibilityStatuses: ['in-progress', 'error'] });
    const t0 = Date.now();
    const r = await runCli(['eligibility', 'check', ...FLAGS, '--wait', '--interval', '0.1', '--timeout', '30'], { env, timeoutMs: 45_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.stderr).toMatch(/check 100 has status "error", which this version does not know; it is not waiting any more/);
    expect(r.stdout).toMatch(/^status\terror$/m);
  });

  it('check --csv --wait does not wait on such a status: the row says it, exit 1', async () => {
    server.set({ eligibilityStatuses: ['in-progress', 'failed'] });
    const csv = join(tmp.dir, 'w.csv');
    writeFileSync(csv, csvOf('W', 2));
    const out = join(tmp.dir, 'w.ndjson');
    const t0 = Date.now();
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--wait', '--interval', '0.1', '--timeout', '30'], { env, timeoutMs: 45_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(Date.now() - t0).toBeLessThan(15_000);
    const rows = results(out);
    expect(rows.map((x) => [x.result, x.status])).toEqual([['accepted', 'failed'], ['accepted', 'failed']]);
    expect(String(rows[0]!.error)).toContain('status "failed", which this version does not know');
    expect(r.stderr).toContain('2 checks have a status this version does not know');
  });
});

describe('eligibility payers', () => {
  it('without a cached list: the eight payers of the public documentation, labelled, and no request that could create', async () => {
    const r = await runCli(['eligibility', 'payers'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(posts()).toHaveLength(0);
    expect(r.stderr).toContain("from the service's public documentation, not confirmed by the service");
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('87726\tUnitedHealthcare\t');
    expect(lines.map((l) => l.split('\t')[1])).toEqual(['UnitedHealthcare', 'Aetna', 'Cigna', 'Oscar Health', 'Oxford', 'Humana', 'Medica', 'Kaiser Permanente']);
    expect(lines.slice(1).every((l) => l.startsWith('\t'))).toBe(true); // ids not documented: blank
    const j = await runCli(['eligibility', 'payers', '-o', 'json'], { env });
    const arr = JSON.parse(j.stdout);
    expect(arr).toHaveLength(8);
    expect(arr[0]).toMatchObject({ payer_id: '87726', name: 'UnitedHealthcare', source: 'documentation' });
    expect(arr[1]).toMatchObject({ payer_id: null, name: 'Aetna', source: 'documentation' });
    const q = await runCli(['eligibility', 'payers', '-q'], { env });
    expect(q.stdout).toBe('87726\n');
    expect(posts()).toHaveLength(0);
  });

  it('--probe says what it sends, lists what the 400 answer lists and caches it in the profile', async () => {
    const cfgEnv = { ...baseEnv(tmp.dir) };
    const login = await runCli(['login', '--with-key', '--profile', 'v', '--base-url', server.url], { env: cfgEnv, input: `${server.key}\n` });
    expect(login.code, login.stderr).toBe(0);
    const r = await runCli(['eligibility', 'payers', '--probe'], { env: cfgEnv });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/made-up payer id OUTREACH-CLI-PAYER-PROBE/);
    expect(r.stdout).toMatch(/^87726\tUnitedHealthcare\t$/m);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('cached in profile "v"');
    expect(eligibilityPosts()).toHaveLength(1);
    expect(server.store.checks).toHaveLength(0);
    const cfg = JSON.parse(readFileSync(join(tmp.dir, 'config.json'), 'utf8'));
    expect(cfg.profiles.v.payersCache.payers).toEqual([{ payer_id: '87726', name: 'UnitedHealthcare' }]);
    // then the cache is used, and nothing is sent
    const again = await runCli(['eligibility', 'payers', '-o', 'json'], { env: cfgEnv });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([{ payer_id: '87726', name: 'UnitedHealthcare', source: 'service', learned_at: cfg.profiles.v.payersCache.fetchedAt }]);
    expect(again.stderr).toContain('as the service listed them at');
    expect(eligibilityPosts()).toHaveLength(1);
  });

  it('--probe against a service that accepts any payer: says loudly that a check was created, exit 1', async () => {
    server.override('POST', /\/eligibility$/, json(200, { id: 5, status: 'in-progress' }));
    const r = await runCli(['eligibility', 'payers', '--probe'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ACCEPTED/);
    expect(r.stderr).toContain('created eligibility check 5');
    expect(r.stdout).toBe('');
  });

  it('--refresh is kept as a hidden alias of --probe', async () => {
    const r = await runCli(['eligibility', 'payers', '--refresh'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(eligibilityPosts()).toHaveLength(1);
    const help = await runCli(['eligibility', 'payers', '--help'], { env });
    expect(help.stdout).toContain('--probe');
    expect(help.stdout).not.toContain('--refresh');
  });
});

describe('eligibility check --csv: fates read with fateOf', () => {
  it('a 502 page after the service acted: the row is unknown (exit 7); the re-run finds it and sends nothing', async () => {
    server.override('POST', /\/eligibility$/, actThenPage(() => server));
    const csv = join(tmp.dir, 'g.csv');
    writeFileSync(csv, csvOf('G', 3));
    const out = join(tmp.dir, 'g.ndjson');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', '1'], { env });
    expect(r.code, r.stderr).toBe(7);
    const rows = results(out);
    expect(rows.map((x) => x.result)).toEqual(['unknown', 'accepted', 'accepted']);
    expect(String(rows[0]!.error)).toContain('may or may not have created');
    expect(String(rows[0]!.error)).toContain('HTML page');
    expect(server.store.checks).toHaveLength(3); // the service did create it
    const before = eligibilityPosts().length;
    const again = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(eligibilityPosts().length).toBe(before);
    expect(results(out).map((x) => x.result)).toEqual(['already-submitted', 'already-submitted', 'already-submitted']);
    expect(server.store.checks).toHaveLength(3);
  });

  it('a 5xx that did not act: unknown, and the re-run still does not send it; --resend-unknown does', async () => {
    server.override('POST', /\/eligibility$/, text(502, NGINX_502));
    const csv = join(tmp.dir, 'u.csv');
    writeFileSync(csv, csvOf('U', 2));
    const out = join(tmp.dir, 'u.ndjson');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', '1'], { env });
    expect(r.code, r.stderr).toBe(7);
    expect(results(out).map((x) => x.result)).toEqual(['unknown', 'accepted']);
    expect(eligibilityPosts()).toHaveLength(2);
    const again = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env });
    expect(again.code).toBe(7);
    expect(eligibilityPosts()).toHaveLength(2); // not sent again
    expect(results(out).map((x) => x.result)).toEqual(['unknown', 'already-submitted']);
    expect(again.stderr).toContain('--resend-unknown');
    expect(again.stderr).toContain('line 2');
    const resend = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--resend-unknown'], { env });
    expect(resend.code, resend.stderr).toBe(0);
    expect(eligibilityPosts()).toHaveLength(3);
    expect(results(out).map((x) => x.result)).toEqual(['accepted', 'already-submitted']);
  });

  it('a service failing every submit: stops sending after 3 unknown fates in a row; the rest are not-sent (exit 7)', async () => {
    server.override('POST', /\/eligibility$/, text(502, NGINX_502), Infinity);
    const csv = join(tmp.dir, 'f.csv');
    writeFileSync(csv, csvOf('F', 8));
    const out = join(tmp.dir, 'f.ndjson');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', '1'], { env });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('Stopped sending after 3 submissions in a row whose fate is unknown');
    expect(eligibilityPosts()).toHaveLength(3);
    expect(results(out).map((x) => x.result)).toEqual([...Array(3).fill('unknown'), ...Array(5).fill('not-sent')]);
  });

  it('a rejected row carries the service\'s message (exit 3) and is not unknown', async () => {
    const csv = join(tmp.dir, 'r.csv');
    writeFileSync(csv, csvOf('R', 2, (i) => (i === 2 ? '11111' : '87726')));
    const out = join(tmp.dir, 'r.ndjson');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env });
    expect(r.code, r.stderr).toBe(3);
    const rows = results(out);
    expect(rows.map((x) => x.result)).toEqual(['accepted', 'rejected']);
    expect(String(rows[1]!.error)).toContain('Payer 11111 is not supported');
  });

  it("rows the service rejects are listed by file line with its reason, inert and on one line; the breakdown counts them", async () => {
    const csv = join(tmp.dir, 'rj.csv');
    writeFileSync(csv, csvOf('RJ', 3));
    const reason = `member not found\n\x1b[2Jat this payer ${'(details) '.repeat(40)}`;
    server.override('POST', /\/eligibility$/, json(422, { message: reason, statusCode: 422 }));
    server.override('POST', /\/eligibility$/, json(400, { message: 'Payer 87726 is paused', statusCode: 400 }));
    const out = join(tmp.dir, 'rj.ndjson');
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', '1'], { env });
    expect(r.code, r.stderr).toBe(3);
    expect(results(out).map((x) => x.result)).toEqual(['rejected', 'rejected', 'accepted']);
    const report = r.stderr.slice(r.stderr.indexOf('2 rows were rejected by the service:'));
    const [, first, second] = report.split('\n');
    // (the line break and the escape shown, not acting)
    expect(first).toMatch(/^ {2}line 2: member not found ?\\n\\e\[2Jat this payer \(details\)/);
    expect(first!.length).toBeLessThan(200); // clipped, one line
    expect(first).toContain('…');
    expect(second).toMatch(/^ {2}line 3: Payer 87726 is paused/);
    expect(r.stderr).not.toContain('\x1b[2J');
    expect(r.stderr).toContain('3 rows: 1 submitted, 2 rejected by the service.');
    expect(r.stderr).toContain('error: 2 rows were not submitted: 2 rejected by the service (listed above).');
  });

  it('a 429 with Retry-After slows the run down for as long as the service asked', async () => {
    // Times on the run's (virtual) clock: the pause is waited there, at no real cost.
    const clock = virtualClock();
    const times: number[] = [];
    const stamp = (h: Handler): Handler => (req, res, body) => {
      times.push(clock.now());
      return h(req, res, body);
    };
    server.override('POST', /\/eligibility$/, stamp(json(429, { message: 'slow down', statusCode: 429 }, { 'retry-after': '2' })));
    server.override('POST', /\/eligibility$/, stamp(json(200, { id: 7, status: 'in-progress', created_at: '2026-11-20T10:00:00.000Z', customer_patient_id: 'RA-1' })));
    const csv = join(tmp.dir, 'ra.csv');
    writeFileSync(csv, csvOf('RA', 1));
    const r = await runCli(['eligibility', 'check', '--csv', csv, '--concurrency', '1'], { env, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(times).toHaveLength(2);
    // Without Retry-After the pause is 0.5 s.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1_900);
    expect(r.stderr).toContain('asked to slow down 1 time.');
  });
});

describe('other writes whose fate is unknown', () => {
  it('eligibility check answered by a 502 page after acting: says it may have been created, exit 1', async () => {
    server.override('POST', /\/eligibility$/, actThenPage(() => server));
    const r = await runCli(['eligibility', 'check', ...FLAGS], { env });
    expect(r.code).toBe(1);
    expect(server.store.checks).toHaveLength(1);
    expect(r.stderr).toContain('The eligibility check may have been created');
    expect(r.stderr).toContain('outreach eligibility list --patient');
    expect(r.stderr).not.toContain('MRN-V'); // no patient identifiers in messages
  });

  it('calls delete answered by a 502 page: says it may or may not be deleted, exit 1', async () => {
    server.override('DELETE', /\/call\/1$/, text(502, NGINX_502), Infinity);
    const r = await runCli(['calls', 'delete', '1', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^1\tunknown\t.*may or may not have deleted it/m);
    expect(r.stderr).toContain('may or may not have been deleted');
    expect(r.stderr).not.toMatch(/not deleted/);
    expect(r.stderr).toContain('outreach calls get 1');
  });

  it('assistants create answered by a 502 page after acting: says it may have been created, exit 1', async () => {
    server.override('POST', /\/assistant$/, actThenPage(() => server));
    const r = await runCli(['assistants', 'create', '--name', 'Reminder line'], { env });
    expect(r.code).toBe(1);
    expect(server.store.assistants).toHaveLength(1);
    expect(r.stderr).toContain('The assistant may have been created');
    expect(r.stderr).not.toContain('not created');
    expect(r.stderr).toMatch(/before running create again/);
  });

  it('assistants patch and tools patch answered by a 5xx: may or may not have been applied, exit 1', async () => {
    server.store.assistants.push({ id: 3, name: 'A' });
    server.override('PATCH', /\/assistant\/3$/, json(500, { error: 500, message: 'internal error' }));
    const a = await runCli(['assistants', 'patch', '3', '--first-message', 'Hello'], { env });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('may or may not have been applied');
    expect(a.stderr).not.toContain('not updated');
    server.override('PATCH', /\/tool\//, text(502, NGINX_502));
    const t = await runCli(['tools', 'patch', 'tool-1', '--async'], { env });
    expect(t.code).toBe(1);
    expect(t.stderr).toContain('may or may not have been applied');
    expect(t.stderr).toContain('same command again');
  });
});
