// The words of `webhooks listen` on stderr: which delivery a warning is about, why one was rejected,
// repeated warnings collapsed, and the summary when it stops. Every value from a sender passes
// through `shown` (terminal-safe, clipped); none is a secret or patient data (headers and our own
// words only). Pure but for the timer of RepeatedWarnings.
import { shown } from './classify.js';
import type { DeliveryHeaders, ListenerCounts, ListenerLimits, Rejection, RejectionReason } from './listener.js';
import { plural } from '../output/plural.js';

/** "call.ended delivery 17 (attempt 3)", as much as the headers say; "a delivery" when they say nothing. */
export function whichDelivery(h: DeliveryHeaders): string {
  if (!h.event && !h.delivery_id && !h.attempt) return 'a delivery';
  const event = h.event ? `${shown(h.event)} ` : '';
  const id = h.delivery_id ? ` ${shown(h.delivery_id)}` : '';
  return `${event}delivery${id}${h.attempt ? ` (attempt ${h.attempt})` : ''}`;
}

/** Why a delivery was refused, in a few words. */
export function reasonText(reason: RejectionReason, limits: Pick<ListenerLimits, 'maxBodyBytes' | 'maxDepth'>): string {
  switch (reason) {
    case 'missing':
      return 'no Authorization header';
    case 'mismatch':
      return 'wrong secret';
    case 'too-deep':
      return `body nested too deeply, over ${limits.maxDepth} levels`;
    case 'too-large':
      return `body over ${sizeText(limits.maxBodyBytes)}`;
  }
}

export function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * A warning: `key` says which are "the same warning", `text` is said the first time, `same` names
 * the kind in a few words for the repeats' line, `which` the delivery it is about.
 */
export interface Warning {
  key: string;
  text: string;
  same: string;
  which: string;
}

/** A rejection as a warning. */
export function rejectionWarning(r: Rejection, limits: Pick<ListenerLimits, 'maxBodyBytes' | 'maxDepth'>): Warning {
  const why = reasonText(r.reason, limits);
  const where = `to ${shown(r.path)} from ${shown(r.remote)}`;
  const which = whichDelivery(r);
  return {
    key: `${r.reason} ${r.path} ${r.remote}`,
    text: `rejected ${which} ${where}: ${why} (answered ${r.status})`,
    same: `${why}, ${where}`,
    which,
  };
}

/** A delivery the listener failed to handle (answered 500), or an error of the server itself. */
export function errorWarning(e: unknown, delivery?: DeliveryHeaders): Warning {
  const message = shown(e instanceof Error ? e.message : e);
  if (!delivery) return { key: 'error', text: `the listener reported an error: ${message}`, same: 'an error of the listener', which: message };
  const which = whichDelivery(delivery);
  return { key: 'error delivery', text: `could not handle ${which} (answered 500): ${message}`, same: 'could not handle it', which };
}

/** The summary when the listener stops: what was received, and what became of it. */
export function stopSummary(c: ListenerCounts, limits: Pick<ListenerLimits, 'maxBodyBytes' | 'maxDepth'>): string {
  const reasons = (Object.entries(c.rejected) as [RejectionReason, number][]).filter(([, n]) => n > 0);
  const rejected = reasons.reduce((sum, [, n]) => sum + n, 0);
  const received = c.accepted + rejected + c.failed;
  if (received === 0) return 'Stopped: no deliveries received.';
  const parts = [`${c.accepted} accepted${c.repeats > 0 ? ` (${plural(c.repeats, 'repeat')} of earlier ones)` : ''}`];
  if (rejected > 0) parts.push(`${rejected} rejected (${reasons.map(([r, n]) => `${n} ${reasonText(r, limits)}`).join(', ')})`);
  else parts.push('0 rejected');
  if (c.failed > 0) parts.push(`${c.failed} failed (answered 500)`);
  return `Stopped: ${plural(received, 'delivery')} received: ${parts.join(', ')}.`;
}

interface Repeats {
  more: number;
  same: string;
  last: string;
}

/**
 * Warnings said once per kind: the first in full, the repeats counted and told as one line
 * ("same warning for 5 more deliveries …") once `windowMs` has passed, or at flush().
 */
export class RepeatedWarnings {
  private seen = new Map<string, Repeats>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly say: (text: string) => void,
    private readonly windowMs = 5000,
  ) {}

  warn(w: Warning): void {
    const r = this.seen.get(w.key);
    if (!r) {
      this.seen.set(w.key, { more: 0, same: w.same, last: w.which });
      this.say(w.text);
      return;
    }
    r.more++;
    r.last = w.which;
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.windowMs);
      this.timer.unref?.();
    }
  }

  /** Says the repeats not yet told. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const r of this.seen.values()) {
      if (r.more === 0) continue;
      this.say(`same warning for ${plural(r.more, 'more delivery', 'more deliveries')} (${r.same}); the last: ${r.last}`);
      r.more = 0;
    }
  }
}
