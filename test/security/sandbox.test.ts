// The sandbox under hostile input (issue 11, item 7): odd numbers in queries and paths, deeply nested
// and oversized bodies, a garbage fuzz over every route; `--host` beyond loopback warns and prints a
// URL that works; the database files are 0600 whatever the umask.
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runSandboxCommand } from '../../src/commands/sandbox.js';
import { createContext, type GlobalOptions } from '../../src/context.js';
import { createTestIo } from '../../src/io.js';
import { prep } from '../../src/sandbox/db.js';
import { nestedDeeperThan } from '../../src/util/jsonDepth.js';
import { describeListenHost, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { fastClient, sandbox, type Answer, type Call } from '../sandbox/helpers.js';

interface OpenApiParam {
  name: string;
  in: 'path' | 'query';
  schema: { type?: string | string[] };
}
interface Route {
  method: string;
  path: string; // with {param}
  params: OpenApiParam[];
  hasBody: boolean;
}

/** Every route of the sandbox, from its own OpenAPI document (so a new route is covered too). */
async function routes(c: Call): Promise<Route[]> {
  const doc = (await c('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: OpenApiParam[]; requestBody?: unknown }>> };
  const out: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      out.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], hasBody: op.requestBody !== undefined });
    }
  }
  return out;
}

const isInteger = (p: OpenApiParam) => p.schema.type === 'integer' || (Array.isArray(p.schema.type) && p.schema.type.includes('integer'));
/** A path with its parameters filled: integers 1, strings a seeded tool id. */
const fill = (r: Route, over: Record<string, string> = {}) =>
  r.path.replace(/\{(\w+)\}/g, (_, name: string) => over[name] ?? (isInteger(r.params.find((p) => p.name === name)!) ? '1' : 'c027fd4c-4528-4596-a20a-6ba2a53a8fc5'));

/** The error body of the route's family (API.md): assistants {error: <int>, message}, sequences {error: <text>}, else {error, message, statusCode}. */
function expectFamilyError(r: Answer, path: string, what: string) {
  expect(r.status, what).toBeGreaterThanOrEqual(400);
  expect(r.status, what).toBeLessThan(500);
  expect(r.body, `${what}: ${r.text.slice(0, 200)}`).toBeTypeOf('object');
  if (path.startsWith('/assistant')) {
    expect(r.body.error, what).toBe(r.status);
    expect(r.body.message, what).toBeTypeOf('string');
  } else if (path.startsWith('/sequence-manager')) {
    expect(r.body.error, what).toBeTypeOf('string');
  } else {
    expect(r.body, what).toMatchObject({ error: expect.any(String), message: expect.any(String), statusCode: r.status });
  }
}
const messageOf = (r: Answer): string => (typeof r.body?.message === 'string' ? r.body.message : String(r.body?.error));

const ODD_NUMBERS = ['1e3', '1E3', '-1', '0x10', '0b1', '0o7', '1.5', '1000.0', '1.', '.5', 'NaN', 'Infinity', '-Infinity', '99999999999999999999', '9007199254740993', '', '%20', '%205', '5%20', '+5', '%2B5', '1_000', '١٢', '%00', '5%00', 'true', 'null', '[]', '{}', '0', '-0'];

