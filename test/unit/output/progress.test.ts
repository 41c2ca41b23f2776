// The one progress line (src/output/progress.ts) on a fake terminal and a hand-driven clock: what it
// says (count, total or %, rate, time left), how it fits 80 and 40 columns, that it is redrawn at
// most 10 times a second, that it leaves nothing on screen, and that the Io never draws it where it
// must not (not a terminal, --quiet, rows on the same screen).
import { PassThrough, Writable } from 'node:stream';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { createContext } from '../../../src/context.js';
import { createIo } from '../../../src/io.js';
import { formatLeft, REDRAW_MS, StatusLine, type ProgressOptions } from '../../../src/output/progress.js';
import { retryStatus } from '../../../src/output/retryStatus.js';

/** A terminal's stderr: records every write and keeps the screen as a terminal would show it. */
function fakeTerminal(columns: number) {
  const writes: string[] = [];
  const lines: string[] = [''];
  let col = 0;
  const put = (text: string) => {
    writes.push(text);
    for (let i = 0; i < text.length; i++) {
      if (text.startsWith('\u001b[2K', i)) {
        lines[lines.length - 1] = '';
        i += 3;
      } else if (text[i] === '\r') col = 0;
      else if (text[i] === '\n') {
        lines.push('');
        col = 0;
      } else {
        const row = lines[lines.length - 1]!;
        lines[lines.length - 1] = row.slice(0, col) + text[i] + row.slice(col + 1);
        col++;
      }
    }
  };
  return {
    stream: { columns, write: put },
    writes,
    /** The screen's lines, the empty last one (the cursor's) dropped. */
    screen: () => lines.filter((l, i) => l !== '' || i < lines.length - 1),
    /** The line the cursor is on. */
    current: () => lines[lines.length - 1]!,
  };
}

function manualClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function setup(columns = 80) {
  const term = fakeTerminal(columns);
  const clock = manualClock();
  const line = new StatusLine(term.stream, clock, { tick: false });
  return { term, clock, line };
}

const create: ProgressOptions = { label: 'Creating sequences', unit: 'row', verb: 'created', total: 1000 };

