// The built CLI end to end: exit codes, stdout/stderr, the stored config file, and that the API key
// never shows in any output.
import { readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { json, requireKey, startFaultServer, text, type FaultServer } from '../helpers/faultServer.js';

const KEY = 'sk_test_supersecret_KEY9';
let server: FaultServer;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startFaultServer(requireKey(KEY, [{ id: 1, status: 'completed' }]));
});
afterAll(() => server.close());
beforeEach(() => {
  tmp = tempDir();
  env = baseEnv(tmp.dir);
});
afterEach(() => tmp.cleanup());

function noKeyIn(r: RunResult) {
  expect(r.stdout).not.toContain(KEY);
  expect(r.stderr).not.toContain(KEY);
}

describe('program', () => {
  it('--version and --help exit 0', async () => {
    // bin/outreach.js answers --version itself, without loading the CLI: spawned to run that path.
    const v = await runCli(['--version'], { env, spawn: true });
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const h = await runCli(['--help'], { env });
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Usage: outreach');
    expect(h.stdout).toContain('health');
  });

  it('every command has help with an example', async () => {
    for (const cmd of [['login'], ['logout'], ['auth', 'status'], ['profiles', 'list'], ['profiles', 'use'], ['health'], ['api'], ['completion']]) {
      const r = await runCli([...cmd, '--help'], { env });
      expect(r.code, cmd.join(' ')).toBe(0);
      expect(r.stdout, cmd.join(' ')).toContain('Examples:');
    }
  });

  it('an unknown command exits 2 with a suggestion', async () => {
    const r = await runCli(['helth'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'helth'");
    expect(r.stderr).toContain('Did you mean health?');
  });

  it('bad global options exit 2', async () => {
    const t = await runCli(['health', '--request-timeout', 'abc', '--base-url', server.url], { env });
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('--request-timeout "abc"');
    const o = await runCli(['health', '-o', 'xml', '--base-url', server.url], { env });
    expect(o.code).toBe(2);
    expect(o.stderr).toContain('Unknown output format "xml"');
    const u = await runCli(['health', '--base-url', 'not-a-url'], { env });
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('Invalid base URL from --base-url');
  });
});

describe('health and errors from the service', () => {
  it('health prints the status; -o json prints the body', async () => {
    const r = await runCli(['health', '--base-url', server.url], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/status\tok/);
    const j = await runCli(['health', '--base-url', server.url, '-o', 'json'], { env });
    expect(JSON.parse(j.stdout)).toEqual({ status: 'ok' });
  });

  it('no key anywhere: exit 4 saying how to log in', async () => {
    const r = await runCli(['api', 'GET', '/call', '--base-url', server.url], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('No API key found');
    expect(r.stderr).toContain('outreach login');
    expect(r.stderr).toContain('OUTREACH_API_KEY');
  });

  it('a rejected key: exit 4', async () => {
    const r = await runCli(['api', 'GET', '/call'], { env: { ...env, OUTREACH_API_KEY: 'wrong-key', OUTREACH_BASE_URL: server.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Invalid API key');
  });

  it('with -o json, the error is one JSON object on stderr', async () => {
    const r = await runCli(['api', 'GET', '/call', '-o', 'json'], { env: { ...env, OUTREACH_API_KEY: 'wrong-key', OUTREACH_BASE_URL: server.url } });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'http_401', status: 401, message: expect.any(String) } });
    expect(r.stdout).toBe('');
  });

  it('unreachable host: exit 6 naming the host, after the retries', async () => {
    const r = await runCli(['health', '--base-url', 'http://127.0.0.1:9/v1'], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('127.0.0.1:9');
    expect(r.stderr).toContain('after 4 attempts');
  });

  it('a non-JSON body: exit 1 with the status', async () => {
    const bad = await startFaultServer(text(200, '<html>captive portal</html>'));
    try {
      const r = await runCli(['api', 'GET', '/call'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: bad.url } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/status 200/);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    } finally {
      await bad.close();
    }
  });

  it('--debug traces requests with the key redacted', async () => {
    const r = await runCli(['api', 'GET', '/call', '--debug', '--query', 'customer_patient_id=MRN-1'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: server.url } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('[debug] → GET');
    expect(r.stderr).not.toContain('MRN-1');
    noKeyIn(r);
  });
});

describe('login, profiles and auth status', () => {
  it('login --with-key checks the key, stores it mode 0600 and never prints it', async () => {
    const r = await runCli(['login', '--with-key', '--base-url', server.url, '--profile', 'work'], { env, input: `${KEY}\n` });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in');
    expect(r.stderr).toContain('****KEY9');
    noKeyIn(r);
    const file = join(tmp.dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.activeProfile).toBe('work');
    expect(stored.profiles.work).toMatchObject({ baseUrl: server.url, apiKey: KEY });

    const status = await runCli(['auth', 'status'], { env });
    expect(status.code).toBe(0);
    // Piped: each field on its own line under its JSON name.
    expect(status.stdout).toContain('key\t****KEY9\nkey_source\tconfig file\n');
    expect(status.stdout).toMatch(/^key_accepted\ttrue$/m);
    noKeyIn(status);

    const call = await runCli(['api', 'GET', '/call', '--debug'], { env });
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual([{ id: 1, status: 'completed' }]);
    noKeyIn(call);
  });

  it('a rejected key is not stored (exit 4)', async () => {
    const r = await runCli(['login', '--with-key', '--base-url', server.url], { env, input: 'bad-key\n' });
    expect(r.code).toBe(4);
    const list = await runCli(['profiles', 'list', '-o', 'json'], { env });
    expect(JSON.parse(list.stdout)).toEqual([]);
  });

  it('login --with-key with empty stdin exits 2', async () => {
    const r = await runCli(['login', '--with-key', '--base-url', server.url], { env, input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('stdin was empty');
  });

  it('login without a terminal or --with-key exits 2 naming --with-key', async () => {
    const r = await runCli(['login', '--base-url', server.url], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--with-key');
  });

  it('several profiles, switching, OUTREACH_PROFILE, logout', async () => {
    await runCli(['login', '--with-key', '--base-url', server.url, '--profile', 'a'], { env, input: KEY });
    await runCli(['login', '--with-key', '--base-url', server.url, '--profile', 'b'], { env, input: KEY });
    let list = JSON.parse((await runCli(['profiles', 'list', '-o', 'json'], { env })).stdout);
    expect(list.map((p: { name: string; active: boolean }) => [p.name, p.active])).toEqual([['a', true], ['b', false]]);
    expect(JSON.stringify(list)).not.toContain(KEY);
    expect((await runCli(['profiles', 'use', 'b'], { env })).code).toBe(0);
    list = JSON.parse((await runCli(['profiles', 'list', '-o', 'json'], { env })).stdout);
    expect(list.find((p: { active: boolean }) => p.active).name).toBe('b');
    const unknown = await runCli(['profiles', 'use', 'zzz'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Stored profiles: a, b');
    const viaEnv = await runCli(['auth', 'status', '-o', 'json'], { env: { ...env, OUTREACH_PROFILE: 'a' } });
    expect(JSON.parse(viaEnv.stdout).profile).toBe('a');
    expect((await runCli(['logout', '--profile', 'a'], { env })).code).toBe(0);
    expect((await runCli(['logout', '--all'], { env })).code).toBe(0);
    list = JSON.parse((await runCli(['profiles', 'list', '-o', 'json'], { env })).stdout);
    expect(list).toEqual([]);
  });

  it('auth status with the key from the environment says so, masked', async () => {
    const r = await runCli(['auth', 'status', '-o', 'json'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: server.url } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ key: '****KEY9', key_source: 'env OUTREACH_API_KEY', key_accepted: true, base_url_source: 'env' });
    noKeyIn(r);
  });

  it('a corrupt config file is reported by name, exit 2, and left untouched', async () => {
    const file = join(tmp.dir, 'config.json');
    writeFileSync(file, '{"profiles": {', { mode: 0o600 });
    const r = await runCli(['profiles', 'list'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain('not valid JSON');
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {');
    const login = await runCli(['login', '--with-key', '--base-url', server.url], { env, input: KEY });
    expect(login.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {');
  });

  // Root reads everything, so the case cannot happen there (the corrupt-file case covers the path).
  it.skipIf(process.getuid?.() === 0)('an unreadable config file is reported by name', async () => {
    const file = join(tmp.dir, 'config.json');
    writeFileSync(file, '{}');
    chmodSync(file, 0o000);
    const r = await runCli(['profiles', 'list'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
  });
});

describe('api and completion', () => {
  it('api sends --data and --query; bad JSON in --data exits 2 with the position', async () => {
    const echo = await startFaultServer(json(201, { created: true }));
    try {
      const ok = await runCli(['api', 'post', '/tool/t1', '--data', '{"async": true}', '--query', 'x=1'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: echo.url } });
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.stdout)).toEqual({ created: true });
      expect(echo.requests[0]).toMatchObject({ method: 'POST', url: '/v1/tool/t1?x=1', body: '{"async":true}' });
      const bad = await runCli(['api', 'POST', '/tool/t1', '--data', '{"async": tru}'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: echo.url } });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('line 1, column 11');
      expect(echo.requests).toHaveLength(1);
      const verb = await runCli(['api', 'FETCH', '/x'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: echo.url } });
      expect(verb.code).toBe(2);
    } finally {
      await echo.close();
    }
  });

  it.each(['bash', 'zsh', 'fish'])('completion %s lists the commands', async (shell) => {
    const r = await runCli(['completion', shell], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('health');
    expect(r.stdout).toContain('profiles');
    expect(r.stdout).toContain('status');
  });

  it('completion for an unknown shell exits 2', async () => {
    const r = await runCli(['completion', 'tcsh'], { env });
    expect(r.code).toBe(2);
  });
});
