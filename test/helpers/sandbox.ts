// A real sandbox for end-to-end tests: started in this process on port 0 with an in-memory (or
// temporary file) database; the CLI under test is spawned against it over real HTTP.
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/index.js';
import { baseEnv } from './cli.js';

export interface TestSandbox extends RunningSandbox {
  /** Organisation 1's key. */
  key: string;
  /** Organisation 2's key (for isolation tests). */
  otherKey: string;
  /** A clean environment for the CLI pointed at this sandbox with organisation 1's key. */
  env(configDir: string, extra?: Record<string, string>): Record<string, string>;
}

export async function startTestSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const { startSandbox } = await import('../../src/sandbox/index.js');
  const sbx = await startSandbox({
    port: 0,
    dbPath: ':memory:',
    eligibilityDelayMs: 200,
    webhookRetryBaseMs: 50,
    webhookTimeoutMs: 1000,
    ...opts,
  });
  const key = sbx.organizations[0]!.api_key;
  return {
    ...sbx,
    key,
    otherKey: sbx.organizations[1]!.api_key,
    env: (configDir, extra = {}) => ({
      ...baseEnv(configDir),
      OUTREACH_API_KEY: key,
      OUTREACH_BASE_URL: sbx.baseUrl,
      ...extra,
    }),
  };
}

/** A JSON request straight to the sandbox (to count or inspect what the CLI did). */
export async function sandboxRequest<T = unknown>(sbx: TestSandbox, method: string, path: string, body?: unknown, key = sbx.key): Promise<{ status: number; data: T }> {
  const res = await fetch(`${sbx.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, data: (text ? JSON.parse(text) : undefined) as T };
}
