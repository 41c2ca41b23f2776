// One place for writing files safely (CLI.md "Output and files: safety rules"): every file the CLI
// writes — results, journals, locks — goes through here, so that
//  - a symlink at the target is refused (exit 2), never followed, even a dangling one;
//  - something that is not a regular file (a FIFO, a device, a directory) is refused too: writing to
//    it would block or land somewhere else;
//  - whole files are replaced atomically: written to a temporary file in the same directory
//    (created exclusively, 0600), fsynced, then renamed over the target; a reader never sees half a
//    file, and a run that fails keeps the old file;
//  - files holding patient data are 0600 whatever the umask (the mode given on open, and fchmod
//    for a file that already existed with another mode).
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fchmodSync, lstatSync, openSync, unlinkSync, type Stats } from 'node:fs';
import { access, lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';

/** Mode of files holding patient data (results, journals) and of lock files. */
export const PRIVATE_MODE = 0o600;

/** A symlink sits where we were to write: refused, nothing written (exit 2). */
export class SymlinkRefusedError extends UsageError {
  constructor(readonly path: string) {
    super(`${path} is a symbolic link; outreach does not write through symbolic links, so nothing was written to it.`, {
      code: 'symlink',
      hint: 'Give the path of a regular file (or of one to be created) instead.',
    });
  }
}

/** Something that is not a regular file (FIFO, device, directory) sits where we were to write (exit 2). */
export class NotRegularFileError extends UsageError {
  constructor(readonly path: string, what: string) {
    super(`${path} is ${what}, not a regular file; nothing was written to it.`, { code: 'not_a_file' });
  }
}

/** The file cannot be written (missing directory, permissions, read-only file system): exit 2. */
export class FileWriteError extends UsageError {
  constructor(readonly path: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException)?.code;
    super(`Cannot write ${path}${code ? ` (${describeErrno(code)})` : ''}; nothing was written to it.`, { code: 'cannot_write', cause });
  }
}

function describeErrno(code: string): string {
  switch (code) {
    case 'ENOENT':
      return 'its directory does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return code;
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function refuseStat(path: string, st: Stats): void {
  if (st.isSymbolicLink()) throw new SymlinkRefusedError(path);
  if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
}

/**
 * Checks a path we are about to write, without writing: a symlink (dangling too) or a non-regular
 * file is refused. Returns whether a regular file is there. Call it before a run does anything
 * irreversible, so that a bad --out or journal path stops the run before it sends anything.
 */
export async function checkWritablePath(path: string): Promise<{ exists: boolean }> {
  let exists = true;
  try {
    refuseStat(path, await lstat(path));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new FileWriteError(path, err);
    exists = false;
  }
  // The file is created or replaced through its directory (a temporary file renamed, a lock
  // beside it): a directory we cannot write stops the run now, not after it has sent everything.
  try {
    await access(dirname(path), constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new FileWriteError(path, err);
  }
  return { exists };
}

// ---------- atomic replace ----------

/** A file being written aside; it replaces `path` only at close(). */
export interface AtomicFile {
  /** The target. */
  readonly path: string;
  /** The temporary file in the same directory (removed by abort(), renamed by close()). */
  readonly tempPath: string;
  /** Bytes copied from the existing file (option `copyExisting`); 0 otherwise. */
  readonly copiedBytes: number;
  write(data: string | Uint8Array): Promise<void>;
  /** fsync, then rename over the target (refused if a symlink appeared there meanwhile). Idempotent. */
  close(): Promise<void>;
  /** Removes the temporary file; the target keeps what it had. Idempotent; never throws. */
  abort(): Promise<void>;
}

export interface AtomicOptions {
  /** Mode of the new file (default 0600), applied exactly whatever the umask. */
  mode?: number;
  /** Start from the existing file's content (a resumed run continuing its results file). */
  copyExisting?: boolean;
}

// Temporary files still open: removed when the process exits without closing them (a second
// Ctrl-C calls process.exit), so no partial copy of patient data is left beside the target.
const liveTemps = new Set<string>();
let exitHookInstalled = false;
function trackTemp(path: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const p of liveTemps) {
        try {
          unlinkSync(p);
        } catch {
          /* already gone */
        }
      }
    });
  }
  liveTemps.add(path);
}

/**
 * Opens `path` for an atomic replace: a temporary file beside it is created exclusively (O_EXCL,
 * O_NOFOLLOW, `mode`), written, and renamed over `path` by close(). A symlink or non-regular file at
 * `path` is refused before anything is created; a directory that cannot be written is a usage error.
 */
