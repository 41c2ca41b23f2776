// Moves eligibility checks queued -> in-progress -> completed. A check is due `delayMs / speed`
// after it went in-progress; an organisation has at most MAX_IN_PROGRESS checks in progress and the
// rest wait as "queued". Completion and the webhook outbox row are written in one transaction.
import type { Db } from './db.js';
import { eligibilityResult } from './eligibilityRules.js';
import type { Outbox } from './outbox.js';
import { resolvePayer } from './payers.js';
import type { eligibilityStore, PendingCheck } from './store/eligibility.js';

const MAX_IN_PROGRESS = 20;
const IDLE_POLL_MS = 1000;

export class EligibilityWorker {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  readonly delayMs: number;
  private readonly completeTx;

  constructor(
    db: Db,
    private readonly store: ReturnType<typeof eligibilityStore>,
    private readonly outbox: Outbox,
    opts: { delayMs: number; speed: number },
    private readonly log: (line: string) => void = () => {},
  ) {
    this.delayMs = opts.delayMs / (opts.speed > 0 ? opts.speed : 1);
    this.completeTx = db.transaction((c: PendingCheck) => this.completeOne(c));
  }

  /** Status and due time for a new check of this organisation. */
  admit(orgId: number): { status: 'in-progress' | 'queued'; dueAt: number | null } {
    if (this.store.inProgressCount(orgId) >= MAX_IN_PROGRESS) return { status: 'queued', dueAt: null };
    return { status: 'in-progress', dueAt: Date.now() + this.delayMs };
  }

  /** With no delay a check completes inside the request's transaction, so the next read sees it. */
  get instant(): boolean {
    return this.delayMs <= 0;
  }

  completeNow(c: PendingCheck): void {
    this.completeOne(c);
  }

  start(): void {
    this.stopped = false;
    this.kick();
  }

  kick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), 0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private completeOne(c: PendingCheck): void {
    const at = new Date();
    const payer = resolvePayer(c.payer_id);
    const result = payer ? eligibilityResult(c.member_id, payer, at) : { outcome: 'not-supported', coverage: null };
    if (!this.store.complete(c.id, result.outcome, result.coverage, at.toISOString())) return;
    // Id and outcome only: the member id and the coverage are patient data.
    this.log(`eligibility check ${c.id} completed: ${result.outcome}${result.coverage ? (result.coverage.is_active_today ? ', active' : ', inactive') : ''}`);
    if (c.webhook_url) {
      this.outbox.enqueue(c.organization_id, 'eligibility.completed', c.id, c.webhook_url, c.webhook_secret, this.store.getById(c.id));
    }
  }

  private tick(): void {
    if (this.stopped) return;
    const now = Date.now();
    for (const c of this.store.due(now)) this.completeTx(c);
    // Freed capacity lets queued checks start.
    for (const q of this.store.queued()) {
      if (this.store.inProgressCount(q.organization_id) >= MAX_IN_PROGRESS) continue;
      this.store.promote(q.id, now + this.delayMs);
    }
    const next = this.store.nextDueAt();
    const wait = next == null ? IDLE_POLL_MS : Math.min(IDLE_POLL_MS, Math.max(1, next - Date.now()));
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }
}
