import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../../src/util/lineIndex.js';

describe('LineIndex', () => {
  it('returns the first line of a value seen before, across growth, and never confuses distinct values', () => {
    const idx = new LineIndex();
    const n = 200_000; // grows the table many times
    for (let i = 0; i < n; i++) expect(idx.firstLineOrAdd(`P-${i}`, i + 2)).toBeUndefined();
    expect(idx.firstLineOrAdd('P-0', 999_999)).toBe(2);
    expect(idx.firstLineOrAdd('P-123456', 999_999)).toBe(123_458);
    expect(idx.firstLineOrAdd(`P-${n - 1}`, 999_999)).toBe(n + 1);
    // A repeat does not replace the first line.
    expect(idx.firstLineOrAdd('P-0', 5)).toBe(2);
    expect(idx.firstLineOrAdd('p-0', 7)).toBeUndefined(); // case matters: another id
  });
});
