// A one-line progress indicator on stderr, only on a terminal and never with --quiet: a bar when
// the total is known (the create pass), a counter otherwise (the checking pass).
import type { Io } from '../io.js';

export class Progress {
  private last = 0;
  private shown = false;

  constructor(
    private readonly io: Io,
    private readonly enabled: boolean,
  ) {}

  update(label: string, done: number, total?: number, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && now - this.last < 100) return;
    this.last = now;
    let text: string;
    if (total && total > 0) {
      const width = 30;
      const filled = Math.min(width, Math.round((done / total) * width));
      text = `${label} [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
    } else {
      text = `${label} ${done.toLocaleString('en-US')} rows`;
    }
    this.io.err(`\r\u001b[2K${text}`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) this.io.err('\r\u001b[2K');
    this.shown = false;
  }
}
