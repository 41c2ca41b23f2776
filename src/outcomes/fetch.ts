// Reading what became of each created row: its sequence (with includeMetrics, for the outreach
// items) and the record of its last call. Only API.md's fields are used. At most --concurrency
// requests in flight; a service that keeps refusing (429/503 after the http core's own retries)
// slows every reader down (the run's Pacer) instead of failing the run.
import type { HttpClient } from '../api/http.js';
import type { SequenceRecord } from '../api/sequences.js';
import type { Context } from '../context.js';
import { ApiError, CliError, ExitCode, InterruptedError } from '../errors.js';
import { Pacer } from '../util/pacer.js';

/** The last call of a sequence; its fields stay empty when the record could not be read (deleted). */
export interface LastCall {
  id: number;
  started_at?: unknown;
  outcome?: unknown;
  failure_reason?: unknown;
}

/** One created row's sequence as last read. */
export interface SequenceState {
  id: number;
  sequence?: SequenceRecord;
  /** The service answered 404 for the sequence. */
  notFound?: boolean;
  lastCall?: LastCall;
}

const MESSAGING = new Set(['sms', 'email', 'message', 'messaging', 'text']);
/** Refusals of one request (after the http core's retries) before the run gives up on it. */
const MAX_REFUSALS = 10;

/**
 * The call record id of the last call among a sequence's outreach items: the call with the highest
 * step, the later in the array on a tie or without steps. Pure; tolerant of any shape.
 */
export function lastCallId(outreach: unknown): number | undefined {
  if (!Array.isArray(outreach)) return undefined;
  let best: { id: number; step: number; at: number } | undefined;
  outreach.forEach((item, at) => {
    if (!item || typeof item !== 'object') return;
    const o = item as Record<string, unknown>;
    const id = toInt(o.call_record_id);
    if (id === undefined || (typeof o.type === 'string' && MESSAGING.has(o.type.trim().toLowerCase()))) return;
    const step = toInt(o.step) ?? -Infinity;
    if (!best || step > best.step || (step === best.step && at > best.at)) best = { id, step, at };
  });
  return best?.id;
}

function toInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number(v);
  return undefined;
}

const isStatus = (err: unknown, status: number) => err instanceof ApiError && err.status === status;
const isAuth = (err: unknown) => err instanceof CliError && err.exitCode === ExitCode.auth;

export class OutcomeReader {
  private readonly pacer: Pacer;
  /** Calls that have ended (their record no longer changes) or are gone, by id: read once. */
  private readonly finished = new Map<number, LastCall>();
  /** Calls whose record could not be read when last tried (not a 404): their columns stay empty. */
  readonly unreadCalls = new Set<number>();

  constructor(
    private readonly ctx: Context,
    private readonly client: HttpClient,
    private readonly concurrency: number,
  ) {
    this.pacer = new Pacer(ctx.clock);
  }

  /** How many times the service asked to slow down. */
  get throttled(): number {
    return this.pacer.throttled;
  }

  /**
   * Reads every state's sequence and last call. `tolerant` (the rounds of --wait): a failed read
   * (a 5xx, the network) keeps the state last read and counts it; otherwise it ends the run.
   * Authentication failures and Ctrl-C always end it.
   */
  async read(states: readonly SequenceState[], o: { tolerant?: boolean; onRead?: () => void } = {}): Promise<{ failed: number }> {
    const { forEachLimited } = await import('../eligibility/backoff.js');
    let failed = 0;
    let stopped = false; // a failure that ends the run: the other readers take no more
    await forEachLimited(states, this.concurrency, async (state) => {
      if (stopped) return;
      try {
        await this.readOne(state);
      } catch (err) {
        const fatal = this.ctx.signal.aborted || !o.tolerant || isAuth(err);
        if (fatal) {
          stopped = true;
          throw this.ctx.signal.aborted ? new InterruptedError() : err;
        }
        failed++;
      }
      o.onRead?.();
    });
    return { failed };
  }

  private async readOne(state: SequenceState): Promise<void> {
    const { getSequence } = await import('../api/sequences.js');
    let sequence: SequenceRecord;
    try {
      sequence = (await this.paced(() => getSequence(this.client, state.id, true))).sequence;
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      Object.assign(state, { notFound: true, sequence: undefined, lastCall: undefined });
      return;
    }
    state.notFound = false;
    state.sequence = sequence;
    const callId = lastCallId(sequence.outreach);
    state.lastCall = callId === undefined ? undefined : await this.readCall(callId, state.lastCall);
  }

  private async readCall(id: number, before: LastCall | undefined): Promise<LastCall | undefined> {
    const known = this.finished.get(id);
    if (known) return known;
    const { getCall } = await import('../api/calls.js');
    try {
      const { call } = await this.paced(() => getCall(this.client, id));
      const c = call as unknown as Record<string, unknown>;
      const last: LastCall = { id, started_at: c.started_at, outcome: c.outcome, failure_reason: c.failure_reason };
      this.unreadCalls.delete(id);
      // A call still going on may change; an ended one is read once.
      if (c.call_status === 'ended' || (typeof c.ended_at === 'string' && c.ended_at !== '')) this.finished.set(id, last);
      return last;
    } catch (err) {
      if (this.ctx.signal.aborted || isAuth(err)) throw err;
      if (isStatus(err, 404)) {
        // Deleted: the call happened, its record is gone.
        const gone: LastCall = { id };
        this.finished.set(id, gone);
        return gone;
      }
      this.unreadCalls.add(id);
      return before?.id === id ? before : { id };
    }
  }

  /** One request, repeated while the service refuses it (429/503), paced with every other. */
  private async paced<T>(request: () => Promise<T>): Promise<T> {
    const { fateOf } = await import('../api/errors.js');
    for (let refusals = 0; ; ) {
      await this.pacer.acquire(this.ctx.signal);
      try {
        const answer = await request();
        this.pacer.succeeded();
        return answer;
      } catch (err) {
        if (this.ctx.signal.aborted) throw new InterruptedError();
        if (fateOf(err) !== 'refused' || ++refusals >= MAX_REFUSALS) throw err;
        this.pacer.refused((err as ApiError).retryAfterMs);
      }
    }
  }
}