describe('the progress line', () => {
  it('shows the count of the total and the %, then the rate after a second and the time left after two', () => {
    const { term, clock, line } = setup();
    const p = line.progress(create);
    expect(term.current()).toBe('Creating sequences  ░░░░░░░░░░░░░░░░░░░░  0 of 1,000 created · 0%');
    clock.advance(1000);
    p.update(100);
    expect(term.current()).toMatch(/^Creating sequences  ██░+  100 of 1,000 created · 10% · 100 rows\/s$/);
    clock.advance(1000);
    p.update(200);
    // 20% in 2 s: 8 s for the other 80%.
    expect(term.current()).toMatch(/ 200 of 1,000 created · 20% · 100 rows\/s · 8s left$/);
    p.done();
  });

  it('a slow rate has a decimal; the time left reads in minutes and hours', () => {
    const { term, clock, line } = setup();
    const p = line.progress({ label: 'Waiting for checks', unit: 'check', verb: 'complete', total: 200 });
    clock.advance(4000);
    p.update(3);
    expect(term.current()).toContain('3 of 200 complete · 1% · 0.8 checks/s · 4m 23s left');
    expect([formatLeft(0.2), formatLeft(59), formatLeft(61), formatLeft(7260)]).toEqual(['1s', '59s', '1m 01s', '2h 01m']);
    p.done();
  });

  it("a run's detail (what the service says of the rest) follows the count, and goes first at a narrow width", () => {
    const { term, clock, line } = setup();
    const started = clock.now();
    const p = line.progress({ label: 'Waiting for checks', unit: 'check', verb: 'complete', total: 3, detail: (now) => `2 queued · ${Math.round((now - started) / 1000)}s` });
    clock.advance(3000);
    p.update(1);
    expect(term.current()).toContain('1 of 3 complete · 2 queued · 3s · 33%');
    const narrow = setup(40);
    narrow.line.progress({ label: 'Waiting for checks', unit: 'check', verb: 'complete', total: 3, detail: () => '2 queued, 1 in-progress · 125s' });
    expect(narrow.term.current()).not.toContain('queued');
    expect(narrow.term.current()).toContain('0 of 3 complete');
    p.done();
  });

  it('without a total, shows the rows counted and the % of the file read', () => {
    const { term, clock, line } = setup();
    let read = 0;
    const p = line.progress({ label: 'Checking rows', unit: 'row', verb: 'checked', bytes: () => ({ read, size: 40_000 }) });
    expect(term.current()).toMatch(/^Checking rows  ░+  0 rows checked · 0%$/);
    read = 10_000;
    clock.advance(500);
    p.update(1);
    expect(term.current()).toMatch(/^Checking rows  █+░+  1 row checked · 25%$/);
    read = 40_000;
    clock.advance(2000);
    p.update(4000);
    // Never 100% by bytes: the rows read are not yet the rows done.
    expect(term.current()).toContain('4,000 rows checked · 99% · 1,600 rows/s');
    p.done();
  });

  it('without a total or a file, is a count', () => {
    const { term, line } = setup();
    const p = line.progress({ label: 'Submitting checks', unit: 'row', verb: 'done' });
    expect(term.current()).toBe('Submitting checks  0 rows done');
    p.done();
  });

  it.each([80, 40, 24])('fits %i columns: the label is shortened first, the count is never cut', (columns) => {
    const { term, clock, line } = setup(columns);
    const p = line.progress({ ...create, label: 'Creating sequences for 患者の予約 📅', total: 123_456 });
    for (let i = 1; i <= 5; i++) {
      clock.advance(1000);
      p.update(i * 10_000);
      const shown = term.current();
      expect(stringWidth(shown), shown).toBeLessThanOrEqual(columns - 1);
      if (columns >= 40) expect(shown).toContain(`${(i * 10_000).toLocaleString('en-US')} of 123,456 created`);
    }
    if (columns === 40) expect(term.current()).toMatch(/^Creating se…  \d/);
    // Just enough of the label goes.
    if (columns === 80) expect(term.current()).toBe('Creating sequences …  50,000 of 123,456 created · 40% · 10,000 rows/s · 7s left');
    p.done();
  });

  it('is cleared when done: nothing of it stays on screen, and what the command prints next is alone', () => {
    const { term, clock, line } = setup();
    const p = line.progress(create);
    clock.advance(1000);
    p.update(500);
    p.done();
    expect(term.screen()).toEqual([]);
    expect(term.writes.at(-1)).toBe('\r\u001b[2K');
    term.stream.write('1,000 sequences created.\n');
    expect(term.screen()).toEqual(['1,000 sequences created.']);
    p.done(); // twice is harmless
    p.update(600); // after done: nothing
    expect(term.screen()).toEqual(['1,000 sequences created.']);
  });

  it('is redrawn at most every 100 ms however often it is updated', () => {
    const { term, clock, line } = setup();
    const p = line.progress(create);
    const before = term.writes.length;
    for (let i = 1; i <= 1000; i++) {
      p.update(i);
      if (i % 10 === 0) clock.advance(1); // 1,000 updates in 100 ms
    }
    // The start was drawn; within REDRAW_MS of it nothing, then exactly one redraw.
    expect(term.writes.length - before).toBe(0);
    expect(REDRAW_MS).toBe(100);
    clock.advance(REDRAW_MS);
    p.update(1000);
    expect(term.writes.length - before).toBe(1);
    expect(term.current()).toContain('1,000 of 1,000 created');
    p.done();
  });

  it('makes way for other output and comes back at the next update', () => {
    const { term, clock, line } = setup();
    const p = line.progress(create);
    line.interrupt();
    term.stream.write('note: something\n');
    clock.advance(200);
    p.update(10);
    expect(term.screen()).toEqual(['note: something', expect.stringContaining('10 of 1,000 created')]);
    p.done();
    expect(term.screen()).toEqual(['note: something']);
  });
});

