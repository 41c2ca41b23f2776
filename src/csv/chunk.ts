// Groups an async stream into arrays of at most `size` items (the batch API takes 100 rows).

/** Yields consecutive groups of `size` items; the last group may be shorter, and none is empty. */
export async function* chunks<T>(iter: AsyncIterable<T>, size = 100): AsyncGenerator<T[], void, undefined> {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('chunk size must be a positive integer');
  let group: T[] = [];
  for await (const item of iter) {
    group.push(item);
    if (group.length === size) {
      yield group;
      group = [];
    }
  }
  if (group.length > 0) yield group;
}
