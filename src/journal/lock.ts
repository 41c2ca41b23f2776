// An exclusive lock file, so two runs on the same file (eligibility bulk run, batch journal)
// cannot both send. The file holds {pid, hostname, started_at, token} and is created atomically:
// written to a temporary name, then hard-linked into place (link fails if the lock exists, and a
// reader never sees a half-written lock). A lock whose process is gone is stale and is taken over;
// the takeover is serialised by a second short-lived "<path>.break" file, so when two processes
// find the same stale lock only one removes it and the other then finds the winner's live lock.
//
// Symlinks: every file here is created with O_EXCL (or link(), which also fails on any existing
// name), which never follows a symlink; a symlink found at the lock path (dangling too) is refused
// with exit 2 rather than read or removed. Lock files are 0600 whatever the umask.

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, open, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { PRIVATE_MODE, SymlinkRefusedError } from '../util/files.js';

/** What a lock file says about its holder. */
export interface LockHolder {
  pid: number;
  hostname: string;
  started_at: string;
}

/** A held lock. `staleRecovered` is true when a dead run's lock was taken over. */
export interface Lock {
  readonly path: string;
  readonly staleRecovered: boolean;
  /** Removes the lock file if it is still ours; safe to call twice. */
  release(): Promise<void>;
}

/** Another run holds the lock (or its lock file cannot be read yet). */
export class LockedError extends Error {
  override name = 'LockedError';
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
    detail?: string,
  ) {
    super(
      detail ??
      (holder
        ? `another run (pid ${holder.pid}${holder.hostname === hostname() ? '' : ` on host ${holder.hostname}`}, ` +
            `started at ${holder.started_at}) holds the lock ${path}; wait for it to finish, or delete the file if that run is gone`
        : `the lock file ${path} exists but cannot be read (another run may be starting); if no run is active, delete it`),
    );
  }
}

/** A lock file that is not valid JSON is treated as stale only after this long (a writer may be mid-way). */
const GARBAGE_STALE_MS = 60_000;
/** A takeover marker older than this was left by a crashed process. */
const BREAKER_STALE_MS = 10_000;

/** Takes the lock at `path` or throws LockedError; a dead holder's lock is recovered. */
export async function acquireLock(path: string): Promise<Lock> {
  const token = randomBytes(8).toString('hex');
  const content =
    JSON.stringify({ pid: process.pid, hostname: hostname(), started_at: new Date().toISOString(), token }) + '\n';
  let staleRecovered = false;
  // A few rounds cover: lock vanished between our attempts, stale lock removed by us or a rival.
  for (let round = 0; round < 5; round++) {
    if (await createExclusive(path, content, token)) return heldLock(path, token, staleRecovered);
    const state = await inspect(path);
    if (state.kind === 'gone') continue;
    if (state.kind === 'held') throw new LockedError(path, state.holder);
    if (state.kind === 'young_garbage') throw new LockedError(path, undefined);
    if (await removeStale(path, state)) staleRecovered = true;
  }
  throw new LockedError(path, undefined, `another run is taking over the stale lock ${path} at the same moment`);
}

function heldLock(path: string, token: string, staleRecovered: boolean): Lock {
  let released = false;
  return {
    path,
    staleRecovered,
    async release() {
      if (released) return;
      released = true;
      const text = await readNoFollow(path).catch(() => undefined);
      // Only our own lock: if it was taken over (we were wrongly judged dead), leave the new holder's.
      if (text !== undefined && parse(text)?.token === token) await unlink(path).catch(ignoreMissing);
    },
  };
}

// O_EXCL|O_NOFOLLOW: fails on any existing name, a symlink included; the mode is set exactly.
const EXCL = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

async function writeExclusive(path: string, content: string): Promise<void> {
  const fh = await open(path, EXCL, PRIVATE_MODE);
  try {
    await fh.chmod(PRIVATE_MODE);
    await fh.writeFile(content);
  } finally {
    await fh.close();
  }
}

/** Reads a file without following a symlink at its path (ELOOP then). */
async function readNoFollow(path: string): Promise<string> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}

