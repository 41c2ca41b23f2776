// Hints where people get stuck (issue 13, point 4): a base URL without /v1, a stopped sandbox, a
// refused key named by where it came from. Each against a small server or a closed port.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, runCli, tempDir } from '../helpers/cli.js';
import { json, startFaultServer, type Behaviour, type FaultServer } from '../helpers/faultServer.js';

const KEY = 'sk_test_hints_KEY1';
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
beforeEach(() => {
  tmp = tempDir('outreach-hints-');
  env = baseEnv(tmp.dir);
});
afterEach(() => tmp.cleanup());

/** A service mounted at /v1 only: anything else is the 404 of a missing route. */
const mountedAtV1 =
  (opts: { acceptKeyOnlyFor?: string } = {}): Behaviour =>
  (req, res) => {
    if (!req.url?.startsWith('/v1/')) return json(404, { message: `No route ${req.method} ${req.url?.split('?')[0]}`, statusCode: 404 })(req, res, '');
    // The key is accepted for login's check (/v1/eligibility) but refused elsewhere when asked.
    const refused = req.headers.authorization !== `Bearer ${KEY}` || (opts.acceptKeyOnlyFor && !req.url.startsWith(opts.acceptKeyOnlyFor));
    if (refused) return json(401, { message: 'Invalid API key', statusCode: 401 })(req, res, '');
    return json(200, [])(req, res, '');
  };

describe('a base URL without /v1', () => {
  let server: FaultServer;
  let root: string;
  beforeAll(async () => {
    server = await startFaultServer(mountedAtV1());
    root = server.url.replace(/\/v1$/, '');
  });
  afterAll(() => server.close());

  it('from --base-url: "Did you mean --base-url …/v1?"', async () => {
    const r = await runCli(['calls', 'list', '--base-url', root], { env: { ...env, OUTREACH_API_KEY: KEY } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`Did you mean --base-url ${root}/v1?`);
  });

  it('from OUTREACH_BASE_URL: the variable with the fix', async () => {
    const r = await runCli(['calls', 'list'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: `${root}/` } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`Did you mean OUTREACH_BASE_URL=${root}/v1?`);
  });

  it("login's own check against that URL gives the same hint", async () => {
    const login = await runCli(['login', '--with-key', '--profile', 'clinic', '--base-url', root], { env, input: `${KEY}\n` });
    expect(login.code).toBe(5);
    expect(login.stderr).toContain(`Did you mean --base-url ${root}/v1?`);
  });

  it('from a stored profile: log in again with the right URL', async () => {
    // A service that answers login's check at the root (a proxy routing only some paths), so that a
    // profile without /v1 gets stored.
    const partial = await startFaultServer((req, res) =>
      req.url?.startsWith('/eligibility') ? json(200, [])(req, res, '') : json(404, { message: 'No route' })(req, res, ''),
    );
    try {
      const base = partial.url.replace(/\/v1$/, '');
      const login = await runCli(['login', '--with-key', '--profile', 'clinic', '--base-url', base], { env, input: `${KEY}\n` });
      expect(login.code, login.stderr).toBe(0);
      const r = await runCli(['calls', 'list', '--profile', 'clinic'], { env });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain(`It is stored in profile "clinic": fix it with \`outreach login --profile clinic --base-url ${base}/v1\``);
    } finally {
      await partial.close();
    }
  });

  it('a 404 from a base URL with /v1 has no such hint', async () => {
    const notFound = await startFaultServer(json(404, { message: 'Call 5 not found' }));
    try {
      const r = await runCli(['calls', 'get', '5'], { env: { ...env, OUTREACH_API_KEY: KEY, OUTREACH_BASE_URL: notFound.url } });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('Call 5 not found');
      expect(r.stderr).not.toContain('Did you mean');
    } finally {
      await notFound.close();
    }
  });
});

describe('a refused key names where it came from', () => {
  let server: FaultServer;
  beforeAll(async () => {
    server = await startFaultServer(mountedAtV1({ acceptKeyOnlyFor: '/v1/eligibility' }));
  });
  afterAll(() => server.close());

  it('OUTREACH_API_KEY: fix or unset the variable (never "set OUTREACH_API_KEY" alone)', async () => {
    const r = await runCli(['calls', 'list'], { env: { ...env, OUTREACH_API_KEY: 'sk_wrong_key_0000', OUTREACH_BASE_URL: server.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('it came from OUTREACH_API_KEY');
    expect(r.stderr).toContain('Set OUTREACH_API_KEY to a valid key, or unset it');
    expect(r.stderr).not.toContain('sk_wrong_key_0000');
  });

  it('a stored profile: its name, the config file and `outreach login --profile NAME`', async () => {
    const login = await runCli(['login', '--with-key', '--profile', 'clinic', '--base-url', server.url], { env, input: `${KEY}\n` });
    expect(login.code, login.stderr).toBe(0);
    const r = await runCli(['calls', 'list', '--profile', 'clinic'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('it is stored in profile "clinic"');
    expect(r.stderr).toContain(tmp.dir);
    expect(r.stderr).toContain('`outreach login --profile clinic`');
    expect(r.stderr).not.toContain(KEY);
  });

  it('login with a refused key says nothing was stored, not where a stored key came from', async () => {
    const r = await runCli(['login', '--with-key', '--base-url', server.url], { env: { ...env, OUTREACH_API_KEY: 'sk_env_key_1111' }, input: 'sk_bad_key_2222\n' });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('refused this API key (401); nothing was stored');
    expect(r.stderr).not.toContain('OUTREACH_API_KEY');
    const status = await runCli(['profiles', 'list', '-o', 'json'], { env });
    expect(status.stdout).not.toContain('sk_bad');
  });
});

describe('a refused connection on this machine', () => {
  async function closedPort(): Promise<number> {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  }

  it('suggests starting the sandbox on that port in another terminal', async () => {
    const port = await closedPort();
    for (const host of ['127.0.0.1', 'localhost']) {
      const r = await runCli(['health', '--base-url', `http://${host}:${port}/v1`], { env });
      expect(r.code).toBe(6);
      expect(r.stderr).toContain('refused the connection');
      expect(r.stderr).toContain(`start it in another terminal:\n  outreach sandbox --port ${port}\n`);
    }
  });
});
