// The result word of a row, from records that carry only API.md's fields (read tolerantly: booleans
// as strings, enum values API.md does not list), and the reading of --only and of outreach items.
import { describe, expect, it } from 'vitest';
import { classify, parseOnly, RESULTS, type RowFacts } from '../../../src/outcomes/classify.js';
import { lastCallId } from '../../../src/outcomes/fetch.js';

/** A sequence with API.md's fields only. */
function seq(fields: Record<string, unknown>): RowFacts['sequence'] {
  return {
    status: 'completed',
    outcome: null,
    was_contact_reached: true,
    next_activity: null,
    ...fields,
  };
}
const created = (sequence: RowFacts['sequence'], lastCall?: RowFacts['lastCall']): RowFacts => ({ batch: 'created', sequence, lastCall });

describe('classify', () => {
  it('gives rows without a sequence the batch word', () => {
    for (const batch of ['invalid', 'skipped', 'not-sent', 'unknown', 'not-created', 'not-found'] as const) {
      expect(classify({ batch })).toBe(batch);
    }
  });

  it('counts queued, in-progress and paused sequences as in progress', () => {
    for (const status of ['queued', 'in-progress', 'paused', ' In-Progress ']) expect(classify(created(seq({ status, next_activity: null })))).toBe('in-progress');
  });

  it('reads what ended a sequence in order: opted out, declined, callback, not reached, failed/cancelled, completed', () => {
    expect(classify(created(seq({ status: 'failed', outcome: 'opted-out' })))).toBe('opted-out');
    expect(classify(created(seq({ status: 'completed', outcome: 'x' }), { failure_reason: 'opt-out' }))).toBe('opted-out');
    // Opted out beats declined, wherever each word comes from.
    expect(classify(created(seq({ status: 'failed', outcome: 'declined' }), { failure_reason: 'opt-out' }))).toBe('opted-out');
    expect(classify(created(seq({ status: 'failed', outcome: 'declined' })))).toBe('declined');
    expect(classify(created(seq({ status: 'failed' }), { outcome: 'declined' }))).toBe('declined');
    expect(classify(created(seq({ status: 'completed', outcome: 'callback-requested' })))).toBe('callback-requested');
    expect(classify(created(seq({ status: 'completed', outcome: 'x' }), { failure_reason: 'requested-callback' }))).toBe('callback-requested');
    // A callback request beats "not reached".
    expect(classify(created(seq({ status: 'failed', outcome: 'x', was_contact_reached: false }), { failure_reason: 'requested-callback' }))).toBe('callback-requested');
    expect(classify(created(seq({ status: 'failed', outcome: 'voicemail', was_contact_reached: false })))).toBe('not-reached');
    expect(classify(created(seq({ status: 'failed', outcome: 'x', was_contact_reached: true })))).toBe('failed');
    expect(classify(created(seq({ status: 'cancelled', outcome: null, was_contact_reached: true })))).toBe('cancelled');
    expect(classify(created(seq({ status: 'completed', outcome: 'appointment-confirmed', was_contact_reached: true })))).toBe('completed');
    expect(classify(created(seq({ status: 'completed', outcome: 'escalated' }), { failure_reason: 'escalated' }))).toBe('completed');
  });

  it('reads booleans sent as strings, and words in another case or with underscores', () => {
    expect(classify(created(seq({ status: 'failed', outcome: 'voicemail', was_contact_reached: 'false' })))).toBe('not-reached');
    expect(classify(created(seq({ status: 'failed', outcome: 'x', was_contact_reached: 'FALSE ' })))).toBe('not-reached');
    expect(classify(created(seq({ status: 'failed', outcome: 'x', was_contact_reached: 'true' })))).toBe('failed');
    expect(classify(created(seq({ status: 'COMPLETED', outcome: 'Opted_Out' })))).toBe('opted-out');
    expect(classify(created(seq({ status: 'completed', outcome: 'Callback Requested' })))).toBe('callback-requested');
  });

  it('does not call a sequence unreached when the service does not say so', () => {
    // was_contact_reached missing (or not a boolean): the status decides.
    expect(classify(created({ status: 'completed' }))).toBe('completed');
    expect(classify(created({ status: 'failed', was_contact_reached: 'maybe' }))).toBe('failed');
    // The sequence's own outcome may say it.
    expect(classify(created({ status: 'failed', outcome: 'not-reached' }))).toBe('not-reached');
  });

  it('keeps a status API.md does not list in progress while something is scheduled, else other', () => {
    expect(classify(created(seq({ status: 'on-hold', next_activity: '2030-01-01T09:00:00Z' })))).toBe('in-progress');
    expect(classify(created(seq({ status: 'on-hold', next_activity: null })))).toBe('other');
    expect(classify(created(seq({ status: 'archived', next_activity: '' })))).toBe('other');
    expect(classify(created(seq({ status: undefined, next_activity: undefined })))).toBe('other');
    expect(classify(created(seq({ status: 7 as unknown as string, next_activity: '2030-01-01T09:00:00Z' })))).toBe('in-progress');
  });

  it('calls a created row without a sequence read "other"', () => {
    expect(classify({ batch: 'created' })).toBe('other');
  });
});

describe('parseOnly', () => {
  it('reads a comma-separated list of results, loosely spaced, in any case', () => {
    const p = parseOnly(' not-reached, Declined ,,callback-requested');
    expect([...p.results]).toEqual(['not-reached', 'declined', 'callback-requested']);
    expect(p.unknown).toEqual([]);
  });

  it('names the words that are no result', () => {
    expect(parseOnly('not-reached,unreached,voicemail').unknown).toEqual(['unreached', 'voicemail']);
  });

  it('knows every word the help lists', () => {
    const words = ['not-reached', 'declined', 'opted-out', 'callback-requested', 'failed', 'cancelled', 'in-progress', 'completed', 'other', 'invalid', 'skipped', 'not-sent', 'unknown', 'not-created', 'not-found'];
    expect(new Set(RESULTS)).toEqual(new Set(words));
    expect(parseOnly(words.join(',')).unknown).toEqual([]);
  });
});

describe('lastCallId', () => {
  it('takes the call with the highest step, whatever the order of the items', () => {
    const outreach = [
      { type: 'call', step: 3, call_record_id: 30 },
      { type: 'call', step: 1, call_record_id: 10 },
      { type: 'sms', step: 4, call_record_id: null, messaging_encounter_id: 5 },
    ];
    expect(lastCallId(outreach)).toBe(30);
  });

  it('reads numbers sent as strings, and takes the later item on a tie or without steps', () => {
    expect(lastCallId([{ type: 'call', step: '2', call_record_id: '21' }, { type: 'call', step: '2', call_record_id: '22' }])).toBe(22);
    expect(lastCallId([{ type: 'call', call_record_id: 1 }, { type: 'call', call_record_id: 2 }])).toBe(2);
  });

  it('skips messages and items without a call record; nothing for no outreach', () => {
    expect(lastCallId([{ type: 'email', step: 9, call_record_id: 99 }, { type: 'call', step: 1, call_record_id: null }])).toBeUndefined();
    expect(lastCallId(undefined)).toBeUndefined();
    expect(lastCallId({ items: [] })).toBeUndefined();
    expect(lastCallId([null, 'x', { type: 'call', step: 1, call_record_id: 'P-1' }])).toBeUndefined();
  });

  it('takes an item of a type API.md does not name when it holds a call record', () => {
    expect(lastCallId([{ type: 'voice', step: 1, call_record_id: 5 }, { step: 2, call_record_id: 6 }])).toBe(6);
  });
});