export async function openAtomic(path: string, options: AtomicOptions = {}): Promise<AtomicFile> {
  const mode = options.mode ?? PRIVATE_MODE;
  const { exists } = await checkWritablePath(path);
  // Hidden, unique, and recognisably ours: ".results.csv.<pid>.<random>.tmp".
  const tempPath = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fh: FileHandle;
  try {
    fh = await open(tempPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (err) {
    throw new FileWriteError(path, err);
  }
  trackTemp(tempPath);
  let copiedBytes = 0;
  try {
    await fh.chmod(mode); // the umask may have taken bits away (or left too many on odd systems)
    if (options.copyExisting && exists) copiedBytes = await copyInto(path, fh);
  } catch (err) {
    await discard(fh, tempPath);
    throw err instanceof UsageError ? err : new FileWriteError(path, err);
  }
  return new TempFile(path, tempPath, fh, copiedBytes);
}

// Copies the existing target into the temporary file, reading it without following a symlink.
async function copyInto(path: string, into: FileHandle): Promise<number> {
  let src: FileHandle;
  try {
    src = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 0;
    if (code === 'ELOOP') throw new SymlinkRefusedError(path);
    throw new FileWriteError(path, err);
  }
  try {
    const st = await src.stat();
    if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
    const buf = Buffer.alloc(64 * 1024);
    let total = 0;
    for (;;) {
      const { bytesRead } = await src.read(buf, 0, buf.length, total);
      if (bytesRead === 0) break;
      await writeAll(into, buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    return total;
  } finally {
    await src.close();
  }
}

async function discard(fh: FileHandle, tempPath: string): Promise<void> {
  await fh.close().catch(() => undefined);
  await unlink(tempPath).catch(() => undefined);
  liveTemps.delete(tempPath);
}

class TempFile implements AtomicFile {
  private state: 'open' | 'closed' | 'aborted' = 'open';
  private closing?: Promise<void>;

  constructor(
    readonly path: string,
    readonly tempPath: string,
    private readonly fh: FileHandle,
    readonly copiedBytes: number,
  ) {}

  async write(data: string | Uint8Array): Promise<void> {
    if (this.state !== 'open') throw new Error(`${this.path}: already ${this.state}`);
    await writeAll(this.fh, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  close(): Promise<void> {
    if (this.state === 'aborted') return Promise.reject(new Error(`${this.path}: already aborted`));
    this.closing ??= this.commit();
    return this.closing;
  }

  private async commit(): Promise<void> {
    try {
      await this.fh.sync();
      await this.fh.close();
      // The target is checked again: a symlink planted during the run is refused, not replaced
      // (rename would not follow it, but the user asked for that path and gets told instead).
      await checkWritablePath(this.path);
      await rename(this.tempPath, this.path);
    } catch (err) {
      await this.abort();
      throw err instanceof UsageError ? err : new FileWriteError(this.path, err);
    }
    this.state = 'closed';
    liveTemps.delete(this.tempPath);
    await syncDir(dirname(this.path));
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await discard(this.fh, this.tempPath);
  }
}

/** Writes a whole file atomically (temp file, fsync, rename); see openAtomic. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: Omit<AtomicOptions, 'copyExisting'> = {}): Promise<void> {
  const f = await openAtomic(path, options);
  try {
    await f.write(data);
  } catch (err) {
    await f.abort();
    throw err;
  }
  await f.close();
}

// The rename is durable only once the directory entry is on disk; best effort (not every file
// system lets a directory be opened and fsynced).
async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    /* not supported here */
  }
}

export async function writeAll(fh: FileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await fh.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

// ---------- append-only (journals) ----------

// O_APPEND: every write lands at the end, even from two processes. O_NOFOLLOW: a symlink at the
// path (dangling too) fails with ELOOP instead of being followed — O_CREAT would otherwise create
// its target. O_NONBLOCK: opening a FIFO for writing must not hang; the fstat below refuses it.
// O_RDWR rather than O_WRONLY so the caller can read its last byte (a torn line) through the same fd.
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function appendOpenError(path: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new SymlinkRefusedError(path);
  if (code === 'ENXIO') return new NotRegularFileError(path, 'a named pipe (FIFO)');
  return new FileWriteError(path, err);
}

/** fstat of what was opened: refuse anything but a regular file, and make it 0600. */
function secureOpened(path: string, st: Stats, mode: number, chmod: (m: number) => void): void {
  if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
  if ((st.mode & 0o7777) !== mode) {
    try {
      chmod(mode);
    } catch (err) {
      throw new UsageError(`Cannot make ${path} private (mode ${mode.toString(8)}): ${(err as NodeJS.ErrnoException).code ?? err}; nothing was written to it.`, {
        code: 'cannot_write',
        cause: err,
      });
    }
  }
}

/**
 * Opens a journal for appending (created 0600 when missing). A symlink at the path, dangling or
 * not, and anything but a regular file are refused with exit 2 before a byte is written; an existing
 * file with another mode is made 0600. The handle is also readable (positioned reads).
 */
export async function openAppendOnly(path: string, options: { mode?: number } = {}): Promise<FileHandle> {
  const mode = options.mode ?? PRIVATE_MODE;
  await checkWritablePath(path); // the clear message; O_NOFOLLOW below closes the race
  let fh: FileHandle;
  try {
    fh = await open(path, APPEND_FLAGS, mode);
  } catch (err) {
    throw appendOpenError(path, err);
  }
  try {
    const st = await fh.stat();
    secureOpened(path, st, mode, (m) => fchmodSync(fh.fd, m));
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
  return fh;
}

/** openAppendOnly for code that writes synchronously: returns a file descriptor (closeSync it). */
export function openAppendOnlySync(path: string, options: { mode?: number } = {}): number {
  const mode = options.mode ?? PRIVATE_MODE;
  try {
    refuseStat(path, lstatSync(path));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new FileWriteError(path, err);
  }
  let fd: number;
  try {
    fd = openSync(path, APPEND_FLAGS, mode);
  } catch (err) {
    throw appendOpenError(path, err);
  }
  try {
    secureOpened(path, fstatSync(fd), mode, (m) => fchmodSync(fd, m));
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}
