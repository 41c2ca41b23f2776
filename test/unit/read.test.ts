// Tolerant reading (src/api/read.ts): every shape API.md allows becomes the same record or list,
// anything else is a MalformedResponseError (exit 1) that says what came instead.
import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../../src/errors.js';
import { API_FIELDS, normalise, readBool, readInt, readList, readOne } from '../../src/api/read.js';

const rec = { id: 7, name: 'x' };

function malformed(fn: () => unknown): MalformedResponseError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as MalformedResponseError).exitCode).toBe(1);
    return err as MalformedResponseError;
  }
  throw new Error('expected a MalformedResponseError');
}

describe('readOne', () => {
  it.each([
    ['a bare object', rec],
    ['a one-element array', [rec]],
    ['the first object of an array', [null, rec, { id: 8 }]],
    ['{success, data: object}', { success: true, data: rec }],
    ['{data: object}', { data: rec }],
    ['{success, data: [object]}', { success: true, data: [rec] }],
    ['{data: [object]}', { data: [rec] }],
  ])('%s', (_name, body) => {
    expect(readOne(body, 'GET /x/7')).toEqual(rec);
  });

  it('a record with its own data field (it has an id) is not unwrapped', () => {
    expect(readOne({ id: 4, data: { x: 1 } }, 'GET /x/4')).toEqual({ id: 4, data: { x: 1 } });
    expect(readOne({ id: '4', data: [{ id: 9 }] }, 'GET /x/4')).toEqual({ id: '4', data: [{ id: 9 }] });
  });

  it('a record without an id (health) is read as it is, a success flag beside its fields included', () => {
    expect(readOne({ status: 'ok' }, 'GET /health')).toEqual({ status: 'ok' });
    expect(readOne({ success: true, status: 'ok' }, 'GET /health')).toEqual({ success: true, status: 'ok' });
  });

  it.each([
    ['an empty body', undefined, /answered PATCH \/assistant\/7 without a record \(empty body\)/],
    ['null', null, /without a record \(null\)/],
    ['a string', 'ok', /without a record \(a string\)/],
    ['a number', 7, /without a record \(a number\)/],
    ['true', true, /without a record \(a boolean\)/],
    ['an empty array', [], /without a record \(an empty list\)/],
    ['an empty object', {}, /without a record \(an empty object\)/],
    ['an array of non-objects', [1, 'a'], /without a record \(a list without records\)/],
    ['an envelope with null data', { success: true, data: null }, /without a record \(an envelope with nothing inside\)/],
    ['an envelope with an empty list', { success: true, data: [] }, /without a record \(an envelope with nothing inside\)/],
    ['an envelope without data', { success: true }, /without a record \(an envelope with nothing inside\)/],
    ['an envelope with an empty object', { data: {} }, /without a record \(an envelope with nothing inside\)/],
  ])('%s is malformed', (_name, body, message) => {
    expect(malformed(() => readOne(body, 'PATCH /assistant/7')).message).toMatch(message);
  });

  it('a write answered with nothing says the service may have acted', () => {
    expect(malformed(() => readOne(undefined, 'POST /assistant')).message).toMatch(/may have acted/);
    expect(malformed(() => readOne(undefined, 'GET /call/1')).message).not.toMatch(/may have acted/);
  });

  it('{success: false} is malformed and carries the service message', () => {
    expect(malformed(() => readOne({ success: false, message: 'nope' }, 'GET /x/1')).message).toMatch(/success: false.*nope/);
  });

  it('never modifies what the service sent', () => {
    const body = { success: true, data: [{ id: '7', analysis: { repetition_count: '2' } }] };
    const copy = structuredClone(body);
    normalise(readOne(body, 'GET /call/7'), API_FIELDS.call);
    expect(body).toEqual(copy);
  });
});

describe('readList', () => {
  const items = [{ id: 1 }, { id: 2 }];
  it.each([
    ['a bare array', items],
    ['{data: [...]}', { data: items }],
    ['{success, data: [...]}', { success: true, data: items }],
    ['{items: [...]}', { items }],
    ['{data: {items: [...]}}', { data: { items } }],
    ['{success, data: {items: [...]}}', { success: true, data: { items } }],
  ])('%s', (_name, body) => {
    expect(readList(body, 'GET /call')).toEqual(items);
  });

  it.each([
    ['[]', []],
    ['{data: []}', { data: [] }],
    ['{success, data: []}', { success: true, data: [] }],
    ['{items: []}', { items: [] }],
  ])('an empty list is a valid empty list: %s', (_name, body) => {
    expect(readList(body, 'GET /call')).toEqual([]);
  });

  it('items that are not records are dropped (a null item cannot be shown)', () => {
    expect(readList([null, { id: 1 }, 'x'], 'GET /call')).toEqual([{ id: 1 }]);
  });

  it.each([
    ['an empty body', undefined, /answered GET \/call without a list \(empty body\)/],
    ['null', null, /without a list \(null\)/],
    ['a string', 'x', /without a list \(a string\)/],
    ['a single record', { id: 1 }, /without a list \(an object without a list in it\)/],
    ['{data: null}', { success: true, data: null }, /without a list \(an object without a list in it\)/],
  ])('%s is malformed', (_name, body, message) => {
    expect(malformed(() => readList(body, 'GET /call')).message).toMatch(message);
  });
});