describe('odd numbers in queries and paths are 400s naming the parameter, never 500s', () => {
  let sbx: RunningSandbox;
  let c: Call;
  let all: Route[];
  beforeAll(async () => {
    sbx = await sandbox();
    c = fastClient(sbx);
    all = await routes(c);
  });
  afterAll(() => sbx.close());

  it('finds the list routes and their numeric parameters in the OpenAPI document', () => {
    const numeric = all.flatMap((r) => r.params.filter((p) => p.in === 'query' && isInteger(p)).map((p) => `${r.method} ${r.path}?${p.name}`));
    expect(numeric).toEqual(
      expect.arrayContaining([
        'GET /call?limit',
        'GET /eligibility?limit',
        'GET /sequence-manager/sequences?limit',
        'GET /sequence-manager/sequences?sequence_definition_id',
        'GET /phone-number?assistantId',
      ]),
    );
  });

  it('every integer query parameter of every route rejects every odd spelling with a 400 in the family shape', async () => {
    for (const r of all) {
      for (const p of r.params.filter((q) => q.in === 'query' && isInteger(q))) {
        for (const v of ODD_NUMBERS) {
          const path = `${fill(r)}?${p.name}=${v}`;
          const a = await c(r.method, path, r.hasBody ? {} : undefined);
          const what = `${r.method} ${path}`;
          expect(a.status, `${what} → ${a.text.slice(0, 200)}`).toBe(400);
          expectFamilyError(a, r.path, what);
          expect(messageOf(a), what).toContain(`query parameter ${p.name}`);
          expect(a.body.field, what).toBe(p.name);
        }
      }
    }
  });

  it('limit=1e3 is refused rather than read as 1000, and says how to write it', async () => {
    for (const path of ['/call', '/eligibility', '/sequence-manager/sequences']) {
      const a = await c('GET', `${path}?limit=1e3`);
      expect(a.status).toBe(400);
      expect(messageOf(a)).toMatch(/query parameter limit must be a whole number written in digits/);
    }
    expect((await c('GET', '/call?limit=1000')).status).toBe(200);
    expect((await c('GET', '/call?limit=007')).status).toBe(200);
  });

  it('a repeated parameter is a 400 that says so', async () => {
    for (const path of ['/call?limit=1&limit=2', '/eligibility?status=queued&status=completed', '/sequence-manager/sequences?limit=5&limit=5', '/sequence-manager/sequences/1?includeMetrics=true&includeMetrics=false']) {
      const a = await c('GET', path);
      expect(a.status, path).toBe(400);
      expect(messageOf(a), path).toMatch(/is given more than once/);
    }
  });

  it('every integer path parameter rejects odd spellings with a 400 (not a lookup of 1000 or of 1)', async () => {
    for (const r of all) {
      for (const p of r.params.filter((q) => q.in === 'path' && isInteger(q))) {
        for (const v of ['1e0', '0x1', '+1', '%201', '1.0', 'Infinity', '99999999999999999999', '-1', '0', '%00']) {
          const path = fill(r, { [p.name]: v });
          const a = await c(r.method, path, r.hasBody ? { name: 'x' } : undefined);
          const what = `${r.method} ${path}`;
          expect(a.status, `${what} → ${a.text.slice(0, 200)}`).toBe(400);
          expectFamilyError(a, r.path, what);
          expect(messageOf(a), what).toContain(`path parameter ${p.name}`);
        }
      }
    }
  });

  it('date filters reject odd values with a 400', async () => {
    for (const v of ['1e3', '-1', 'Infinity', '', '2024-02-30', '2024-01-01T25:00:00Z', '99999-01-01', '2024-01-01T00:00:00+99:99', '0']) {
      for (const name of ['createdAtGe', 'createdAtLe']) {
        const a = await c('GET', `/call?${name}=${encodeURIComponent(v)}`);
        expect(a.status, `${name}=${v}`).toBe(400);
        expect(a.body.field).toBe(name);
      }
    }
  });

  it('after all that garbage the lists still answer (one bad request does not break a route)', async () => {
    for (const path of ['/call?limit=5', '/eligibility?limit=5', '/sequence-manager/sequences?limit=5', '/phone-number?assistantId=1']) {
      expect((await c('GET', path)).status, path).toBe(200);
    }
  });
});

describe('a statement that failed once still works (libsql get() kept its failed state)', () => {
  it('prep().get recovers after an error', async () => {
    const Database = ((await import('libsql')) as unknown as { default: new (p: string) => any }).default;
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3)');
      const s = prep(db, "SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x LIMIT ?)", true);
      expect(s.get(2)).toBe('1,2');
      expect(() => s.get(Infinity)).toThrow();
      expect(s.get(2)).toBe('1,2');
    } finally {
      db.close();
    }
  });
});

const deepArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('deep and large bodies', () => {
  let sbx: RunningSandbox;
  let c: Call;
  let writes: Route[];
  beforeAll(async () => {
    sbx = await sandbox();
    c = fastClient(sbx);
    writes = (await routes(c)).filter((r) => r.hasBody);
  });
  afterAll(() => sbx.close());

  it('covers every POST, PUT and PATCH route', () => {
    expect(writes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['POST /assistant', 'PATCH /assistant/{assistantId}', 'POST /eligibility', 'POST /sequence-manager/sequences/batch', 'PUT /sequence-manager/sequences/{id}', 'PUT /sequence-manager/sequence-definitions/{id}', 'PATCH /tool/{id}']),
    );
  });

  it('10,000 nested objects or arrays, at the top or inside a field, are a 400 naming the nesting', async () => {
    const fields = ['model', 'analysis_plan', 'rows', 'steps', 'function', 'patient', 'name'];
    for (const r of writes) {
      const bodies = [deepArrays(10_000), deepObjects(10_000), ...fields.flatMap((f) => [`{"${f}":${deepArrays(10_000)}}`, `{"name":"x","${f}":${deepObjects(10_000)}}`])];
      for (const body of bodies) {
        const a = await c(r.method, fill(r), body);
        const what = `${r.method} ${r.path} ${body.slice(0, 20)}`;
        expect(a.status, `${what} → ${a.text.slice(0, 200)}`).toBe(400);
        expectFamilyError(a, r.path, what);
        expect(messageOf(a), what).toMatch(/nested/);
      }
    }
    expect((await c('GET', '/health')).status).toBe(200);
  });

  it('nesting up to the documented limit is still read (brackets inside strings do not count)', async () => {
    const model = JSON.parse('{"a":'.repeat(30) + '"[[[[{{{{"' + '}'.repeat(30));
    const a = await c('POST', '/assistant', { name: 'Deep but fine', model, first_message: '[[[[[[[[[[{{{{{{{{{{\\"' });
    expect(a.status, a.text.slice(0, 200)).toBe(201);
  });

  it('64 levels are read, 65 are not', async () => {
    const body = (levels: number) => `{"name":"x","model":${'{"a":'.repeat(levels - 2)}{}${'}'.repeat(levels - 2)}}`;
    expect((await c('POST', '/assistant', body(64))).status).toBe(201);
    const a = await c('POST', '/assistant', body(65));
    expect(a.status).toBe(400);
    expect(a.body.message).toBe('request body is nested too deeply: at most 64 levels of objects and arrays');
  });

  it('counts brackets outside strings only, escaped quotes included', () => {
    expect(nestedDeeperThan('{"a":"[[[[[[\\"[[[[","b":[[1]]}', 3)).toBe(false);
    expect(nestedDeeperThan('{"a":"\\\\","b":[[[1]]]}', 3)).toBe(true);
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true);
  });

  it('a body over 1 MiB is a 413 on every write route, never a 500', async () => {
    const big = JSON.stringify({ name: 'x', first_message: 'a'.repeat(2 * 1024 * 1024) });
    for (const r of writes) {
      const a = await c(r.method, fill(r), big);
      expect(a.status, `${r.method} ${r.path}`).toBe(413);
      expectFamilyError(a, r.path, `${r.method} ${r.path}`);
    }
  });

  it('a chunked body over 1 MiB is a 413 too', async () => {
    const url = new URL(`${sbx.baseUrl}/assistant`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${sbx.organizations[0]!.api_key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'EPIPE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(413) : reject(e)));
      req.write('{"name":"x","first_message":"');
      for (let i = 0; i < 40; i++) req.write('a'.repeat(64 * 1024));
      req.end('"}');
    });
    expect(status).toBe(413);
  });
});

