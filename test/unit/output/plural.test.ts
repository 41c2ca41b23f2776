import { describe, expect, it } from 'vitest';
import { plural } from '../../../src/output/plural.js';

describe('plural', () => {
  it('says one thing in the singular and every other count in the plural', () => {
    expect(plural(1, 'row')).toBe('1 row');
    expect(plural(0, 'row')).toBe('0 rows');
    expect(plural(2, 'warning')).toBe('2 warnings');
    expect(plural(1204, 'row')).toBe('1,204 rows');
  });
  it('knows the regular spellings and takes an irregular one', () => {
    expect(plural(2, 'entry')).toBe('2 entries');
    expect(plural(2, 'delay')).toBe('2 delays');
    expect(plural(3, 'batch')).toBe('3 batches');
    expect(plural(2, 'was', 'were')).toBe('2 were');
  });
});
