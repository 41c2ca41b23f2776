// The first line where each value of a column was seen, for a file of any length: a patient id
// repeated on line 80,512 is reported as "repeats the patient id of line 12". A Map of the ids
// themselves costs about 100 bytes a row (300 MB over a million rows); this open-addressing table
// keeps a 63-bit hash of each value and its line in typed arrays: 24 bytes a row at most. Two
// different ids share a hash with a probability of about 1 in 10^7 for a million-row file.
import { createHash } from 'node:crypto';

export class LineIndex {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private lines = new Uint32Array(1024);
  private size = 0;

  /** The line recorded for `value`, or records `line` for it and returns undefined. */
  firstLineOrAdd(value: string, line: number): number | undefined {
    const d = createHash('sha1').update(value).digest();
    const hi = d.readUInt32LE(0);
    const lo = (d.readUInt32LE(4) | 1) >>> 0; // never 0 (0 marks an empty slot); unsigned, as stored
    const found = this.find(hi, lo);
    if (this.lo[found] !== 0) return this.lines[found];
    this.hi[found] = hi;
    this.lo[found] = lo;
    this.lines[found] = line;
    if (++this.size * 2 > this.lo.length) this.grow();
    return undefined;
  }

  private find(hi: number, lo: number): number {
    const mask = this.lo.length - 1;
    for (let i = (hi ^ lo) & mask; ; i = (i + 1) & mask) {
      if (this.lo[i] === 0 || (this.hi[i] === hi && this.lo[i] === lo)) return i;
    }
  }

  private grow(): void {
    const { hi, lo, lines } = this;
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(lo.length * 2);
    this.lines = new Uint32Array(lines.length * 2);
    for (let i = 0; i < lo.length; i++) {
      if (lo[i] === 0) continue;
      const at = this.find(hi[i]!, lo[i]!);
      this.hi[at] = hi[i]!;
      this.lo[at] = lo[i]!;
      this.lines[at] = lines[i]!;
    }
  }
}