async function createExclusive(path: string, content: string, token: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${token}.tmp`;
  await writeExclusive(tmp, content);
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw err;
    // File systems without hard links: plain exclusive create (readers may briefly see it empty,
    // which they treat as a young, live lock).
    try {
      await writeExclusive(path, content);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    await unlink(tmp).catch(ignoreMissing);
  }
}

type LockState =
  | { kind: 'gone' }
  | { kind: 'held'; holder: LockHolder }
  | { kind: 'young_garbage' }
  | { kind: 'stale'; ino: number; mtimeMs: number; text: string };

async function inspect(path: string): Promise<LockState> {
  let text: string;
  let info: { ino: number; mtimeMs: number };
  try {
    // lstat: a symlink at the lock path is neither read nor taken over as stale, but refused.
    const st = await lstat(path);
    if (st.isSymbolicLink()) throw new SymlinkRefusedError(path);
    info = st;
    text = await readNoFollow(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'gone' };
    if (code === 'ELOOP') throw new SymlinkRefusedError(path); // replaced by a symlink meanwhile
    throw err;
  }
  const holder = parse(text);
  if (!holder) {
    if (Date.now() - info.mtimeMs < GARBAGE_STALE_MS) return { kind: 'young_garbage' };
    return { kind: 'stale', ino: info.ino, mtimeMs: info.mtimeMs, text };
  }
  // On another host we cannot see its processes: assume it is alive.
  if (holder.hostname !== hostname() || isAlive(holder.pid)) return { kind: 'held', holder };
  return { kind: 'stale', ino: info.ino, mtimeMs: info.mtimeMs, text };
}

// Removes the stale lock only while holding "<path>.break", and only if the lock is still exactly
// the one we judged stale. Returns whether we removed it.
async function removeStale(path: string, seen: Extract<LockState, { kind: 'stale' }>): Promise<boolean> {
  const breaker = `${path}.break`;
  try {
    await writeExclusive(breaker, '');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A rival is taking over right now; if its marker is old, the rival crashed: clear it and retry.
    // (lstat: a symlink planted there is judged by its own age and removed, never followed.)
    const age = await lstat(breaker).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > BREAKER_STALE_MS) await unlink(breaker).catch(ignoreMissing);
    return false;
  }
  try {
    const now = await lstat(path).catch(() => undefined);
    if (!now || now.isSymbolicLink() || now.ino !== seen.ino || now.mtimeMs !== seen.mtimeMs) return false;
    const text = await readNoFollow(path).catch(() => undefined);
    if (text !== seen.text) return false;
    await unlink(path).catch(ignoreMissing);
    return true;
  } finally {
    await unlink(breaker).catch(ignoreMissing);
  }
}

function parse(text: string): (LockHolder & { token?: string }) | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    // pid must be a positive integer: kill(0 or negative) would signal whole process groups.
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.hostname === 'string' && typeof v.started_at === 'string') {
      return { pid: v.pid, hostname: v.hostname, started_at: v.started_at, token: typeof v.token === 'string' ? v.token : undefined };
    }
  } catch {
    // not JSON: garbage
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}

/**
 * Takes the lock of a run's journal, in the words every resumable command uses: another run holding
 * it is exit 2 and nothing is sent. `journal` names the journal the lock protects.
 */
export async function lockJournal(
  lockPath: string,
  journal: string,
  warn: (text: string) => Promise<void>,
): Promise<Lock> {
  const { UsageError } = await import('../errors.js');
  let lock: Lock;
  try {
    lock = await acquireLock(lockPath);
  } catch (err) {
    if (err instanceof LockedError) {
      // The holder in a few words, the way out on its own line (an 80-column terminal).
      const h = err.holder;
      const who = h ? ` (pid ${h.pid}${h.hostname === hostname() ? '' : ` on ${h.hostname}`}, started ${h.started_at})` : '';
      throw new UsageError(`Another run is using the journal ${journal}${who}. Nothing was sent by this run.`, {
        code: 'locked',
        hint: h
          ? `Wait for it to finish, or delete ${lockPath} if that run is gone.`
          : `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`,
      });
    }
    throw err;
  }
  if (lock.staleRecovered) await warn(`took over the lock of an earlier run that is no longer running (${lockPath})`);
  return lock;
}
