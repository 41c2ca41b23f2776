// src/util/files.ts: the one place files are written from (results, journals, locks).
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkWritablePath,
  FileWriteError,
  NotRegularFileError,
  openAppendOnly,
  openAppendOnlySync,
  openAtomic,
  SymlinkRefusedError,
  writeFileAtomic,
} from '../../src/util/files.js';
import { acquireLock } from '../../src/journal/lock.js';

const root = mkdtempSync(join(tmpdir(), 'outreach-files-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dir: string;
let n = 0;
let savedUmask: number;
beforeEach(() => {
  dir = join(root, String(++n));
  mkdirSync(dir);
  savedUmask = process.umask(0); // the worst case: nothing taken away by the umask
});
afterEach(() => {
  process.umask(savedUmask);
});

const mode = (p: string) => statSync(p).mode & 0o777;

function victim(): string {
  const p = join(dir, 'victim');
  writeFileSync(p, 'keep\n');
  chmodSync(p, 0o644);
  return p;
}
function expectVictimUntouched(p: string) {
  expect(readFileSync(p, 'utf8')).toBe('keep\n');
  expect(mode(p)).toBe(0o644);
}

async function refusal(p: Promise<unknown>): Promise<Error & { exitCode?: number }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(err, 'expected a refusal').toBeDefined();
  return err as Error & { exitCode?: number };
}

describe('openAppendOnly / openAppendOnlySync (journals)', () => {
  it('creates the file 0600 under umask 0 and appends', async () => {
    const p = join(dir, 'j.ndjson');
    const fh = await openAppendOnly(p);
    await fh.write('a\n');
    await fh.close();
    const fd = openAppendOnlySync(p);
    writeSync(fd, 'b\n');
    closeSync(fd);
    expect(readFileSync(p, 'utf8')).toBe('a\nb\n');
    expect(mode(p)).toBe(0o600);
  });

  it('makes an existing file with another mode 0600', async () => {
    const p = join(dir, 'j.ndjson');
    writeFileSync(p, 'x\n');
    chmodSync(p, 0o666);
    await (await openAppendOnly(p)).close();
    expect(mode(p)).toBe(0o600);
    chmodSync(p, 0o644);
    closeSync(openAppendOnlySync(p));
    expect(mode(p)).toBe(0o600);
  });

  it('refuses a symlink to another file (exit 2, named, nothing written)', async () => {
    const v = victim();
    const p = join(dir, 'j.ndjson');
    symlinkSync(v, p);
    const err = await refusal(openAppendOnly(p));
    expect(err).toBeInstanceOf(SymlinkRefusedError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(p);
    expect(err.message).toMatch(/symbolic link.*nothing was written/);
    expect(() => openAppendOnlySync(p)).toThrow(SymlinkRefusedError);
    expectVictimUntouched(v);
  });

  it('refuses a dangling symlink without creating its target', async () => {
    const target = join(dir, 'nowhere');
    const p = join(dir, 'j.ndjson');
    symlinkSync(target, p);
    expect(await refusal(openAppendOnly(p))).toBeInstanceOf(SymlinkRefusedError);
    expect(() => openAppendOnlySync(p)).toThrow(SymlinkRefusedError);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a FIFO (without blocking) and a directory', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await refusal(openAppendOnly(fifo))).toBeInstanceOf(NotRegularFileError);
    expect(() => openAppendOnlySync(fifo)).toThrow(/named pipe.*not a regular file/);
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    const err = await refusal(openAppendOnly(sub));
    expect(err).toBeInstanceOf(NotRegularFileError);
    expect(err.exitCode).toBe(2);
  });
});

describe('openAtomic / writeFileAtomic (whole files)', () => {
  it('writes aside and renames at close: 0600 under umask 0, old content visible until then', async () => {
    const p = join(dir, 'r.csv');
    writeFileSync(p, 'old\n');
    chmodSync(p, 0o644);
    const f = await openAtomic(p);
    expect(f.tempPath.startsWith(join(dir, '.r.csv.'))).toBe(true);
    expect(mode(f.tempPath)).toBe(0o600);
    await f.write('new\n');
    expect(readFileSync(p, 'utf8')).toBe('old\n');
    await f.close();
    await f.close(); // idempotent
    expect(readFileSync(p, 'utf8')).toBe('new\n');
    expect(mode(p)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['r.csv']);
  });

  it('abort() keeps the old file and removes the temporary one', async () => {
    const p = join(dir, 'r.csv');
    writeFileSync(p, 'old\n');
    const f = await openAtomic(p);
    await f.write('partial');
    await f.abort();
    await f.abort();
    expect(readFileSync(p, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['r.csv']);
  });

  it('copyExisting starts from the current content', async () => {
    const p = join(dir, 'r.csv');
    writeFileSync(p, 'a\n');
    const f = await openAtomic(p, { copyExisting: true });
    expect(f.copiedBytes).toBe(2);
    await f.write('b\n');
    await f.close();
    expect(readFileSync(p, 'utf8')).toBe('a\nb\n');
  });

  it('refuses a symlink at the target (also dangling) before creating anything', async () => {
    const v = victim();
    const p = join(dir, 'r.csv');
    symlinkSync(v, p);
    const err = await refusal(openAtomic(p));
    expect(err).toBeInstanceOf(SymlinkRefusedError);
    expect(err.exitCode).toBe(2);
    await expect(writeFileAtomic(p, 'x')).rejects.toBeInstanceOf(SymlinkRefusedError);
    expectVictimUntouched(v);
    unlinkSync(p);
    symlinkSync(join(dir, 'nowhere'), p);
    await expect(openAtomic(p)).rejects.toBeInstanceOf(SymlinkRefusedError);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['r.csv', 'victim']);
  });

  it('a symlink planted while writing is refused at close: its target untouched, no temporary file left', async () => {
    const v = victim();
    const p = join(dir, 'r.csv');
    const f = await openAtomic(p);
    await f.write('data');
    symlinkSync(v, p);
    await expect(f.close()).rejects.toBeInstanceOf(SymlinkRefusedError);
    expectVictimUntouched(v);
    expect(readdirSync(dir).sort()).toEqual(['r.csv', 'victim']);
  });

  it('a missing directory or a non-regular target is a usage error naming the path', async () => {
    const p = join(dir, 'no-such-dir', 'r.csv');
    const err = await refusal(openAtomic(p));
    expect(err).toBeInstanceOf(FileWriteError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(p);
    expect(err.message).toMatch(/directory does not exist/);
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    await expect(openAtomic(sub)).rejects.toBeInstanceOf(NotRegularFileError);
    await expect(checkWritablePath(sub)).rejects.toBeInstanceOf(NotRegularFileError);
    expect(await checkWritablePath(join(dir, 'fresh'))).toEqual({ exists: false });
  });
});

describe('lock files', () => {
  it('are 0600 under umask 0', async () => {
    const p = join(dir, 'x.lock');
    const lock = await acquireLock(p);
    expect(mode(p)).toBe(0o600);
    await lock.release();
    expect(existsSync(p)).toBe(false);
  });

  it('a symlink at the lock path is refused, neither followed nor removed (even one to a stale-looking lock)', async () => {
    const target = join(dir, 'elsewhere.lock');
    // A dead holder's lock: without the symlink check it would be judged stale and taken over.
    writeFileSync(target, JSON.stringify({ pid: 2 ** 22 + 1, hostname: (await import('node:os')).hostname(), started_at: '2020-01-01T00:00:00Z' }));
    chmodSync(target, 0o644);
    const before = readFileSync(target, 'utf8');
    const p = join(dir, 'x.lock');
    symlinkSync(target, p);
    const err = await refusal(acquireLock(p));
    expect(err).toBeInstanceOf(SymlinkRefusedError);
    expect(err.exitCode).toBe(2);
    expect(readFileSync(target, 'utf8')).toBe(before);
    expect(mode(target)).toBe(0o644);

    const dangling = join(dir, 'y.lock');
    symlinkSync(join(dir, 'nowhere'), dangling);
    await expect(acquireLock(dangling)).rejects.toBeInstanceOf(SymlinkRefusedError);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    // No temporary lock file left behind.
    expect(readdirSync(dir).sort()).toEqual(['elsewhere.lock', 'x.lock', 'y.lock']);
  });
});
