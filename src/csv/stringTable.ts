// A workbook's shared strings (every distinct text of it, which its cells refer to by number),
// kept compact: their UTF-8 bytes end to end in one buffer outside V8's heap, and where each ends.
// About a third of the memory of an array of strings, and none of it in the heap the garbage
// collector sizes itself by; a million distinct member ids take ~16 MB instead of ~45 MB.

export class StringTable {
  private bytes: Buffer = Buffer.allocUnsafe(64 * 1024);
  private ends = new Uint32Array(1024);
  private used = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(text: string): void {
    const length = Buffer.byteLength(text, 'utf8');
    if (this.used + length > this.bytes.length) this.bytes = grown(this.bytes, this.used + length);
    if (this.count === this.ends.length) {
      const ends = new Uint32Array(this.ends.length * 2);
      ends.set(this.ends);
      this.ends = ends;
    }
    this.used += this.bytes.write(text, this.used, 'utf8');
    this.ends[this.count++] = this.used;
  }

  /** The text at `index` (0-based), or undefined when there is none. */
  get(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) return undefined;
    return this.bytes.toString('utf8', index === 0 ? 0 : this.ends[index - 1], this.ends[index]);
  }
}

function grown(bytes: Buffer, needed: number): Buffer {
  let size = bytes.length * 2;
  while (size < needed) size *= 2;
  const next = Buffer.allocUnsafe(size);
  bytes.copy(next);
  return next;
}
