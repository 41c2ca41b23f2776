// What a person at a terminal is told while a request is being retried: what went wrong in plain
// words, which retry comes and when ("Service not answering (timed out after 2 s); retry 1 of 3 in
// 4s…"). Shown on the progress line, or on a transient line of its own (src/output/progress.ts).
import type { RetryNotice } from '../api/http.js';

/** The status for `notice`, `leftMs` before its retry begins (≤ 0: the retry is under way). */
export function retryStatus(notice: Pick<RetryNotice, 'attempt' | 'maxAttempts' | 'reason' | 'failure'>, leftMs: number): string {
  const retry = `retry ${notice.attempt - 1} of ${notice.maxAttempts - 1}`;
  const when = leftMs >= 500 ? ` in ${Math.round(leftMs / 1000)}s` : '';
  return `${whatWentWrong(notice)}; ${retry}${when}…`;
}

function whatWentWrong(n: Pick<RetryNotice, 'reason' | 'failure'>): string {
  const f = n.failure;
  if (f.kind === 'status') {
    if (f.status === 429) return 'Service busy (429 Too Many Requests)';
    if (f.status === 503) return 'Service unavailable (503)';
    if (f.status === 408 || f.status === 504) return `Service not answering (${f.status})`;
    return `Service error (${f.status})`;
  }
  if (f.code === 'timeout') return `Service not answering (${n.reason})`;
  if (f.code === 'ECONNREFUSED') return 'Service refused the connection';
  if (f.kind === 'not-sent') return `Cannot reach the service (${n.reason})`;
  return `Connection to the service lost (${n.reason})`;
}
