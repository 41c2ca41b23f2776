// Durable webhook outbox. A delivery row is written in the same transaction as the event it reports,
// so a committed event is never lost; the worker POSTs it, and only a 2xx answer marks it delivered.
// Failures (refused, timeout, non-2xx) are retried with exponential backoff; rows still pending when
// the sandbox stops are picked up on the next start on the same database file (at-least-once).
import { withDeadline } from '../util/deadline.js';
import { prep, type Db } from './db.js';

export interface OutboxOptions {
  retryBaseMs: number;
  timeoutMs: number;
  /** Attempts before a delivery is given up (status "failed"). */
  maxAttempts?: number;
  maxBackoffMs?: number;
  log: (line: string) => void;
}

interface Row {
  id: number;
  event: string;
  url: string;
  secret: string | null;
  payload: string;
  attempts: number;
}

const IDLE_POLL_MS = 1000;

export class Outbox {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private readonly inFlight = new Map<number, { ctrl: AbortController; done: Promise<void> }>();
  private readonly maxAttempts: number;
  private readonly maxBackoffMs: number;
  private readonly stmts;

  constructor(
    db: Db,
    private readonly opts: OutboxOptions,
  ) {
    this.maxAttempts = opts.maxAttempts ?? 10;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5 * 60_000;
    this.stmts = {
      insert: prep(db, 
        `INSERT INTO webhook_outbox (organization_id, event, resource_id, url, secret, payload, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      due: prep(db, 
        "SELECT id, event, url, secret, payload, attempts FROM webhook_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT 50",
      ),
      dueNow: prep(db, "UPDATE webhook_outbox SET next_attempt_at = ?1 WHERE status = 'pending' AND next_attempt_at > ?1"),
      nextDue: prep(db, "SELECT MIN(next_attempt_at) FROM webhook_outbox WHERE status = 'pending'", true),
      delivered: prep(db, "UPDATE webhook_outbox SET status = 'delivered', attempts = ?, delivered_at = ?, secret = NULL, last_error = NULL WHERE id = ?"),
      retry: prep(db, 'UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?'),
      failed: prep(db, "UPDATE webhook_outbox SET status = 'failed', attempts = ?, last_error = ?, secret = NULL WHERE id = ?"),
    };
  }

  /** Records a delivery; call inside the transaction that commits the event. */
  enqueue(orgId: number, event: string, resourceId: number, url: string, secret: string | null, payload: unknown): number {
    const id = Number(
      this.stmts.insert.run(orgId, event, resourceId, url, secret, JSON.stringify(payload), Date.now(), new Date().toISOString()).lastInsertRowid,
    );
    queueMicrotask(() => this.kick());
    return id;
  }

  /** Starts delivering. Pending deliveries are due at once: a restart is a natural time to retry. */
  start(): void {
    this.stopped = false;
    this.stmts.dueNow.run(Date.now());
    this.kick();
  }

  /** Looks for due deliveries now instead of at the next timer. */
  kick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), 0);
  }

  /** Stops the loop and aborts deliveries in flight; aborted ones stay pending (not counted as attempts). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const f of this.inFlight.values()) f.ctrl.abort();
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  private tick(): void {
    if (this.stopped) return;
    const now = Date.now();
    for (const row of this.stmts.due.all(now) as Row[]) {
      if (this.inFlight.has(row.id)) continue;
      const ctrl = new AbortController();
      const done = this.deliver(row, ctrl).finally(() => {
        this.inFlight.delete(row.id);
        this.kick();
      });
      this.inFlight.set(row.id, { ctrl, done });
    }
    const next = this.stmts.nextDue.get() as number | null;
    const wait = next == null ? IDLE_POLL_MS : Math.min(IDLE_POLL_MS, Math.max(5, next - Date.now()));
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }

  private async deliver(row: Row, ctrl: AbortController): Promise<void> {
    const attempt = row.attempts + 1;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'outreach-sandbox',
      'x-outreach-event': row.event,
      'x-outreach-delivery': String(row.id),
      'x-outreach-attempt': String(attempt),
    };
    if (row.secret) headers.authorization = `Bearer ${row.secret}`;
    let error: string;
    // Not AbortSignal.any + AbortSignal.timeout: Node 20 can lose that timer to the GC (util/deadline.ts).
    const deadline = withDeadline(this.opts.timeoutMs, ctrl.signal);
    try {
      const res = await fetch(row.url, { method: 'POST', headers, body: row.payload, signal: deadline.signal });
      await res.arrayBuffer().catch(() => undefined); // drain so the connection is reused
      if (res.ok) {
        this.stmts.delivered.run(attempt, new Date().toISOString(), row.id);
        this.opts.log(`webhook ${row.id} ${row.event} delivered to ${host(row.url)} (attempt ${attempt}, HTTP ${res.status})`);
        return;
      }
      error = `HTTP ${res.status}`;
    } catch (e) {
      if (ctrl.signal.aborted) return; // sandbox stopping: try again on the next start
      const err = e as Error & { cause?: { code?: string } };
      error = deadline.timedOut || err.name === 'TimeoutError' ? `timed out after ${this.opts.timeoutMs} ms` : (err.cause?.code ?? err.message);
    } finally {
      deadline.clear();
    }
    if (this.stopped && ctrl.signal.aborted) return;
    if (attempt >= this.maxAttempts) {
      this.stmts.failed.run(attempt, error, row.id);
      this.opts.log(`webhook ${row.id} ${row.event} to ${host(row.url)} failed: ${error}; gave up after ${attempt} attempts`);
      return;
    }
    const delay = Math.min(this.maxBackoffMs, this.opts.retryBaseMs * 2 ** (attempt - 1));
    this.stmts.retry.run(attempt, Date.now() + delay, error, row.id);
    this.opts.log(`webhook ${row.id} ${row.event} to ${host(row.url)} failed: ${error}; retry ${attempt + 1} in ${delay} ms`);
  }
}

/** Only the host is logged: a URL's path or query may carry tokens. */
function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
}
