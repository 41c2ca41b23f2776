// main(argv, {io, env, clock, signal}) in this process: the exit code is its return value, nothing
// reaches the real process streams or comes from the real environment, waits run on the given clock,
// and two runs at once share nothing (each its own env, streams, clock and Ctrl-C).
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBufferStreams } from '../../src/io.js';
import { main } from '../../src/main.js';
import type { Clock } from '../../src/util/clock.js';
import { virtualClock } from '../helpers/clock.js';
import { baseEnv, tempDir } from '../helpers/cli.js';
import { json, startFaultServer, type Behaviour, type FaultServer } from '../helpers/faultServer.js';

const tmp = tempDir('outreach-main-');
afterAll(() => tmp.cleanup());
afterEach(() => vi.restoreAllMocks());

function run(argv: string[], env: Record<string, string>, more: { signal?: AbortSignal; clock?: Clock; stdin?: string } = {}) {
  const buffers = createBufferStreams({ stdin: more.stdin });
  const done = main(argv, { io: buffers.streams, env, clock: more.clock ?? virtualClock(), signal: more.signal });
  return { done, stdout: buffers.stdout, stderr: buffers.stderr };
}

let ok: FaultServer;
let list: FaultServer;
beforeAll(async () => {
  ok = await startFaultServer(json(200, { status: 'ok' }));
  list = await startFaultServer(json(200, [{ id: 1, call_status: 'ended' }]));
});
afterAll(async () => {
  await ok.close();
  await list.close();
});

describe('main in process', () => {
  it('returns the exit code and writes only to the given streams', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => {
      throw new Error('process.exit called');
    }) as never);

    const help = run(['--help'], baseEnv(tmp.dir));
    expect(await help.done).toBe(0);
    expect(help.stdout()).toContain('Usage: outreach');

    const typo = run(['helth'], baseEnv(tmp.dir));
    expect(await typo.done).toBe(2);
    expect(typo.stderr()).toContain("unknown command 'helth'");

    const health = run(['health', '-o', 'json', '--base-url', ok.url], baseEnv(tmp.dir));
    expect(await health.done).toBe(0);
    expect(JSON.parse(health.stdout())).toEqual({ status: 'ok' });

    const noKey = run(['calls', 'list', '--json', '--base-url', ok.url], baseEnv(tmp.dir));
    expect(await noKey.done).toBe(4);
    expect(JSON.parse(noKey.stderr()).error.code).toBeTruthy();

    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
    expect(exit).not.toHaveBeenCalled();
  });

  it('reads the given env only, never process.env', async () => {
    vi.stubEnv('OUTREACH_API_KEY', 'sk_from_the_real_environment');
    vi.stubEnv('OUTREACH_BASE_URL', list.url);
    try {
      // No key and no service in the given env: exit 4, whatever this process's env holds.
      const r = run(['calls', 'list', '--base-url', list.url], baseEnv(tmp.dir));
      expect(await r.done).toBe(4);
      expect(list.requests).toHaveLength(0);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('backoffs wait on the given clock: a long Retry-After costs no real time', async () => {
    const flaky = await startFaultServer([json(503, { message: 'busy' }, { 'retry-after': '20' }), json(200, { status: 'ok' })]);
    try {
      const clock = virtualClock();
      const started = performance.now();
      const virtualStart = clock.now();
      const r = run(['health', '-o', 'json', '--base-url', flaky.url], baseEnv(tmp.dir), { clock });
      expect(await r.done, r.stderr()).toBe(0);
      expect(flaky.requests).toHaveLength(2);
      expect(clock.now() - virtualStart).toBeGreaterThanOrEqual(20_000);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await flaky.close();
    }
  });

  it('two runs at once share nothing: each its own env, output, clock and Ctrl-C', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const hang: Behaviour = async (_req, res) => {
      await held;
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    };
    const slow = await startFaultServer(hang);
    const other = tempDir('outreach-main-b-');
    try {
      const ctrlC = new AbortController();
      const a = run(['calls', 'list', '--debug'], { ...baseEnv(tmp.dir), OUTREACH_API_KEY: 'key-a', OUTREACH_BASE_URL: slow.url }, { signal: ctrlC.signal });
      while (slow.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      // B starts while A is in flight, with another key, service, config dir and output format.
      const b = run(['calls', 'list', '-o', 'json'], { ...baseEnv(other.dir), OUTREACH_API_KEY: 'key-b', OUTREACH_BASE_URL: list.url });
      expect(await b.done, b.stderr()).toBe(0);
      expect(JSON.parse(b.stdout())).toEqual([{ id: 1, call_status: 'ended' }]);
      expect(b.stderr()).toBe(''); // A's --debug trace is A's alone
      expect(list.requests.at(-1)!.headers.authorization).toBe('Bearer key-b');
      expect(slow.requests[0]!.headers.authorization).toBe('Bearer key-a');
      // Ctrl-C for A ends A (130), and only A.
      ctrlC.abort();
      expect(await a.done).toBe(130);
      expect(a.stderr()).toContain('[debug] → GET');
      expect(a.stderr()).toMatch(/\nInterrupted\.\n$/);
      expect(b.stderr()).not.toContain('Interrupted');
    } finally {
      release();
      await slow.close();
      other.cleanup();
    }
  });
});

describe('an error on a terminal', () => {
  const onTerminal = async (argv: string[], env: Record<string, string> = {}) => {
    const buffers = createBufferStreams();
    Object.assign(buffers.streams.stderr, { isTTY: true, columns: 80 });
    const code = await main(argv, { io: buffers.streams, env: { ...baseEnv(tmp.dir), ...env }, clock: virtualClock() });
    // What stays on screen: a transient status line (a retry's) is cleared by \r and ESC[2K.
    const lines = buffers.stderr().split('\n').map((l) => l.split('\u001b[2K').at(-1)!.split('\r').at(-1)!);
    return { code, lines: lines.filter(Boolean) };
  };

  it('is wrapped at words within 80 columns, continuation lines indented', async () => {
    const { code, lines } = await onTerminal(['calls', 'list', '--since', 'the day after the last appointment of the year']);
    expect(code).toBe(2);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[0]).toMatch(/^error: Invalid --since "the day after/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(79);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}\S/);
    // Nothing lost or cut inside a word: the words read back as the one message.
    expect(lines.map((l) => l.trim()).join(' ')).toContain('or a relative form (30m, 12h, 2d, 1w, today, yesterday).');
  });

  it('keeps a line holding a command whole (a command broken at a space would run its first half)', async () => {
    // A port nothing listens on: the refused connection's hint names the command to start the sandbox.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const { lines } = await onTerminal(['--base-url', `http://127.0.0.1:${port}/v1`, 'calls', 'list'], { OUTREACH_API_KEY: 'test-key-0123456789' });
    const withCommand = lines.find((l) => /outreach sandbox/.test(l));
    expect(withCommand).toBe(`  outreach sandbox --port ${port}`);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(79);
  });
});
