// The local sandbox: a small real implementation of the whole service of API.md.
//   const sbx = await startSandbox({ port: 0, dbPath: ':memory:' });
//   fetch(`${sbx.baseUrl}/health`); ... await sbx.close();
import { isIP } from 'node:net';
import type { DbConstructor } from './db.js';
import { openDb } from './db.js';
import { EligibilityWorker } from './eligibilityWorker.js';
import { Outbox } from './outbox.js';
import { OutreachScheduler } from './scheduler.js';
import { isSeeded, SANDBOX_KEYS, SEED_ORGS, seed } from './seed.js';
import { buildServer } from './server.js';
import { createStores } from './stores.js';

export interface SandboxOptions {
  /** 0 = any free port; default 4010 */
  port?: number;
  /** default 127.0.0.1; 0.0.0.0 or :: listen on every interface (the network can reach it) */
  host?: string;
  /** SQLite file path, or ':memory:' (the default) */
  dbPath?: string;
  /** Makes this organisation 1's only key (instead of its well-known default). */
  apiKey?: string;
  /** Time acceleration: eligibility delays and outreach waits are divided by it (3600: an hour is a second). Default 1. */
  speed?: number;
  /**
   * Run the sequences that batches create (calls, messages, reports). Default false for the library,
   * so tests that read freshly created sequences see them queued; `outreach sandbox` turns it on.
   */
  scheduler?: boolean;
  /** Longest sleep of the scheduler loop; default 250 ms. */
  schedulerTickMs?: number;
  /** The scheduler's clock (tests inject one); default the real clock. */
  now?: () => Date;
  /** The organisation's end-of-sequence report URL (POSTed when a sequence ends); none = not sent. */
  sequenceWebhookUrl?: string;
  /** Sent as Authorization: Bearer <secret> with end-of-sequence reports. */
  sequenceWebhookSecret?: string;
  /** Total time from submission to completion of an eligibility check; default 2000; 0 = instant. */
  eligibilityDelayMs?: number;
  /** Webhook outbox backoff base; default 1000. */
  webhookRetryBaseMs?: number;
  /** Per-delivery timeout; default 5000. */
  webhookTimeoutMs?: number;
  /** Request and worker log lines (never API keys, secrets or patient data). */
  log?: (line: string) => void;
}

export interface SandboxOrganization {
  id: number;
  name: string;
  api_key: string;
  tool_ids: string[];
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:4010/v1 */
  baseUrl: string;
  port: number;
  organizations: SandboxOrganization[];
  close(): Promise<void>;
}

/** The native SQLite module (libsql) could not be loaded. */
export class SandboxUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      'The sandbox needs the native SQLite module "libsql", which could not be loaded ' +
        `(${(cause as Error)?.message ?? String(cause)}). ` +
        'Reinstall it with `npm rebuild libsql` or `npm install libsql` in the outreach-cli install directory, then try again.',
      { cause },
    );
    this.name = 'SandboxUnavailableError';
  }
}

/** How a listen address is reached and who can reach it. */
export interface ListenHost {
  /** The host part of a URL that works from this machine: an all-interfaces address becomes loopback, IPv6 is bracketed. */
  urlHost: string;
  /** Only this machine can connect. */
  loopback: boolean;
  /** 0.0.0.0 or :: (every interface). */
  allInterfaces: boolean;
}

/** What `host` means for the printed URL and for who can connect (anything not loopback is the network). */
export function describeListenHost(host: string): ListenHost {
  const h = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(h) === 4) {
    if (h === '0.0.0.0') return { urlHost: '127.0.0.1', loopback: false, allInterfaces: true };
    return { urlHost: h, loopback: h.startsWith('127.'), allInterfaces: false };
  }
  if (isIP(h) === 6) {
    const [addr, zone] = h.split('%', 2) as [string, string | undefined];
    // The URL parser writes an IPv6 address in its shortest form (0:0:0:0:0:0:0:1 → ::1, ::ffff:127.0.0.1 → ::ffff:7f00:1).
    let short = addr;
    try {
      short = new URL(`http://[${addr}]/`).hostname.slice(1, -1);
    } catch {
      // keep it as given
    }
    if (short === '::') return { urlHost: '[::1]', loopback: false, allInterfaces: true };
    const loopback = short === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(short);
    return { urlHost: `[${short}${zone ? `%25${zone}` : ''}]`, loopback, allInterfaces: false };
  }
  return { urlHost: h, loopback: h.toLowerCase() === 'localhost', allInterfaces: false };
}

async function loadLibsql(): Promise<DbConstructor> {
  try {
    const mod = (await import('libsql')) as unknown as { default?: DbConstructor };
    const ctor = mod.default ?? (mod as unknown as DbConstructor);
    if (typeof ctor !== 'function') throw new Error('libsql did not export a Database class');
    return ctor;
  } catch (e) {
    throw new SandboxUnavailableError(e);
  }
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const log = opts.log ?? (() => {});
  const Database = await loadLibsql();
  const db = openDb(Database, opts.dbPath ?? ':memory:', log);
  try {
    const stores = createStores(db);
    if (!isSeeded(db)) seed(db, stores);
    // Keys are re-set on every start so the reported keys are always the ones that work.
    stores.orgs.setOnlyKey(1, opts.apiKey ?? SANDBOX_KEYS[1]);
    stores.orgs.setOnlyKey(2, SANDBOX_KEYS[2]);

    const outbox = new Outbox(db, {
      retryBaseMs: opts.webhookRetryBaseMs ?? 1000,
      timeoutMs: opts.webhookTimeoutMs ?? 5000,
      log,
    });
    const worker = new EligibilityWorker(db, stores.eligibility, outbox, {
      delayMs: opts.eligibilityDelayMs ?? 2000,
      speed: opts.speed ?? 1,
    }, log);
    const scheduler = opts.scheduler
      ? new OutreachScheduler(db, stores, outbox, {
          speed: opts.speed ?? 1,
          tickMs: opts.schedulerTickMs ?? 250,
          now: opts.now ?? (() => new Date()),
          sequenceWebhookUrl: opts.sequenceWebhookUrl,
          sequenceWebhookSecret: opts.sequenceWebhookSecret,
          log,
        })
      : undefined;
    const app = buildServer({ db, stores, worker, outbox, scheduler, log, logRequests: opts.log !== undefined });
    const host = (opts.host ?? '127.0.0.1').trim().replace(/^\[(.*)\]$/, '$1'); // [::1] as in a URL is ::1
    await app.listen({ port: opts.port ?? 4010, host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (opts.port ?? 4010);
    worker.start();
    outbox.start();
    scheduler?.start();

    const organizations = SEED_ORGS.map((o) => ({
      id: o.id,
      name: o.name,
      api_key: o.id === 1 ? (opts.apiKey ?? SANDBOX_KEYS[1]) : SANDBOX_KEYS[2],
      tool_ids: stores.tools.ids(o.id),
    }));
    // No "listening" line here: `outreach sandbox` prints its own (with the keys), once.
    const { urlHost } = describeListenHost(host);

    let closing: Promise<void> | undefined;
    return {
      baseUrl: `http://${urlHost}:${port}/v1`,
      port,
      organizations,
      close() {
        closing ??= (async () => {
          worker.stop();
          scheduler?.stop();
          await app.close();
          await outbox.stop();
          db.close();
        })();
        return closing;
      },
    };
  } catch (e) {
    db.close();
    throw e;
  }
}
