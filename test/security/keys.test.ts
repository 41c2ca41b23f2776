// A stored key is sent only to the origin its profile logged in to (CLI.md, Global options).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileStore } from '../../src/config/profiles.js';
import { requireKey, resolveSettings } from '../../src/config/settings.js';
import { baseEnv, runCli, tempDir } from '../helpers/cli.js';

const fakeStore = (profiles: Record<string, { baseUrl?: string; apiKey?: string }>, active?: string) => async () =>
  ({ activeName: active, get: (n: string) => profiles[n], profiles: () => profiles }) as unknown as ProfileStore;

describe('resolveSettings: a stored key stays with its origin', () => {
  const store = fakeStore({ p: { baseUrl: 'https://api.example.org/v1', apiKey: 'sk_stored_secret' } }, 'p');

  it('withholds the key from another host, port or scheme and refuses with exit 4', async () => {
    for (const url of ['https://evil.example/v1', 'https://api.example.org:8443/v1', 'http://api.example.org/v1']) {
      const s = await resolveSettings({ baseUrl: url }, {}, store);
      expect(s.apiKey).toBeUndefined();
      let thrown: unknown;
      try {
        requireKey(s);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toMatchObject({ exitCode: 4 });
      const message = String((thrown as Error).message);
      expect(message).toContain('"p"');
      expect(message).toContain('https://api.example.org');
      expect(message).not.toContain('sk_stored_secret');
    }
    const fromEnv = await resolveSettings({}, { OUTREACH_BASE_URL: 'https://evil.example/v1' }, store);
    expect(fromEnv.apiKey).toBeUndefined();
  });

  it('sends it to the same origin under another path, and OUTREACH_API_KEY goes anywhere', async () => {
    expect((await resolveSettings({ baseUrl: 'https://api.example.org/v2' }, {}, store)).apiKey).toBe('sk_stored_secret');
    const env = await resolveSettings({ baseUrl: 'https://other.example/v1' }, { OUTREACH_API_KEY: 'sk_env' }, store);
    expect(env).toMatchObject({ apiKey: 'sk_env', apiKeySource: 'env' });
  });

  it('a profile without a stored URL belongs to the default address', async () => {
    const noUrl = fakeStore({ d: { apiKey: 'sk_d' } }, 'd');
    expect((await resolveSettings({ baseUrl: 'http://127.0.0.1:4010/v1' }, {}, noUrl)).apiKey).toBe('sk_d');
    expect((await resolveSettings({ baseUrl: 'http://127.0.0.1:9/v1' }, {}, noUrl)).apiKey).toBeUndefined();
  });
});

describe('the CLI never sends a stored key to another host', () => {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end(req.url?.startsWith('/v1/health') ? '{"status":"ok"}' : '{"data":[],"total":0}');
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('refuses with exit 4 naming the profile and host; nothing reaches the other host', async () => {
    const home = tempDir();
    const env = baseEnv(home.dir);
    // Store a profile for the default origin without checking the key against a service.
    const { ProfileStore } = await import('../../src/config/profiles.js');
    const store = await ProfileStore.open(env);
    store.save('work', { baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'sk_stored_0123456789' }, { activate: true });

    seen.length = 0;
    const r = await runCli(['calls', 'list', '--base-url', url], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('profile "work"');
    expect(r.stderr).toContain('http://127.0.0.1:4010');
    expect(r.stderr).not.toContain('sk_stored_0123456789');
    expect(seen.filter((h) => h.authorization)).toEqual([]);

    const viaEnv = await runCli(['calls', 'list'], { env: { ...env, OUTREACH_BASE_URL: url } });
    expect(viaEnv.code).toBe(4);
    expect(seen.filter((h) => h.authorization)).toEqual([]);

    const explicit = await runCli(['calls', 'list', '--base-url', url], { env: { ...env, OUTREACH_API_KEY: 'sk_env_key' } });
    expect(explicit.code).toBe(0);
    expect(seen.map((h) => h.authorization)).toContain('Bearer sk_env_key');
    home.cleanup();
  });

  it('a redirect is never followed, and `api` refuses a full URL to another host', async () => {
    const home = tempDir();
    const env = { ...baseEnv(home.dir), OUTREACH_API_KEY: 'sk_env_key' };
    const elsewhere: IncomingHttpHeaders[] = [];
    const other = createServer((req, res) => {
      elsewhere.push(req.headers);
      res.end('{}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const redirecting = createServer((req, res) => {
      res.writeHead(302, { location: `${otherUrl}/v1/call` });
      res.end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const redirectUrl = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v1`;
      const r = await runCli(['calls', 'list'], { env: { ...env, OUTREACH_BASE_URL: redirectUrl } });
      expect(r.code).not.toBe(0);
      seen.length = 0;
      const full = await runCli(['api', 'GET', `${otherUrl}/v1/call`, '--base-url', url], { env });
      expect(full.code).toBe(2); // a full URL is refused: use --base-url for the host
      expect(full.stderr).toContain('not a full URL');
      expect(seen.length).toBe(0);
      expect(elsewhere).toEqual([]); // neither the redirect nor the full URL reached the other host
    } finally {
      await new Promise<void>((r) => redirecting.close(() => r()));
      await new Promise<void>((r) => other.close(() => r()));
      home.cleanup();
    }
  });
});