describe('the retry status', () => {
  const notice = { attempt: 2, maxAttempts: 4, reason: 'timed out after 2 s', failure: { kind: 'lost', code: 'timeout' } as const };

  it('says what went wrong, which retry comes and when, in plain words', () => {
    expect(retryStatus(notice, 4000)).toBe('Service not answering (timed out after 2 s); retry 1 of 3 in 4s…');
    expect(retryStatus(notice, 0)).toBe('Service not answering (timed out after 2 s); retry 1 of 3…');
    expect(retryStatus({ ...notice, attempt: 3, failure: { kind: 'status', status: 503 } }, 2000)).toBe('Service unavailable (503); retry 2 of 3 in 2s…');
    expect(retryStatus({ ...notice, failure: { kind: 'status', status: 429 } }, 30_000)).toBe('Service busy (429 Too Many Requests); retry 1 of 3 in 30s…');
    expect(retryStatus({ ...notice, failure: { kind: 'not-sent', code: 'ECONNREFUSED' } }, 1000)).toBe('Service refused the connection; retry 1 of 3 in 1s…');
  });

  it('counts down on a line of its own, and is gone when the request ends', () => {
    const { term, clock, line } = setup();
    const key = {};
    const at = clock.now() + 4000;
    line.status(key, (now) => retryStatus(notice, at - now));
    expect(term.current()).toBe('Service not answering (timed out after 2 s); retry 1 of 3 in 4s…');
    clock.advance(2000);
    line.interrupt(); // what the ticker does: draw again as time passes
    line.status({}, undefined); // another request's end changes nothing
    expect(line.render(clock.now())).toBe('Service not answering (timed out after 2 s); retry 1 of 3 in 2s…');
    line.status(key, undefined);
    expect(term.screen()).toEqual([]);
  });

  it('takes the place of the count, rate and time left on the progress line, and gives it back', () => {
    const { term, clock, line } = setup();
    const p = line.progress(create);
    clock.advance(1000);
    p.update(100);
    const key = {};
    line.status(key, () => 'Service unavailable (503); retry 1 of 3 in 2s…');
    expect(term.current()).toBe('Creating sequences  Service unavailable (503); retry 1 of 3 in 2s…');
    line.status(key, undefined);
    expect(term.current()).toMatch(/^Creating sequences  █+░+  100 of 1,000 created · 10% · 100 rows\/s$/);
    p.done();
    expect(term.screen()).toEqual([]);
  });

  it('keeps the status whole at 60 columns: the label gives way', () => {
    const { term, line } = setup(60);
    const p = line.progress(create);
    line.status({}, () => 'Service unavailable (503); retry 1 of 3 in 2s…');
    expect(term.current()).toBe('Creating s…  Service unavailable (503); retry 1 of 3 in 2s…');
    p.done();
  });
});

describe('the Io draws it only where it may', () => {
  const streams = (tty: boolean) => {
    let err = '';
    const stderr = new Writable({
      write(chunk, _e, done) {
        err += chunk;
        done();
      },
    });
    Object.assign(stderr, { isTTY: tty, columns: 80 });
    const stdout = new PassThrough();
    Object.assign(stdout, { isTTY: tty, columns: 80 });
    return { s: { stdin: new PassThrough(), stdout, stderr }, err: () => err };
  };
  let opened: Array<{ done(): void }> = [];
  afterEach(() => {
    opened.forEach((p) => p.done());
    opened = [];
  });

  it('draws on a terminal, and clears itself before other text on stderr', async () => {
    const { s, err } = streams(true);
    const io = createIo({ env: {} }, s);
    const p = await io.progress(create);
    opened.push(p);
    expect(err()).toContain('0 of 1,000 created');
    io.err('warning: a note\n');
    expect(err()).toMatch(/0% ?\r\u001b\[2Kwarning: a note\n$/);
    p.done();
  });

  it('Ctrl-C takes the line off the screen before "Interrupted." is written', async () => {
    const { s, err } = streams(true);
    const io = createIo({ env: {} }, s);
    const stop = new AbortController();
    createContext({ io, env: {}, signal: stop.signal, globals: { format: 'table', formatExplicit: false, quiet: false, debug: false, requestTimeoutSec: 30, noInput: true } });
    const p = await io.progress(create);
    opened.push(p);
    expect(err()).toMatch(/0 of 1,000 created · 0%$/);
    stop.abort();
    expect(err()).toMatch(/0%\r\u001b\[2K$/);
  });

  it.each([
    ['stderr is not a terminal', false, {}, {}],
    ['--quiet', true, { quiet: true }, {}],
    ['rows are streamed to the same terminal', true, {}, { rowsOnScreen: true }],
  ])('draws nothing when %s', async (_what, tty, settings, extra) => {
    const { s, err } = streams(tty);
    const io = createIo({ env: {}, ...settings }, s);
    const p = await io.progress({ ...create, ...extra });
    opened.push(p);
    p.update(10);
    p.done();
    expect(err()).toBe('');
  });
});
