// Hostile input for `outreach webhooks listen` (the built CLI, spawned): bodies nested too deep or
// too large, a wrong secret with a body that never comes, slow connections by the hundred, a
// --forward-to target that redirects, patient data and escape sequences in deliveries.
// The listener must survive all of it, keep serving good deliveries, and show nothing raw.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv, tempDir } from '../helpers/cli.js';
import { Listener, sleep, target, waitFor, type Target } from '../helpers/listener.js';
import { shown } from '../../src/webhooks/classify.js';
import { nestedDeeperThan } from '../../src/util/jsonDepth.js';
import { DEFAULT_LIMITS, parseLimits } from '../../src/webhooks/listener.js';

const SECRET = 'whsec-sec-5d0c2b81';
const GOOD = (id: number) => JSON.stringify({ type: 'end-of-call-report', call: { id, call_status: 'ended', outcome: 'declined', duration_ms: 92_000 } });
const DEEP_ARRAY = '['.repeat(10_000) + ']'.repeat(10_000);
const DEEP_OBJECT = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function listen(args: string[], env: Record<string, string> = {}): Promise<Listener> {
  const tmp = tempDir();
  const l = new Listener(args, { ...baseEnv(tmp.dir), S: SECRET, ...env });
  cleanup.push(async () => {
    await l.stop('SIGKILL');
    tmp.cleanup();
  });
  await l.started();
  return l;
}

async function post(l: Listener, body: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(l.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(5000) });
  await res.arrayBuffer();
  return res.status;
}

/** Sends a delivery that must be received: 200 and its line printed, within a few seconds. */
async function goodDelivery(l: Listener, id: number, headers: Record<string, string> = {}): Promise<void> {
  expect(await post(l, GOOD(id), headers)).toBe(200);
  await waitFor(() => l.stdout.includes(`"id":${id}`) || l.stdout.includes(`call ${id} `), 5000, `delivery ${id} printed`);
}

interface Raw {
  socket: Socket;
  data: string;
  closed: boolean;
  closedAfterMs?: number;
  done: Promise<void>;
}

