// Opening the SQLite database (libsql, better-sqlite3 API) and applying migrations.
import { chmodSync, closeSync, constants, openSync } from 'node:fs';
import type LibsqlDatabase from 'libsql';
import { MIGRATIONS } from './migrations.js';

export type Db = LibsqlDatabase.Database;
export type DbConstructor = typeof LibsqlDatabase;

/** The database and the side files SQLite keeps next to it. */
const SIDE_FILES = ['', '-wal', '-shm', '-journal'];

/**
 * Sandbox data (patient names, phone numbers, API key digests) is for its owner only: a new database
 * file is created 0600 before SQLite opens it, and an existing one (or side files an older version
 * left readable) is set to 0600 once open. SQLite gives the -wal/-shm/-journal files it creates the
 * database file's mode, whatever the umask.
 */
function createPrivate(path: string): void {
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
  } catch {
    // exists already (made private after opening), or cannot be created: SQLite says why
  }
}

function makePrivate(path: string, log: (line: string) => void): void {
  for (const side of SIDE_FILES) {
    try {
      chmodSync(path + side, 0o600);
    } catch (err) {
      // Someone else's file (EPERM) is still usable; say so rather than refuse to start.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') log(`warning: could not make ${path + side} private (0600): ${code ?? (err as Error).message}`);
    }
  }
}

const isFile = (path: string) => path !== '' && path !== ':memory:' && !path.startsWith('file:');

export function openDb(Database: DbConstructor, path: string, log: (line: string) => void = () => {}): Db {
  if (isFile(path)) createPrivate(path);
  const db = new Database(path);
  try {
    if (path !== ':memory:') {
      // WAL: readers never block the writer. synchronous FULL: a commit is on disk before the
      // answer goes out, so even a power cut loses nothing that was acknowledged.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    if (isFile(path)) makePrivate(path, log);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Applies pending migrations; returns the versions applied. */
export function migrate(db: Db): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const current = prep(db, 'SELECT COALESCE(MAX(version), 0) FROM schema_version', true).get() as number;
  const applied: number[] = [];
  const record = prep(db, 'INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    })();
    applied.push(m.version);
  }
  return applied;
}

export function schemaVersion(db: Db): number {
  return prep(db, 'SELECT COALESCE(MAX(version), 0) FROM schema_version', true).get() as number;
}

/** Parses a JSON column; null stays null. */
export function json<T>(text: unknown): T {
  return (text == null ? null : JSON.parse(text as string)) as T;
}

/**
 * A prepared statement with the rough edges of libsql 0.5 filed off: a boolean parameter aborts
 * the process (Rust panic), so booleans become 0/1 and undefined becomes null; get() rows carry an
 * enumerable `_metadata` field, which is removed; pluck() is ignored by get(), so it is done here;
 * and a get() that failed once fails forever, so the statement is prepared afresh after an error.
 */
export interface Stmt {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

function clean(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

function cleanParams(params: unknown[]): unknown[] {
  return params.map((p) => {
    if (p !== null && typeof p === 'object' && !Buffer.isBuffer(p)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(p)) out[k] = clean(v);
      return out;
    }
    return clean(p);
  });
}

export function prep(db: Db, sql: string, pluck = false): Stmt {
  let s = db.prepare(sql);
  const ps = pluck ? db.prepare(sql).pluck() : s;
  return {
    run: (...p) => s.run(...cleanParams(p)),
    get(...p) {
      let row: Record<string, unknown> | undefined;
      try {
        row = s.get(...cleanParams(p)) as Record<string, unknown> | undefined;
      } catch (err) {
        // libsql 0.5's get() keeps a failed statement's state: every later get() fails the same
        // way, so one bad request would break a route until restart. A fresh statement does not.
        try {
          s = db.prepare(sql);
        } catch {
          // the database is closed or gone: the original error says more
        }
        throw err;
      }
      if (!row) return undefined;
      delete row._metadata;
      return pluck ? Object.values(row)[0] : row;
    },
    all: (...p) => ps.all(...cleanParams(p)),
  };
}