describe('readInt and readBool', () => {
  it.each([
    [1, 1],
    [0, 0],
    ['1', 1],
    [' 42 ', 42],
    ['-3', -3],
    ['007', 7],
  ])('readInt(%j) = %j', (v, n) => expect(readInt(v)).toBe(n));

  it.each([[undefined], [null], [''], ['1.5'], [1.5], ['12abc'], ['1e3'], [NaN], [Infinity], [true], [{}], ['99999999999999999999']])(
    'readInt(%j) is undefined',
    (v) => expect(readInt(v)).toBeUndefined(),
  );

  it.each([
    [true, true],
    [false, false],
    ['true', true],
    [' FALSE ', false],
  ])('readBool(%j) = %j', (v, b) => expect(readBool(v)).toBe(b));

  it.each([[undefined], [null], ['yes'], [1], ['1']])('readBool(%j) is undefined', (v) => expect(readBool(v)).toBeUndefined());
});

describe('normalise', () => {
  it('digit strings of the named integer fields become numbers, "true"/"false" booleans, nested too', () => {
    const wire = {
      id: '7',
      status: 'waiting-on-payer', // an enum value API.md does not list: kept
      current_step: ' 2 ',
      patient_id: 'P-1', // not a digit string: left as sent
      was_contact_reached: 'true',
      is_test_mode: false,
      outcome: null,
      steps: [{ id: '1', voice_assistant_id: '3', status: 'pending' }, null, 'odd'],
      outreach: [{ step: '1', call_record_id: '11', type: 'call', analysis: { score: '5' } }],
      sandbox_extra: '42',
    };
    expect(normalise(wire, API_FIELDS.sequence)).toEqual({
      id: 7,
      status: 'waiting-on-payer',
      current_step: 2,
      patient_id: 'P-1',
      was_contact_reached: true,
      is_test_mode: false,
      outcome: null,
      // step ids are strings in API.md: kept as strings
      steps: [{ id: '1', voice_assistant_id: 3, status: 'pending' }, null, 'odd'],
      outreach: [{ step: 1, call_record_id: 11, type: 'call', analysis: { score: '5' } }],
      sandbox_extra: '42',
    });
  });

  it('missing or null optional fields stay as they are; wrong shapes never crash', () => {
    expect(normalise({ id: 1 }, API_FIELDS.call)).toEqual({ id: 1 });
    expect(normalise({ id: 1, analysis: null, duration_ms: null }, API_FIELDS.call)).toEqual({ id: 1, analysis: null, duration_ms: null });
    expect(normalise({ id: 1, analysis: 'n/a', steps: 'x' }, API_FIELDS.call)).toEqual({ id: 1, analysis: 'n/a', steps: 'x' });
    expect(normalise({ id: 1, steps: { voice_assistant_id: '2' } }, API_FIELDS.sequence)).toEqual({ id: 1, steps: { voice_assistant_id: '2' } });
  });

  it.each([
    ['call', { id: '1', assistant_id: '2', duration_ms: '1000', analysis: { repetition_count: '0', interruption_count: '1', custom: { n: '3' } } },
      { id: 1, assistant_id: 2, duration_ms: 1000, analysis: { repetition_count: 0, interruption_count: 1, custom: { n: '3' } } }],
    ['eligibility', { id: '100', coverage: { is_active_today: 'false', member_id: '0012' } }, { id: 100, coverage: { is_active_today: false, member_id: '0012' } }],
    ['assistant', { id: '5', organization_id: '1', max_duration_seconds: '600', is_webhook_secret_set: 'true' }, { id: 5, organization_id: 1, max_duration_seconds: 600, is_webhook_secret_set: true }],
    ['phoneNumber', { id: '1', organization_id: '1', assistant_id: '3', number: '+14155550100' }, { id: 1, organization_id: 1, assistant_id: 3, number: '+14155550100' }],
    ['tool', { id: '0b7d', async: 'true', function: { name: 'f', strict: 'false' } }, { id: '0b7d', async: true, function: { name: 'f', strict: false } }],
    ['definition', { id: '1', inputs_definition: [{ id: 'a', required: 'true' }], steps_definition: [{ order: '1', delay_hours: '0', inputs: [{ id: 'b', required: 'false' }] }], is_archived: 'false' },
      { id: 1, inputs_definition: [{ id: 'a', required: true }], steps_definition: [{ order: 1, delay_hours: 0, inputs: [{ id: 'b', required: false }] }], is_archived: false }],
    ['metricsEntry', { id: '3', status: 'queued', outreach: [{ step: '2', messaging_encounter_id: '9' }] }, { id: 3, status: 'queued', outreach: [{ step: 2, messaging_encounter_id: 9 }] }],
  ] as const)('%s fields', (kind, wire, read) => {
    expect(normalise(wire as Record<string, unknown>, API_FIELDS[kind])).toEqual(read);
  });
});