/** A raw TCP client: writes `first` at once; `data` collects the answer; `done` settles on close. */
function raw(port: number, first: string | Buffer): Raw {
  const socket = connect(port, '127.0.0.1');
  const started = Date.now();
  const r: Raw = { socket, data: '', closed: false, done: undefined as unknown as Promise<void> };
  r.done = new Promise<void>((resolve) => {
    socket.on('close', () => {
      r.closed = true;
      r.closedAfterMs = Date.now() - started;
      resolve();
    });
  });
  socket.on('data', (d) => (r.data += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.write(first);
  return r;
}

describe('webhooks listen survives hostile bodies', () => {
  it('a body nested 10,000 deep (ndjson, no secret) is refused with 400; the listener lives on', async () => {
    const l = await listen(['-o', 'ndjson']);
    expect(await post(l, DEEP_ARRAY)).toBe(400);
    expect(await post(l, DEEP_OBJECT)).toBe(400);
    await sleep(200);
    expect(l.alive, l.stderr).toBe(true);
    await goodDelivery(l, 101);
    expect(l.stderr).toMatch(/nested too deeply.*\(answered 400\)/);
    expect(l.stderr).not.toMatch(/RangeError|Maximum call stack/);
  });

  it('the same with a secret: 401 without it, 400 with it, and good deliveries still come through', async () => {
    const l = await listen(['-o', 'ndjson', '--secret-env', 'S']);
    const auth = { authorization: `Bearer ${SECRET}` };
    expect(await post(l, DEEP_ARRAY)).toBe(401);
    expect(await post(l, DEEP_ARRAY, { authorization: 'Bearer wrong-secret-xyz' })).toBe(401);
    expect(await post(l, DEEP_ARRAY, auth)).toBe(400);
    expect(await post(l, DEEP_OBJECT, auth)).toBe(400);
    await sleep(200);
    expect(l.alive, l.stderr).toBe(true);
    await goodDelivery(l, 102, auth);
    expect(l.lines().filter((x) => x.kind === 'end-of-call')).toHaveLength(1);
    expect(l.stdout + l.stderr).not.toContain(SECRET);
  });

  it('a table-mode listener survives the same, and bodies nested within reason are printed unchanged', async () => {
    const l = await listen(['-o', 'table']);
    expect(await post(l, DEEP_ARRAY)).toBe(400);
    await goodDelivery(l, 103);
    expect(l.alive).toBe(true);
    const nd = await listen(['-o', 'ndjson']);
    let nested: unknown = { leaf: 'x\u001b' };
    for (let i = 0; i < 40; i++) nested = { n: nested };
    expect(await post(nd, JSON.stringify({ type: 'end-of-call-report', call: { id: 104, deep: nested } }))).toBe(200);
    const line = await waitFor(() => nd.lines()[0], 5000, 'the line');
    expect(line.body.call.deep).toEqual(nested);
  });

  it('a body over 1 MiB gets 413 (announced or streamed), without being read in full; the listener lives on', async () => {
    const l = await listen(['-o', 'ndjson']);
    const big = JSON.stringify({ type: 'end-of-call-report', call: { id: 1, transcript: 'x'.repeat(1024 * 1024 + 10) } });
    expect(await post(l, big)).toBe(413);
    // Announced: answered from the headers alone, at once.
    const announced = raw(l.port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"a":');
    await Promise.race([announced.done, sleep(2000)]);
    expect(announced.data).toMatch(/^HTTP\/1\.1 413/);
    expect(announced.closed).toBe(true);
    // Streamed (chunked, no length): cut once it passes the cap.
    const streamed = raw(l.port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = 'y'.repeat(64 * 1024);
    for (let i = 0; i < 20 && !streamed.closed; i++) {
      streamed.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      await sleep(5);
    }
    await Promise.race([streamed.done, sleep(2000)]);
    expect(streamed.data).toMatch(/^HTTP\/1\.1 413/);
    expect(l.alive).toBe(true);
    // Just under the cap is fine.
    const fits = JSON.stringify({ type: 'end-of-call-report', call: { id: 105, transcript: 'x'.repeat(1000 * 1000) } });
    expect(await post(l, fits)).toBe(200);
    await goodDelivery(l, 106);
    expect(l.stderr).toMatch(/body over 1 MiB \(answered 413\)/);
  });
});

describe('webhooks listen checks the secret before reading the body', () => {
  it('a wrong or missing secret is answered 401 from the headers alone, while the body never comes', async () => {
    const l = await listen(['-o', 'ndjson', '--secret-env', 'S']);
    const head = (auth: string) => `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n${auth}\r\n`;
    const wrong = raw(l.port, head('Authorization: Bearer not-it-at-all\r\n'));
    const missing = raw(l.port, head(''));
    await Promise.race([Promise.all([wrong.done, missing.done]), sleep(1500)]);
    for (const r of [wrong, missing]) {
      expect(r.data).toMatch(/^HTTP\/1\.1 401/);
      expect(r.closed).toBe(true);
    }
    expect(wrong.closedAfterMs!).toBeLessThan(1500);
    await goodDelivery(l, 107, { authorization: `Bearer ${SECRET}` });
  });
});

describe('webhooks listen under a slowloris', () => {
  it('300 connections dribbling their headers: at most 128 stay open and a good delivery still succeeds at once', async () => {
    const l = await listen(['-o', 'ndjson']);
    const slow: Raw[] = [];
    for (let i = 0; i < 300; i++) slow.push(raw(l.port, 'POST / HTTP/1.1\r\nHost: x\r\n'));
    const drip = setInterval(() => {
      for (const s of slow) if (!s.closed) s.socket.write('X');
    }, 500);
    cleanup.push(() => {
      clearInterval(drip);
      for (const s of slow) s.socket.destroy();
    });
    await sleep(800);
    const started = Date.now();
    await goodDelivery(l, 108);
    expect(Date.now() - started).toBeLessThan(3000);
    await waitFor(() => slow.filter((s) => !s.closed).length <= 128, 3000, 'the slow connections over the cap to be closed');
    expect(l.alive).toBe(true);
  });

  it('slow headers and slow bodies are cut by the header and request timeouts', async () => {
    const l = await listen(['-o', 'ndjson'], { OUTREACH_WEBHOOK_LIMITS: 'headersTimeoutMs=800,requestTimeoutMs=1500' });
    const heads = Array.from({ length: 20 }, () => raw(l.port, 'POST / HTTP/1.1\r\nHost: x\r\n'));
    const bodies = Array.from({ length: 5 }, () => raw(l.port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'));
    const drip = setInterval(() => {
      for (const s of [...heads, ...bodies]) if (!s.closed) s.socket.write('X');
    }, 200);
    cleanup.push(() => clearInterval(drip));
    await waitFor(() => heads.every((s) => s.closed), 4000, 'slow headers to be cut');
    await waitFor(() => bodies.every((s) => s.closed), 4000, 'slow bodies to be cut');
    clearInterval(drip);
    await goodDelivery(l, 109);
    expect(l.lines().map((x) => x.body?.call?.id)).toEqual([109]);
  });
});

describe('webhooks listen --forward-to never follows redirects', () => {
  async function redirecting(): Promise<{ a: Target; b: Target }> {
    const b = await target(200);
    let n = 0;
    const a = await target((res) => res.writeHead(n++ === 0 ? 302 : 307, { location: b.url }).end());
    cleanup.push(() => a.close(), () => b.close());
    return { a, b };
  }

  it('reports the 3xx itself and says redirects are not followed; the other server gets nothing', async () => {
    const { a, b } = await redirecting();
    const l = await listen(['-o', 'ndjson', '--forward-to', a.url]);
    expect(await post(l, GOOD(110))).toBe(200);
    expect(await post(l, GOOD(111))).toBe(200);
    const lines = await waitFor(() => (l.lines().length >= 2 ? l.lines() : null), 5000, '2 lines');
    expect(lines.map((x) => x.forward.status).sort()).toEqual([302, 307]);
    for (const x of lines) expect(x.forward.note).toMatch(/redirect.*not followed/i);
    expect(a.got).toHaveLength(2);
    expect(b.got).toHaveLength(0);
  });

  it('on a terminal the line shows the 3xx and that it was not followed', async () => {
    const { a, b } = await redirecting();
    const l = await listen(['-o', 'table', '--forward-to', a.url]);
    expect(await post(l, GOOD(112))).toBe(200);
    await waitFor(() => l.stdout.includes('call 112'), 5000, 'the line');
    expect(l.stdout).toMatch(/302 \(redirect not followed\)/);
    expect(b.got).toHaveLength(0);
  });
});

describe('the terminal line', () => {
  it('carries no patient identifiers: no customer_patient_id, payer, names or phone numbers', async () => {
    const l = await listen(['-o', 'table']);
    const check = JSON.stringify([
      { id: 41, status: 'completed', outcome: 'success', customer_patient_id: 'PX-4417', coverage: { is_active_today: true, member_id: 'ZX9988', payer_name: 'Aetna', plan_name: 'Aetna PPO' } },
    ]);
    expect(await post(l, check, { 'x-outreach-event': 'eligibility.completed' })).toBe(200);
    const call = JSON.stringify({ type: 'end-of-call-report', sequence_id: 12, step: 2, call: { id: 8, call_status: 'ended', outcome: 'voicemail', customer: { name: 'Rosa Quintero', number: '+14155550123' }, assistant_id: 3 } });
    expect(await post(l, call)).toBe(200);
    const seq = JSON.stringify({ id: 12, status: 'failed', outcome_description: 'Rosa Quintero declined', outreach: [{ type: 'call', analysis: { outcome: 'declined' } }] });
    expect(await post(l, seq)).toBe(200);
    await waitFor(() => l.stdout.trim().split('\n').length >= 3, 5000, '3 lines');
    const out = l.stdout.trim().split('\n');
    expect(out.find((x) => x.includes('eligibility'))).toMatch(/eligibility\s+check 41 {2}completed {2}success {2}active$/);
    expect(out.find((x) => x.includes('end-of-call'))).toMatch(/end-of-call\s+call 8 {2}ended {2}voicemail {2}sequence 12 {2}step 2$/);
    expect(out.find((x) => x.includes('end-of-sequence'))).toMatch(/end-of-sequence\s+sequence 12 {2}failed {2}outreach call:declined$/);
    for (const pii of ['PX-4417', 'Aetna', 'ZX9988', 'Rosa', 'Quintero', '+14155550123', 'patient']) expect(l.stdout).not.toContain(pii);
    for (const line of out) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('the summary of the ndjson line holds no patient identifiers either', async () => {
    const l = await listen(['-o', 'ndjson']);
    const check = JSON.stringify({ id: 42, status: 'completed', outcome: 'success', customer_patient_id: 'PX-5521', coverage: { payer_name: 'Cigna', is_active_today: false } });
    expect(await post(l, check)).toBe(200);
    const line = await waitFor(() => l.lines()[0], 5000, 'the line');
    expect(line.summary).not.toMatch(/PX-5521|Cigna/);
    expect(line.body.customer_patient_id).toBe('PX-5521'); // the delivery itself is as received
  });

  it('shows escape sequences and control characters from a delivery visibly, never raw, and clips long values', async () => {
    const l = await listen(['-o', 'table']);
    const evil = JSON.stringify({ type: 'end-of-call-report', call: { id: '\u001b]0;pwned\u0007', call_status: '\u001b[2J', outcome: 'ok\u009b31m\u202e', failure_reason: 'x'.repeat(5000) } });
    expect(await post(l, evil)).toBe(200);
    // A header value may carry bytes 0x80-0xff (latin1): 0x9b is a one-byte CSI on some terminals.
    const head = Buffer.concat([Buffer.from('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Outreach-Event: '), Buffer.from([0x9b, 0x32, 0x4a]), Buffer.from('\r\nConnection: close\r\n\r\nhello')]);
    const r = raw(l.port, head);
    await Promise.race([r.done, sleep(2000)]);
    expect(r.data).toMatch(/^HTTP\/1\.1 200/);
    await waitFor(() => l.stdout.trim().split('\n').length >= 2, 5000, '2 lines');
    expect(l.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(l.stdout).toContain('\\e]0;pwned\\a');
    expect(l.stdout).toContain('\\e[2J');
    expect(l.stdout).toContain('\\x9b2J');
    // The 5,000-character failure reason is cut short: the line fits the width (100 when piped).
    expect(l.stdout).toMatch(/failure: x{10,39}…/);
    for (const line of l.stdout.trim().split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });
});

describe('the pieces', () => {
  it('nestedDeeperThan scans without recursing and ignores brackets inside strings', () => {
    expect(nestedDeeperThan(DEEP_ARRAY, 100)).toBe(true);
    expect(nestedDeeperThan('['.repeat(1_000_000) + ']'.repeat(1_000_000), 100)).toBe(true);
    expect(nestedDeeperThan('[[[1]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[1]]]]', 3)).toBe(true);
    expect(nestedDeeperThan(JSON.stringify({ t: '[[[[[[{{{{{\\"[[[[' }), 2)).toBe(false);
    expect(nestedDeeperThan('[{"a":[1]},{"b":[2]},[3]]', 3)).toBe(false);
  });
  it('shown makes escapes visible and clips to 40 columns', () => {
    expect(shown('\u001b]0;x\u0007')).toBe('\\e]0;x\\a');
    expect(shown('y'.repeat(100))).toHaveLength(40);
    expect(shown(12)).toBe('12');
  });
  it('limits: sane defaults; the test knob takes known positive whole numbers only', () => {
    expect(DEFAULT_LIMITS).toMatchObject({ maxBodyBytes: 1024 * 1024, maxDepth: 100, maxConnections: 128, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    expect(parseLimits('headersTimeoutMs=800, maxConnections=5,bogus=1,maxDepth=-1,idleTimeoutMs=x,requestTimeoutMs=0')).toEqual({ headersTimeoutMs: 800, maxConnections: 5 });
    expect(parseLimits(undefined)).toEqual({});
  });
});
