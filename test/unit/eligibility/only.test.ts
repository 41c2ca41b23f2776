import { describe, expect, it } from 'vitest';
import { keepsRow, ONLY_VALUES, OnlyOptionError, parseOnly, rowValues } from '../../../src/eligibility/bulkOnly.js';

describe('--only of eligibility check --csv', () => {
  it('parses a comma-separated list, forgiving case, spaces and _', () => {
    expect([...parseOnly('inactive, Not Supported,NOT_SENT', true)]).toEqual(['inactive', 'not-supported', 'not-sent']);
    expect([...parseOnly('invalid,pending,,', false)]).toEqual(['invalid', 'pending']);
  });

  it('refuses an unknown value (listing the known ones), an empty list, and check results without --wait', () => {
    expect(() => parseOnly('active,nope', true)).toThrow(OnlyOptionError);
    expect(() => parseOnly('nope', false)).toThrow(`use one or more of: ${ONLY_VALUES.join(', ')}`);
    expect(() => parseOnly(' , ', true)).toThrow(/needs one or more/);
    expect(() => parseOnly('unknown-status', false)).toThrow(/add --wait/);
    expect(() => parseOnly('accepted,unknown', false)).not.toThrow();
  });

  it("a row answers to its submission's result and, once submitted, to its check's result (pending until known)", () => {
    expect(rowValues({ result: 'invalid' })).toEqual(['invalid']);
    expect(rowValues({})).toEqual(['not-sent']);
    expect(rowValues({ result: 'accepted' })).toEqual(['accepted', 'submitted', 'pending']);
    expect(rowValues({ result: 'already-submitted', check: 'not completed yet' })).toEqual(['already-submitted', 'submitted', 'pending']);
    expect(rowValues({ result: 'accepted', check: 'could not be read' })).toEqual(['accepted', 'submitted', 'pending']);
    expect(rowValues({ result: 'accepted', check: 'not supported' })).toEqual(['accepted', 'submitted', 'not-supported']);
    expect(rowValues({ result: 'accepted', check: 'no coverage answer' })).toEqual(['accepted', 'submitted', 'no-coverage-answer']);
    // Every value a row can answer to is one --only takes.
    for (const v of ['unknown status', 'other outcome', 'failed', 'active', 'inactive'] as const) {
      expect(ONLY_VALUES).toContain(rowValues({ result: 'accepted', check: v })[2]);
    }
  });

  it('keeps every row without --only, and the listed ones with it', () => {
    expect(keepsRow(undefined, { result: 'invalid' })).toBe(true);
    const only = parseOnly('inactive,rejected', true);
    expect(keepsRow(only, { result: 'accepted', check: 'inactive' })).toBe(true);
    expect(keepsRow(only, { result: 'rejected' })).toBe(true);
    expect(keepsRow(only, { result: 'accepted', check: 'active' })).toBe(false);
    expect(keepsRow(only, { result: 'invalid' })).toBe(false);
  });
});
