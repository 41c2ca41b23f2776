import { describe, expect, it } from 'vitest';
import { StringTable } from '../../../src/csv/stringTable.js';

describe('StringTable', () => {
  it('gives back every text at its index, across growth of both buffers', () => {
    const t = new StringTable();
    const texts = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? '' : `MBR${i}-${'é✓'.repeat(i % 40)}-${'x'.repeat(i % 97)}`));
    texts.push('😀 García', 'x'.repeat(200_000)); // wider than the first buffer at once
    for (const s of texts) t.add(s);
    expect(t.size).toBe(texts.length);
    texts.forEach((s, i) => expect(t.get(i)).toBe(s));
  });

  it('undefined outside the table', () => {
    const t = new StringTable();
    t.add('a');
    expect([t.get(-1), t.get(1), t.get(0.5), t.get(0)]).toEqual([undefined, undefined, undefined, 'a']);
  });
});
