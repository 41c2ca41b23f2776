// Runs the CLI for a test and collects exit code, stdout and stderr.
//
// By default in this process, through `main` (src/main.ts) with buffers for stdin/stdout/stderr, the
// given environment and nothing else (process.env never leaks in), and a virtual clock, so waits and
// backoffs cost no real time. `spawn: true` runs the built CLI (bin/outreach.js → dist/, so build
// first) as a child process instead: for what needs a real process (signals, terminals, node flags,
// the package, the bin's own --version), and for what this process cannot give a run (another cwd,
// time zone or home directory).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../src/util/clock.js';
import { virtualClock } from './clock.js';

export const BIN = fileURLToPath(new URL('../../bin/outreach.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface RunResult {
  /** The exit code; null when the run was stopped after `timeoutMs`. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  /** Stop the run after this long (default 30 s): a child is killed, an in-process run aborted. */
  timeoutMs?: number;
  /** Run the built CLI as a child process. */
  spawn?: boolean;
  /** In process: wait on real time instead of the virtual clock. */
  realTime?: boolean;
  /** In process: this clock (e.g. a virtualClock() the test also reads) instead of a fresh virtual one. */
  clock?: Clock;
  /** In process: Ctrl-C (the child's SIGINT). */
  signal?: AbortSignal;
}

/** A temporary directory removed by the returned cleanup function. */
export function tempDir(prefix = 'outreach-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The environment a test run starts from: nothing of the developer's own settings leaks in. */
export function baseEnv(configDir: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: configDir,
    OUTREACH_CONFIG_DIR: configDir,
    OUTREACH_RETRY_BASE_MS: '20',
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
  };
  return env;
}

// To tell a difference of the in-process path from the CLI's: OUTREACH_TEST_SPAWN=1 spawns every
// run; OUTREACH_TEST_REAL_TIME=1 runs every in-process run on real time.
const SPAWN_ALL = process.env.OUTREACH_TEST_SPAWN === '1';
const REAL_TIME_ALL = process.env.OUTREACH_TEST_REAL_TIME === '1';

export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  if (opts.spawn || SPAWN_ALL || needsOwnProcess(env, opts)) return spawnCli(args, env, opts);
  return runInProcess(args, env, opts);
}

/**
 * What an in-process run cannot honour, because it belongs to the process rather than the run: the
 * working directory, the time zone, and the home directory (where the config lives when the env does
 * not name a config directory).
 */
function needsOwnProcess(env: Record<string, string>, opts: RunOptions): boolean {
  if (resolve(opts.cwd ?? ROOT) !== resolve(process.cwd())) return true;
  if (env.TZ !== undefined && env.TZ !== Intl.DateTimeFormat().resolvedOptions().timeZone) return true;
  return !env.OUTREACH_CONFIG_DIR && !env.XDG_CONFIG_HOME && env.HOME !== homedir();
}

async function runInProcess(args: string[], env: Record<string, string>, opts: RunOptions): Promise<RunResult> {
  const [{ main }, { createBufferStreams }, { realClock }] = await Promise.all([
    import('../../src/main.js'),
    import('../../src/io.js'),
    import('../../src/util/clock.js'),
  ]);
  const buffers = createBufferStreams({ stdin: opts.input });
  const stop = new AbortController();
  const onCtrlC = () => stop.abort();
  if (opts.signal?.aborted) stop.abort();
  else opts.signal?.addEventListener('abort', onCtrlC, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((done) => {
    timer = setTimeout(() => {
      stop.abort();
      done(null);
    }, opts.timeoutMs ?? 30_000);
  });
  try {
    const run = main(args, { io: buffers.streams, env, clock: opts.clock ?? (opts.realTime || REAL_TIME_ALL ? realClock : virtualClock()), signal: stop.signal });
    const code = await Promise.race([run, timedOut]);
    return { code, stdout: buffers.stdout(), stderr: buffers.stderr() };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCtrlC);
  }
}

function spawnCli(args: string[], env: Record<string, string>, opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env,
      cwd: opts.cwd ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    const onCtrlC = () => child.kill('SIGINT');
    opts.signal?.addEventListener('abort', onCtrlC, { once: true });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onCtrlC);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}
