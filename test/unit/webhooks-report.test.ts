// The listener's words: lines fitted to the width, warnings that name the delivery and collapse
// their repeats, and the stop summary's counts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import stringWidth from 'string-width';
import { clipToWidth, fitParts, renderLine, type LinePart } from '../../src/webhooks/fit.js';
import { RepeatedWarnings, rejectionWarning, stopSummary, whichDelivery } from '../../src/webhooks/report.js';
import { summarise } from '../../src/webhooks/classify.js';

const LIMITS = { maxBodyBytes: 1024 * 1024, maxDepth: 100 };

describe('fitting a line', () => {
  it('clips by terminal columns, whole graphemes, with an ellipsis', () => {
    expect(clipToWidth('abcdef', 6)).toBe('abcdef');
    expect(clipToWidth('abcdef', 4)).toBe('abc…');
    expect(clipToWidth('患者の電話番号', 6)).toBe('患者…');
    expect(stringWidth(clipToWidth('患者の電話番号', 6))).toBeLessThanOrEqual(6);
    expect(clipToWidth('👍🏽👍🏽👍🏽', 5)).toBe('👍🏽👍🏽…');
  });

  it('clips free text first, then leaves out extras (lowest keep first), never a key', () => {
    const parts: LinePart[] = [
      { text: 'call 7', role: 'key' },
      { text: 'declined', role: 'key' },
      { text: 'failure: a very long reason given by the service', role: 'free' },
      { text: '1m32s', role: 'extra', keep: 1 },
      { text: 'step 2', role: 'extra', keep: 0 },
    ];
    expect(renderLine(parts, 200)).toBe('call 7  declined  failure: a very long reason given by the service  1m32s  step 2');
    expect(renderLine(parts, 50)).toBe('call 7  declined  failure: a very…  1m32s  step 2');
    expect(renderLine(parts, 40)).toBe('call 7  declined  failure: a…  1m32s');
    expect(renderLine(parts, 30)).toBe('call 7  declined  failure: a…');
    expect(renderLine(parts, 10)).toBe('call 7 declined');
    expect(fitParts(parts, 1).map((p) => p.text)).toEqual(['call 7', 'declined']);
  });

  it('joins by one space, padding trimmed, when the keys alone do not fit with two', () => {
    const parts: LinePart[] = [
      { text: '21:08:33', role: 'key' },
      { text: 'end-of-call    ', role: 'key' },
      { text: 'call 1203', role: 'key' },
      { text: 'appointment-confirmed', role: 'key' },
      { text: '1m04s', role: 'extra' },
      { text: '→ failed', role: 'key' },
      { text: '(ECONNREFUSED)', role: 'free' },
    ];
    expect(renderLine(parts, 100)).toBe('21:08:33  end-of-call      call 1203  appointment-confirmed  1m04s  → failed  (ECONNREFUSED)');
    expect(renderLine(parts, 80)).toBe('21:08:33  end-of-call      call 1203  appointment-confirmed  → failed');
    expect(renderLine(parts, 64)).toBe('21:08:33 end-of-call call 1203 appointment-confirmed → failed');
    expect(renderLine(parts, 40)).toBe('21:08:33 end-of-call call 1203 appointment-confirmed → failed');
  });

  it('the summary of -o ndjson keeps every part, aligned after the kind', () => {
    const body = { type: 'end-of-call-report', sequence_id: 12, step: 2, call: { id: 8, call_status: 'ended', outcome: 'voicemail', duration_ms: 25_000 } };
    expect(summarise('end-of-call', body)).toBe('end-of-call      call 8  ended  voicemail  25s  sequence 12  step 2');
    const seq = { id: 3, status: 'failed', outcome_description: 'x', outreach: [{ type: 'call', analysis: { outcome: 'voicemail' } }, { type: 'call', analysis: { outcome: 'voicemail' } }, { type: 'sms' }] };
    expect(summarise('end-of-sequence', seq)).toBe('end-of-sequence  sequence 3  failed  outreach call:voicemail ×2, sms');
  });
});

