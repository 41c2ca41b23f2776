import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock, LockedError } from '../../src/journal/lock.js';

const dir = mkdtempSync(join(tmpdir(), 'outreach-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const lockPath = () => join(dir, `run${n++}.lock`);

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(child.stdout);
  expect(pid).toBeGreaterThan(0);
  return pid;
}

function writeHolder(path: string, pid: number, host = hostname()): void {
  writeFileSync(path, JSON.stringify({ pid, hostname: host, started_at: '2024-06-15T10:00:00.000Z' }));
}

describe('acquireLock', () => {
  it('creates the lock file with pid, hostname and start time, and release removes it', async () => {
    const path = lockPath();
    const lock = await acquireLock(path);
    expect(lock.staleRecovered).toBe(false);
    const content = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(content).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(typeof content.started_at).toBe('string');
    await lock.release();
    expect(existsSync(path)).toBe(false);
    await lock.release(); // twice is harmless
    expect(existsSync(join(dir, `${path}.break`))).toBe(false);
  });

  it('refuses a second holder with LockedError naming the pid and start time', async () => {
    const path = lockPath();
    const lock = await acquireLock(path);
    const err = await acquireLock(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockedError);
    expect((err as LockedError).message).toMatch(new RegExp(`another run \\(pid ${process.pid}, started at \\d{4}-`));
    expect((err as LockedError).holder?.pid).toBe(process.pid);
    await lock.release();
    const again = await acquireLock(path);
    await again.release();
  });

  it('recovers the lock of a dead process', async () => {
    const path = lockPath();
    const pid = deadPid();
    writeHolder(path, pid);
    const lock = await acquireLock(path);
    expect(lock.staleRecovered).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('treats a lock held by a live process as held', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      const path = lockPath();
      writeHolder(path, child.pid!);
      await expect(acquireLock(path)).rejects.toThrow(new RegExp(`pid ${child.pid}, started at 2024-06-15T10:00:00`));
    } finally {
      child.kill();
    }
  });

  it('treats a lock from another host as held (its processes cannot be checked)', async () => {
    const path = lockPath();
    writeHolder(path, deadPid(), 'some-other-host.example');
    await expect(acquireLock(path)).rejects.toThrow(/on host some-other-host\.example/);
  });

  it('treats fresh garbage as held, and garbage older than a minute as stale', async () => {
    const path = lockPath();
    writeFileSync(path, '{"pid": 12'); // a writer mid-way, or a corrupt file
    await expect(acquireLock(path)).rejects.toThrow(LockedError);
    const old = (Date.now() - 5 * 60_000) / 1000;
    utimesSync(path, old, old);
    const lock = await acquireLock(path);
    expect(lock.staleRecovered).toBe(true);
    await lock.release();
  });

  it('never signals a process group from a bogus pid', async () => {
    for (const pid of [0, -1, 1.5]) {
      const path = lockPath();
      writeHolder(path, pid);
      await expect(acquireLock(path)).rejects.toThrow(LockedError); // fresh garbage
    }
  });

  it('does not remove a lock that is no longer ours', async () => {
    const path = lockPath();
    const lock = await acquireLock(path);
    writeHolder(path, process.pid); // someone else's content now
    await lock.release();
    expect(existsSync(path)).toBe(true);
  });

  it('lets exactly one of two concurrent takeovers of a stale lock win', async () => {
    const path = lockPath();
    writeHolder(path, deadPid());
    const results = await Promise.allSettled([acquireLock(path), acquireLock(path)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(LockedError);
  });
});

describe('acquireLock across processes', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = join(dir, 'lock.mjs');
    await build({ entryPoints: ['src/journal/lock.ts'], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
  });

  it('exactly one of several racing processes takes over a stale lock', async () => {
    const path = lockPath();
    writeHolder(path, deadPid());
    // Each process waits for a common start moment and tries once. A winner holds the lock until
    // every racer has reported (its stdin is closed then): released any earlier, a racer that
    // started late under load could rightly take the free lock and look like a second winner.
    const start = Date.now() + 400;
    const script = `
      const { acquireLock } = await import(${JSON.stringify(bundle)});
      await new Promise((r) => setTimeout(r, ${start} - Date.now()));
      try {
        const lock = await acquireLock(${JSON.stringify(path)});
        process.stdout.write('won');
        await new Promise((r) => { process.stdin.on('end', r); process.stdin.resume(); });
        await lock.release();
      } catch (e) {
        process.stdout.write(e.name);
      }`;
    const children = Array.from({ length: 6 }, () => spawn(process.execPath, ['--input-type=module', '-e', script]));
    const reported = children.map(
      (child) => new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString()))),
    );
    const closed = children.map((child) => new Promise<void>((resolve) => child.on('close', () => resolve())));
    const outputs = await Promise.all(reported);
    for (const child of children) child.stdin.end();
    await Promise.all(closed);
    expect(outputs.filter((o) => o === 'won')).toHaveLength(1);
    expect(outputs.filter((o) => o === 'LockedError')).toHaveLength(5);
    expect(existsSync(path)).toBe(false);
  });
});
