// --request-timeout holds in the built CLI, also while the garbage collector runs (on Node 20,
// AbortSignal.any + AbortSignal.timeout lost the timer then: nodejs/node#57736), and a slow service
// costs the attempts' timeouts, not its own delay.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, baseEnv, tempDir } from '../helpers/cli.js';
import { json, slow, startFaultServer, type Behaviour, type FaultServer } from '../helpers/faultServer.js';

/** Reads the request, never answers. */
const hang: Behaviour = () => new Promise<void>(() => undefined);

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
  ms: number;
}

/** Runs the CLI with extra node flags; killed after `killAfterMs` (code null then). */
function runNode(nodeArgs: string[], args: string[], env: Record<string, string>, killAfterMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

const tmp = tempDir('outreach-timeouts-');
const gcPreload = join(tmp.dir, 'gc-often.cjs');
let hanging: FaultServer;
let slowServer: FaultServer;

beforeAll(async () => {
  writeFileSync(gcPreload, 'setInterval(() => globalThis.gc?.(), 50).unref();\n');
  hanging = await startFaultServer(hang);
  slowServer = await startFaultServer(slow(40_000, json(200, [])));
});
afterAll(async () => {
  await hanging?.close();
  await slowServer?.close();
  tmp.cleanup();
});

// Each test has its own server and process and waits on real timers: run side by side.
describe.concurrent('--request-timeout holds', () => {
  it('under frequent garbage collection, against a service that never answers', async () => {
    const env = { ...baseEnv(tmp.dir), OUTREACH_BASE_URL: hanging.url, OUTREACH_API_KEY: 'x', OUTREACH_MAX_RETRIES: '1', OUTREACH_RETRY_BASE_MS: '20' };
    const before = hanging.requests.length;
    // 2 attempts × 1 s + at most 20 ms of backoff; the broken code waited here for minutes.
    const r = await runNode(['--expose-gc', '--require', gcPreload], ['calls', 'list', '--request-timeout', '1'], env, 40_000);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/timed out after 1 s \(2 attempts, \d(\.\d)? s in all\)/);
    expect(r.stderr).not.toContain('retrying');
    expect(hanging.requests.length - before).toBe(2);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('a service answering after 40 s costs 3 × 2 s and the backoffs, not 40 s', async () => {
    const env = { ...baseEnv(tmp.dir), OUTREACH_BASE_URL: slowServer.url, OUTREACH_API_KEY: 'x', OUTREACH_MAX_RETRIES: '2', OUTREACH_RETRY_BASE_MS: '20' };
    // With the garbage collector running, as in the report where the third attempt waited the full 40 s.
    const r = await runNode(['--expose-gc', '--require', gcPreload], ['calls', 'list', '--request-timeout', '2'], env, 60_000);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/timed out after 2 s \(3 attempts, \d(\.\d)? s in all\)/);
    // stderr is not a terminal: no retry notices, only the error and its hint
    expect(r.stderr.trim().split('\n')).toHaveLength(2);
    expect(slowServer.requests).toHaveLength(3);
    expect(r.ms).toBeGreaterThanOrEqual(5_900);
    expect(r.ms).toBeLessThan(20_000);
  });
});
