// What every route module is given, and the caller's organisation per request.
import type { FastifyRequest } from 'fastify';
import type { Db } from './db.js';
import type { EligibilityWorker } from './eligibilityWorker.js';
import type { Outbox } from './outbox.js';
import type { OutreachScheduler } from './scheduler.js';
import type { Stores } from './stores.js';

export interface SandboxContext {
  db: Db;
  stores: Stores;
  worker: EligibilityWorker;
  outbox: Outbox;
  /** Runs created sequences (absent when the scheduler is off). */
  scheduler?: OutreachScheduler;
  log: (line: string) => void;
  /** False when nobody listens to the log: skips the per-request hook. */
  logRequests: boolean;
}

// Set by the auth hook; a WeakMap instead of a global FastifyRequest augmentation.
const orgs = new WeakMap<FastifyRequest, number>();

export function setOrg(req: FastifyRequest, orgId: number): void {
  orgs.set(req, orgId);
}

/** The organisation that owns the request's API key. */
export function orgOf(req: FastifyRequest): number {
  const id = orgs.get(req);
  if (id === undefined) throw new Error('route reached without authentication');
  return id;
}

export const nowIso = () => new Date().toISOString();
