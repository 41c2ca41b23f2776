// How a journal recognises a row's patient data (a batch row's phone number, a bulk row's
// customer_patient_id) without holding it (issue 11, journal privacy).
//
// A salted SHA-256 with the salt in the journal can be reversed by anyone holding the journal: US
// numbers are few (~10 s for 1,000 rows). So a journal's hashes are keyed: HMAC-SHA256 with a key
// kept in the user's config directory (`journal.key`, 0600), plus the journal's own salt so the same
// number does not look the same in two journals. The journal stores only the key's id. Someone with
// the journal alone learns nothing; a resume by the same user finds the key and works as before.
//
// Journals written before keyed hashes (a `salt` and no `key_id`) are still read with their salted
// hash, so a run started by an older version can be resumed.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

export const JOURNAL_KEY_FILE = 'journal.key';

/** What a journal's first record says about its hashes. */
export interface HashParams {
  salt: string;
  /** Id of the config-dir key the hashes were made with; absent in journals of the salted-only kind. */
  key_id?: string;
}

export interface JournalHashing {
  /** The parameters to store in a new journal's first record (loads or creates the key). */
  params(): HashParams;
  /** The hash of a value (an E.164 number, a patient id), as the journal stores it. */
  hash(value: string): string;
}

/** The old, reversible kind: kept only to read journals written before keyed hashes. */
export function saltedHash(salt: string, e164: string): string {
  return createHash('sha256').update(`${salt}:${e164}`).digest('hex').slice(0, 20);
}

export function keyedHash(key: Buffer, salt: string, e164: string): string {
  return createHmac('sha256', key).update(`${salt}:${e164}`).digest('hex').slice(0, 20);
}

function keyId(key: Buffer): string {
  return createHash('sha256').update('outreach journal key id:').update(key).digest('hex').slice(0, 12);
}

/**
 * The hashing of one journal. `existing` is the first record of a journal being resumed (its salt
 * and key id); without it a new salt is drawn and the user's key is created on first use.
 * `configDir` is where the key lives (OUTREACH_CONFIG_DIR or the user's config directory).
 */
export function journalHashing(existing: HashParams | undefined, configDir: string, journalPath: string): JournalHashing {
  if (existing && existing.key_id === undefined) {
    return { params: () => ({ salt: existing.salt }), hash: (e164) => saltedHash(existing.salt, e164) };
  }
  const salt = existing?.salt ?? randomBytes(16).toString('hex');
  let key: Buffer | undefined;
  const loadKey = (): Buffer => {
    if (key) return key;
    const path = join(configDir, JOURNAL_KEY_FILE);
    key = existing ? readKey(path, { journalPath }) : (readKey(path, { missingOk: true }) ?? createKey(configDir, path));
    if (existing && keyId(key) !== existing.key_id) {
      throw new UsageError(
        `The journal ${journalPath} was written with another journal key than ${path}, so its rows cannot be recognised.`,
        { hint: 'Resume as the user (and with the OUTREACH_CONFIG_DIR) that started the run.' },
      );
    }
    return key;
  };
  return {
    params: () => ({ salt, key_id: keyId(loadKey()) }),
    hash: (e164) => keyedHash(loadKey(), salt, e164),
  };
}

function readKey(path: string, opts: { missingOk: true }): Buffer | undefined;
function readKey(path: string, opts?: { journalPath?: string }): Buffer;
function readKey(path: string, opts: { missingOk?: boolean; journalPath?: string } = {}): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && opts.missingOk) return undefined;
    if (code === 'ENOENT') {
      const of = opts.journalPath ? `the rows of the journal ${opts.journalPath}` : "the journal's rows";
      throw new UsageError(`The journal key ${path} is missing, so ${of} cannot be recognised.`, {
        hint: 'Resume as the user (and with the OUTREACH_CONFIG_DIR) that started the run.',
      });
    }
    if (code === 'ELOOP') throw new UsageError(`The journal key ${path} is a symbolic link; refusing to use it.`);
    throw new UsageError(`Cannot read the journal key ${path} (${code ?? 'error'}).`);
  }
  try {
    const text = readFileSync(fd, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(text)) throw new UsageError(`The journal key ${path} is damaged (expected 64 hex digits).`);
    return Buffer.from(text, 'hex');
  } finally {
    closeSync(fd);
  }
}

/** Creates the key atomically (written aside, then hard-linked into place): two runs agree on one key. */
function createKey(configDir: string, path: string): Buffer {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another run created it first, or a symlink sits there: readKey decides.
  } finally {
    unlinkSync(tmp);
  }
  if (lstatSync(path).isSymbolicLink()) throw new UsageError(`The journal key ${path} is a symbolic link; refusing to use it.`);
  return readKey(path);
}

