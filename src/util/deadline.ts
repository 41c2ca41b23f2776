// A timeout that holds. On Node 20, `AbortSignal.any([parent, AbortSignal.timeout(ms)])` can lose
// the timer when the timeout signal is garbage-collected (nodejs/node#57736): a request then waits
// far past its timeout. Here the timer is a plain setTimeout, kept alive by the event loop until
// `clear()`, and the parent is linked with a listener that `clear()` removes again.

export interface Deadline {
  /** Aborted when the time is up (reason: a DOMException named TimeoutError) or the parent aborts (its reason). */
  readonly signal: AbortSignal;
  /** True only when the timer, not the parent, aborted the signal. */
  readonly timedOut: boolean;
  /** Stops the timer and unlinks the parent; call it in `finally`. */
  clear(): void;
}

// setTimeout fires at once for delays above 2^31-1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

export function withDeadline(ms: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const onParentAbort = () => controller.abort(parent!.reason);
  const timer = setTimeout(
    () => {
      if (controller.signal.aborted) return;
      timedOut = true;
      controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError'));
    },
    Math.min(Math.max(0, ms), MAX_TIMER_MS),
  );
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: for reading a body
 * whose transport might not stop reading when the signal fires.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first (Ctrl-C during a backoff). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