describe('warnings', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('name the event, the delivery id and the attempt when the sender gave them', () => {
    expect(whichDelivery({ event: 'call.ended', delivery_id: '17', attempt: 3 })).toBe('call.ended delivery 17 (attempt 3)');
    expect(whichDelivery({ event: null, delivery_id: '17', attempt: null })).toBe('delivery 17');
    expect(whichDelivery({ event: 'call.ended', delivery_id: null, attempt: null })).toBe('call.ended delivery');
    expect(whichDelivery({ event: null, delivery_id: null, attempt: null })).toBe('a delivery');
    expect(whichDelivery({ event: '\u001b[2J', delivery_id: null, attempt: 2 })).toBe('\\e[2J delivery (attempt 2)');
    const r = { received_at: '', path: '/calls', remote: '127.0.0.1', reason: 'mismatch' as const, status: 401, event: 'call.ended', delivery_id: '17', attempt: 3 };
    expect(rejectionWarning(r, LIMITS).text).toBe('rejected call.ended delivery 17 (attempt 3) to /calls from 127.0.0.1: wrong secret (answered 401)');
  });

  it('the first of a kind in full; repeats counted and told once the window passes, or at flush', () => {
    const said: string[] = [];
    const w = new RepeatedWarnings((t) => said.push(t), 5000);
    const rej = (id: string, reason: 'mismatch' | 'missing' = 'mismatch') =>
      rejectionWarning({ received_at: '', path: '/', remote: '127.0.0.1', reason, status: 401, event: 'sequence.ended', delivery_id: id, attempt: 1 }, LIMITS);
    w.warn(rej('1'));
    w.warn(rej('2'));
    w.warn(rej('3'));
    w.warn(rej('4', 'missing'));
    expect(said).toEqual([
      'rejected sequence.ended delivery 1 (attempt 1) to / from 127.0.0.1: wrong secret (answered 401)',
      'rejected sequence.ended delivery 4 (attempt 1) to / from 127.0.0.1: no Authorization header (answered 401)',
    ]);
    vi.advanceTimersByTime(5000);
    expect(said[2]).toBe('same warning for 2 more deliveries (wrong secret, to / from 127.0.0.1); the last: sequence.ended delivery 3 (attempt 1)');
    w.warn(rej('5'));
    w.flush();
    expect(said[3]).toBe('same warning for 1 more delivery (wrong secret, to / from 127.0.0.1); the last: sequence.ended delivery 5 (attempt 1)');
    w.flush();
    expect(said).toHaveLength(4);
  });
});

describe('the stop summary', () => {
  const none = { missing: 0, mismatch: 0, 'too-large': 0, 'too-deep': 0 };
  it('counts received as accepted plus rejected (with why) plus failed', () => {
    expect(stopSummary({ accepted: 7, repeats: 0, rejected: { ...none, mismatch: 7 }, failed: 0 }, LIMITS)).toBe('Stopped: 14 deliveries received: 7 accepted, 7 rejected (7 wrong secret).');
    expect(stopSummary({ accepted: 1, repeats: 0, rejected: { ...none, missing: 2, 'too-large': 1 }, failed: 1 }, LIMITS)).toBe(
      'Stopped: 5 deliveries received: 1 accepted, 3 rejected (2 no Authorization header, 1 body over 1 MiB), 1 failed (answered 500).',
    );
    expect(stopSummary({ accepted: 1, repeats: 0, rejected: none, failed: 0 }, LIMITS)).toBe('Stopped: 1 delivery received: 1 accepted, 0 rejected.');
    expect(stopSummary({ accepted: 0, repeats: 0, rejected: none, failed: 0 }, LIMITS)).toBe('Stopped: no deliveries received.');
    expect(stopSummary({ accepted: 4, repeats: 1, rejected: none, failed: 0 }, LIMITS)).toBe('Stopped: 4 deliveries received: 4 accepted (1 repeat of earlier ones), 0 rejected.');
  });
});
