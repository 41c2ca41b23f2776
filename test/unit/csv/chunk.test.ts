import { describe, expect, it } from 'vitest';
import { chunks } from '../../../src/csv/chunk.js';

async function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('chunks', () => {
  it.each([
    [0, 100, []],
    [1, 100, [1]],
    [100, 100, [100]],
    [101, 100, [100, 1]],
    [250, 100, [100, 100, 50]],
    [5, 2, [2, 2, 1]],
  ])('%i items in chunks of %i → sizes %j', async (n, size, sizes) => {
    const groups = await collect(chunks(range(n), size));
    expect(groups.map((g) => g.length)).toEqual(sizes);
    expect(groups.flat()).toEqual([...Array(n).keys()]);
  });

  it('defaults to 100 and rejects bad sizes', async () => {
    expect((await collect(chunks(range(150)))).map((g) => g.length)).toEqual([100, 50]);
    await expect(collect(chunks(range(3), 0))).rejects.toThrow(RangeError);
  });

  it('pulls lazily: no more than one chunk ahead', async () => {
    let pulled = 0;
    async function* counted() {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield i;
      }
    }
    for await (const g of chunks(counted(), 10)) {
      expect(g).toHaveLength(10);
      break;
    }
    expect(pulled).toBe(10);
  });
});