/** A small deterministic PRNG (mulberry32): the same garbage every run; OUTREACH_FUZZ_SEED changes it. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

const SCALARS = ['', ' ', '\u0000', '\u001b[2J', '\ud800', '💥', 'a'.repeat(5000), '1e3', '-1', '0x10', 'NaN', '__proto__', 'constructor', '+14155550100', '2024-02-30', 'queued', 'voice'];
const NUMBERS = [0, -0, -1, 1, 1.5, 1e300, -1e300, 9007199254740993, 2 ** 63, 1e-300, 100, 1000, 1001];
const KEYS = ['name', 'model', 'voice', 'first_message', 'max_duration_seconds', 'webhook_url', 'webhook_secret', 'analysis_plan', 'rows', 'sequence_definition_id', 'validate_only', 'next_activity_date', 'steps', 'order', 'type', 'config', 'status', 'patient', 'insurance', 'provider', 'payer_id', 'npi', 'member_id', 'date_of_birth', 'async', 'function', 'parameters', 'inputs', 'delay_hours', 'voice_assistant_id', '__proto__', 'constructor', 'prototype', ''];

function garbageValue(r: ReturnType<typeof rng>, depth: number): unknown {
  const k = r.int(depth > 4 ? 4 : 7);
  if (k === 0) return r.pick(SCALARS);
  if (k === 1) return r.pick(NUMBERS);
  if (k === 2) return r.pick([true, false, null]);
  if (k === 3) return r.int(2) ? r.pick(SCALARS) : r.int(1_000_000);
  if (k === 4 || k === 5) {
    const o: Record<string, unknown> = {};
    for (let i = r.int(6); i > 0; i--) o[r.pick(KEYS)] = garbageValue(r, depth + 1);
    return o;
  }
  return Array.from({ length: r.int(4) }, () => garbageValue(r, depth + 1));
}

function garbageBody(r: ReturnType<typeof rng>): string {
  switch (r.int(6)) {
    case 0:
      return r.pick(['{', '}', '[', '{"a":}', '{"a" 1}', "{'a':1}", '{"a":1,}', '\ufeff{}', '{"a":1}{"b":2}', 'NaN', '{"a":NaN}', '{"a":1e999}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"name":"\\ud800"}', '{"name":"x","name":"y"}', '\u0000', '\xff\xfe']);
    case 1:
      return JSON.stringify(garbageValue(r, 0));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = 1 + r.int(6); i > 0; i--) o[r.pick(KEYS)] = garbageValue(r, 1);
      return JSON.stringify(o);
    }
  }
}

function garbageQuery(r: ReturnType<typeof rng>, names: string[]): string {
  const parts: string[] = [];
  for (let i = 1 + r.int(4); i > 0; i--) {
    const name = r.int(4) ? r.pick(names.length ? names : ['limit']) : r.pick(['__proto__', 'constructor', 'limit[]', 'a[b]', '', '%', '%zz', '\u00e9']);
    const value = r.int(3) ? r.pick([...ODD_NUMBERS, '%', '%zz', '%E0%A4%A', '%FF', 'a'.repeat(3000), '2024-01-01', 'queued', 'true']) : String(r.int(2000) - 500);
    parts.push(r.int(10) ? `${encodeURIComponent(name).replace('%25', '%')}=${value}` : name);
  }
  return parts.join(r.int(8) ? '&' : '&&');
}

describe('garbage fuzz: no route answers 500', () => {
  const seed = Number(process.env.OUTREACH_FUZZ_SEED ?? 20241111);
  let sbx: RunningSandbox;
  let c: Call;
  let all: Route[];
  const errors: string[] = [];
  beforeAll(async () => {
    sbx = await sandbox({ log: (line) => void (line.startsWith('internal error') && errors.push(line)) });
    c = fastClient(sbx);
    all = await routes(c);
  });
  afterAll(() => sbx.close());

  it(`malformed queries and path parameters on every route (seed ${seed})`, async () => {
    const r = rng(seed);
    for (const route of all) {
      const names = route.params.filter((p) => p.in === 'query').map((p) => p.name);
      for (let i = 0; i < 150; i++) {
        const over: Record<string, string> = {};
        if (r.int(3) === 0) for (const p of route.params.filter((q) => q.in === 'path')) over[p.name] = r.pick([...ODD_NUMBERS.filter((v) => v !== ''), '%', '%zz', '..', '%2e%2e', 'a'.repeat(2000), '%E2%80%AE']);
        const path = `${fill(route, over)}?${garbageQuery(r, names)}`;
        const a = await c(route.method, path, route.hasBody ? garbageBody(r) : undefined);
        expect(a.status, `${route.method} ${path.slice(0, 300)} → ${a.text.slice(0, 200)}`).toBeLessThan(500);
        if (a.status >= 400) expect(a.body, `${route.method} ${path.slice(0, 300)}`).toHaveProperty('error');
      }
    }
    expect(errors).toEqual([]);
  });

  it(`malformed bodies on every write route (seed ${seed})`, async () => {
    const r = rng(seed + 1);
    for (const route of all.filter((x) => x.hasBody)) {
      for (let i = 0; i < 150; i++) {
        const body = garbageBody(r);
        const contentType = r.int(8) ? 'application/json' : r.pick(['application/json; charset=utf-16', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x', '']);
        const a = await c(route.method, fill(route), body, { 'content-type': contentType });
        const what = `${route.method} ${route.path} [${contentType}] ${body.slice(0, 200)}`;
        expect(a.status, `${what} → ${a.text.slice(0, 200)}`).toBeLessThan(500);
        if (a.status >= 400) expect(a.body, what).toHaveProperty('error');
      }
    }
    expect(errors).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await c('GET', '/health')).status).toBe(200);
    expect((await c('GET', '/call?limit=1')).status).toBe(200);
  });
});

describe('--host: a URL that works, and a warning beyond loopback', () => {
  it('describes loopback, all-interface and specific addresses', () => {
    expect(describeListenHost('127.0.0.1')).toEqual({ urlHost: '127.0.0.1', loopback: true, allInterfaces: false });
    expect(describeListenHost('127.0.0.2')).toMatchObject({ urlHost: '127.0.0.2', loopback: true });
    expect(describeListenHost('localhost')).toMatchObject({ urlHost: 'localhost', loopback: true });
    expect(describeListenHost('::1')).toMatchObject({ urlHost: '[::1]', loopback: true });
    expect(describeListenHost('[::1]')).toMatchObject({ urlHost: '[::1]', loopback: true });
    expect(describeListenHost('LocalHost')).toMatchObject({ loopback: true });
    expect(describeListenHost('::ffff:10.0.0.1')).toMatchObject({ loopback: false });
    expect(describeListenHost('0:0:0:0:0:0:0:1')).toMatchObject({ urlHost: '[::1]', loopback: true });
    expect(describeListenHost('::ffff:127.0.0.1')).toMatchObject({ loopback: true });
    expect(describeListenHost('0.0.0.0')).toEqual({ urlHost: '127.0.0.1', loopback: false, allInterfaces: true });
    expect(describeListenHost('::')).toEqual({ urlHost: '[::1]', loopback: false, allInterfaces: true });
    expect(describeListenHost('0:0:0:0:0:0:0:0')).toMatchObject({ urlHost: '[::1]', allInterfaces: true });
    expect(describeListenHost('192.168.1.20')).toEqual({ urlHost: '192.168.1.20', loopback: false, allInterfaces: false });
    expect(describeListenHost('fe80::1%eth0')).toEqual({ urlHost: '[fe80::1%25eth0]', loopback: false, allInterfaces: false });
    expect(describeListenHost('sandbox.example.test')).toEqual({ urlHost: 'sandbox.example.test', loopback: false, allInterfaces: false });
  });

  const globals = (format: GlobalOptions['format'] = 'table'): GlobalOptions => ({ format, formatExplicit: format !== 'table', quiet: false, debug: false, requestTimeoutSec: 5, noInput: true });
  async function runCommand(host: string, extra: { apiKey?: string; format?: GlobalOptions['format'] } = {}) {
    const t = createTestIo();
    const ac = new AbortController();
    const dir = mkdtempSync(join(tmpdir(), 'outreach-sbx-host-'));
    const ctx = createContext({ io: t.io, env: { OUTREACH_CONFIG_DIR: dir, OUTREACH_DATA_DIR: dir }, globals: globals(extra.format), signal: ac.signal });
    const done = runSandboxCommand(
      { port: '0', host, memory: true, profile: false, scheduler: false, speed: '1', eligibilityDelay: '0', apiKey: extra.apiKey },
      ctx,
    );
    let failed: unknown;
    done.catch((e) => (failed = e));
    const end = Date.now() + 10_000;
    while (!/Stop with Ctrl-C|"base_url"/.test(t.stdout()) && failed === undefined && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    if (failed !== undefined) throw failed;
    const stdout = t.stdout();
    const baseUrl = /"base_url":"([^"]+)"/.exec(stdout)?.[1] ?? /listening on .*?(http:\/\/\S+\/v1)/.exec(stdout)?.[1];
    const health = baseUrl ? await fetch(`${baseUrl}/health`).then((r) => r.status).catch(() => 0) : 0;
    ac.abort();
    await done;
    rmSync(dir, { recursive: true, force: true });
    return { stdout, stderr: t.stderr(), baseUrl, health };
  }

  it('--host 127.0.0.1 prints its URL and no warning', async () => {
    const r = await runCommand('127.0.0.1');
    expect(r.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(r.health).toBe(200);
    expect(r.stderr).not.toMatch(/warning/i);
  });

  it('--host 0.0.0.0 warns on stderr that anyone on the network can reach it, and prints a loopback URL that works', async () => {
    const r = await runCommand('0.0.0.0');
    expect(r.stderr).toMatch(/warning/i);
    expect(r.stderr).toMatch(/anyone (on|who can reach) (your|this|the) network/i);
    expect(r.stderr).toMatch(/demo API keys|seeded/i);
    expect(r.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(r.health).toBe(200);
    expect(r.stdout).toMatch(/all interfaces/i);
  });

  it('the warning names the key you gave, and shows in -o json mode too (on stderr)', async () => {
    const r = await runCommand('0.0.0.0', { apiKey: 'my-own-key', format: 'json' });
    expect(r.stderr).toMatch(/warning/i);
    expect(r.stderr).toMatch(/--api-key/);
    expect(r.stderr).not.toContain('my-own-key');
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ host: '0.0.0.0', base_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) });
    expect(r.health).toBe(200);
  });

  it('--host :: prints a working [::1] URL (when this machine has IPv6)', async (t) => {
    let r;
    try {
      r = await runCommand('::');
    } catch (e) {
      if (/Cannot listen/.test(String((e as Error).message))) return t.skip();
      throw e;
    }
    expect(r.baseUrl).toMatch(/^http:\/\/\[::1\]:\d+\/v1$/);
    expect(r.health).toBe(200);
    expect(r.stderr).toMatch(/warning/i);
  });

  it('--host <this machine\'s network address> warns and prints that address', async (t) => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!address) return t.skip();
    const r = await runCommand(address);
    expect(r.baseUrl).toBe(r.baseUrl && `http://${address}:${new URL(r.baseUrl).port}/v1`);
    expect(r.health).toBe(200);
    expect(r.stderr).toMatch(/warning/i);
    expect(r.stderr).toMatch(/anyone on the network/i);
    expect(r.stdout).not.toMatch(/all interfaces/i);
  });

  it('--host ::1 is loopback: bracketed URL, no warning', async (t) => {
    let r;
    try {
      r = await runCommand('::1');
    } catch (e) {
      if (/Cannot listen/.test(String((e as Error).message))) return t.skip();
      throw e;
    }
    expect(r.baseUrl).toMatch(/^http:\/\/\[::1\]:\d+\/v1$/);
    expect(r.health).toBe(200);
    expect(r.stderr).not.toMatch(/warning/i);
  });
});

describe('database files are 0600 whatever the umask', () => {
  const modeOf = (p: string) => statSync(p).mode & 0o777;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'outreach-sbx-mode-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
    const old = process.umask(mask);
    try {
      return await fn();
    } finally {
      process.umask(old);
    }
  }

  for (const mask of [0o022, 0o000]) {
    it(`a new database and its -wal/-shm files (umask ${mask.toString(8).padStart(3, '0')})`, async () => {
      const db = join(dir, `new-${mask}.db`);
      await withUmask(mask, async () => {
        const sbx = await startSandbox({ port: 0, dbPath: db, eligibilityDelayMs: 0 });
        try {
          const c = fastClient(sbx);
          expect((await c('POST', '/assistant', { name: 'Write something' })).status).toBe(201);
          for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) expect(modeOf(f), f).toBe(0o600);
          expect(existsSync(`${db}-wal`)).toBe(true);
        } finally {
          await sbx.close();
        }
      });
      expect(modeOf(db)).toBe(0o600);
    });
  }

  it('an existing 0644 database (and side files) is made 0600 on open', async () => {
    const db = join(dir, 'old.db');
    await withUmask(0o022, async () => {
      const first = await startSandbox({ port: 0, dbPath: db });
      await first.close();
    });
    // As an older version left them: the database and its side files readable by all.
    for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) chmodSync(f, 0o644);
    const sbx = await startSandbox({ port: 0, dbPath: db });
    try {
      expect(modeOf(db)).toBe(0o600);
      for (const f of [`${db}-wal`, `${db}-shm`]) if (existsSync(f)) expect(modeOf(f), f).toBe(0o600);
    } finally {
      await sbx.close();
    }
  });

  it('`outreach sandbox` creates the default data directory 0700', async () => {
    const base = mkdtempSync(join(tmpdir(), 'outreach-sbx-dir-'));
    try {
      const dataDir = join(base, 'data', 'outreach');
      const t = createTestIo();
      const ac = new AbortController();
      const ctx = createContext({ io: t.io, env: { OUTREACH_CONFIG_DIR: base, OUTREACH_DATA_DIR: dataDir }, globals: { format: 'json', formatExplicit: true, quiet: true, debug: false, requestTimeoutSec: 5, noInput: true }, signal: ac.signal });
      // (wrapped: an async function returning the command's promise would wait for it to end)
      const { done } = await withUmask(0o000, async () => {
        const p = runSandboxCommand({ port: '0', host: '127.0.0.1', profile: false, scheduler: false, speed: '1', eligibilityDelay: '0' }, ctx);
        const end = Date.now() + 10_000;
        while (!t.stdout().includes('base_url') && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
        return { done: p };
      });
      expect(modeOf(dataDir)).toBe(0o700);
      expect(modeOf(join(dataDir, 'sandbox.db'))).toBe(0o600);
      ac.abort();
      await done;
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
