// calls list / get / delete against a real sandbox, through the built CLI.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startRecordingProxy, tmuxSession, type RecordingProxy } from '../unit/resources/recordingProxy.js';
import type { Call } from '../../src/api/types.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
let proxy: RecordingProxy | undefined;

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(() => sbx.close());
beforeEach(() => {
  tmp = tempDir();
  env = sbx.env(tmp.dir);
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  tmp.cleanup();
});

function noKey(r: RunResult) {
  expect(r.stdout + r.stderr).not.toContain(sbx.key);
}

describe('calls list', () => {
  it('-o json is exactly what the service returned', async () => {
    const r = await runCli(['calls', 'list', '--limit', '7', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const direct = await sandboxRequest<Call[]>(sbx, 'GET', '/call?limit=7');
    expect(JSON.parse(r.stdout)).toEqual(direct.data);
    expect(direct.data).toHaveLength(7);
    noKey(r);
  });

  it('piped table: one plain tab-separated row per call with ISO dates, no decoration', async () => {
    const r = await runCli(['calls', 'list', '--limit', '5'], { env });
    expect(r.code, r.stderr).toBe(0);
    const direct = (await sandboxRequest<Call[]>(sbx, 'GET', '/call?limit=5')).data;
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    const cells = lines.map((l) => l.split('\t'));
    for (const [i, c] of direct.entries()) {
      expect(cells[i]).toEqual([
        String(c.id),
        new Date(c.started_at).toISOString(),
        c.destination_number,
        String(c.duration_ms),
        c.outcome,
        c.failure_reason ?? '',
        c.call_status,
        c.source_number,
        String(c.assistant_id),
      ]);
    }
    expect(r.stdout).not.toMatch(/[│┌─]|\u001b\[/);
  });

  it('ndjson, csv and tsv', async () => {
    const direct = (await sandboxRequest<Call[]>(sbx, 'GET', '/call?limit=4')).data;
    const nd = await runCli(['calls', 'list', '--limit', '4', '-o', 'ndjson'], { env });
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(direct);
    const csv = await runCli(['calls', 'list', '--limit', '4', '-o', 'csv'], { env });
    expect(csv.code).toBe(0);
    const rows = csv.stdout.trimEnd().split('\n');
    // The JSON field names, values in their own unit (milliseconds, ISO dates).
    expect(rows[0]).toBe('id,started_at,destination_number,duration_ms,outcome,failure_reason,call_status,source_number,assistant_id');
    expect(rows[1]!.split(',')[3]).toBe(String(direct[0]!.duration_ms));
    expect(rows[1]!.split(',')[1]).toBe(new Date(direct[0]!.started_at).toISOString());
    expect(rows).toHaveLength(5);
    expect(rows[1]!.split(',')[0]).toBe(String(direct[0]!.id));
    const tsv = await runCli(['calls', 'list', '--limit', '4', '-o', 'tsv'], { env });
    expect(tsv.stdout.split('\n')[0]).toBe('id\tstarted_at\tdestination_number\tduration_ms\toutcome\tfailure_reason\tcall_status\tsource_number\tassistant_id');
  });

  it('--since/--until are sent as createdAtGe/createdAtLe', async () => {
    const all = (await sandboxRequest<Call[]>(sbx, 'GET', '/call?limit=1000')).data;
    const ge = all[20]!.created_at!;
    const le = all[5]!.created_at!;
    const r = await runCli(['calls', 'list', '--since', ge, '--until', le, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const direct = (await sandboxRequest<Call[]>(sbx, 'GET', `/call?createdAtGe=${encodeURIComponent(ge)}&createdAtLe=${encodeURIComponent(le)}`)).data;
    expect(JSON.parse(r.stdout)).toEqual(direct);
    expect(direct.map((c) => c.id)).toEqual(all.slice(5, 21).map((c) => c.id));

    proxy = await startRecordingProxy(sbx.baseUrl);
    const rel = await runCli(['calls', 'list', '--since', '2d', '--until', 'today', '--limit', '1000', '-o', 'json'], { env: { ...env, OUTREACH_BASE_URL: proxy.url } });
    expect(rel.code).toBe(0);
    const q = new URL(proxy.exchanges[0]!.path, 'http://x').searchParams;
    expect(q.get('limit')).toBe('1000');
    const since = Date.parse(q.get('createdAtGe')!);
    expect(Math.abs(since - (Date.now() - 2 * 86_400_000))).toBeLessThan(60_000);
    expect(q.get('createdAtLe')).toMatch(/T23:59:59\.999Z$/); // TZ=UTC in tests: end of today
    expect(JSON.parse(rel.stdout)).toEqual(JSON.parse(proxy.exchanges[0]!.responseBody));
    // Seeded calls span the last ~4 days: 2d keeps some, not all.
    const n = JSON.parse(rel.stdout).length;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(all.length);

    const none = await runCli(['calls', 'list', '--until', '2000-01-01', '-o', 'json'], { env });
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('bad --limit / dates exit 2 before any request', async () => {
    const dead = { ...env, OUTREACH_BASE_URL: 'http://127.0.0.1:1/v1' };
    for (const [args, msg] of [
      [['--limit', '0'], 'Invalid --limit "0"'],
      [['--limit', '1001'], 'Invalid --limit "1001"'],
      [['--limit', 'lots'], 'Invalid --limit "lots"'],
      [['--since', 'last tuesday'], 'Invalid --since "last tuesday"'],
      [['--until', '2024-02-30'], 'Invalid --until "2024-02-30"'],
      [['--since', 'today', '--until', 'yesterday'], 'is after --until'],
    ] as const) {
      const r = await runCli(['calls', 'list', ...args], { env: dead });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(msg);
    }
  });
});

describe('calls get', () => {
  it('a readable record with analysis rows; -o json is the service body', async () => {
    const direct = (await sandboxRequest<Call>(sbx, 'GET', '/call/4')).data;
    const r = await runCli(['calls', 'get', '4'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = Object.fromEntries(r.stdout.split('\n').filter((l) => l.includes('\t')).map((l) => l.split('\t') as [string, string]));
    expect(rows.id).toBe('4');
    expect(rows.outcome).toBe(direct.outcome);
    expect(rows.failure_reason).toBe(direct.failure_reason ?? '');
    expect(rows.duration_ms).toBe(String(direct.duration_ms));
    expect(rows.summary).toBe(direct.summary);
    expect(rows['analysis.repetition_count']).toBe(String(direct.analysis.repetition_count));
    expect(rows['analysis.interruption_count']).toBe(String(direct.analysis.interruption_count));
    for (const [k, v] of Object.entries(direct.analysis.custom)) expect(rows[`analysis.custom.${k}`]).toBe(String(v));
    // Flat key<TAB>value lines only: no section lines, no header-less sub-tables.
    for (const line of r.stdout.trimEnd().split('\n')) expect(line).toMatch(/^[a-z_.]+\t[^\t]*$/);
    expect(r.stdout).not.toContain('transcript');

    const j = await runCli(['calls', 'get', '4', '-o', 'json'], { env });
    expect(JSON.parse(j.stdout)).toEqual(direct);
    const nd = await runCli(['calls', 'get', '4', '-o', 'ndjson'], { env });
    expect(nd.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(nd.stdout)).toEqual(direct);
    const csv = await runCli(['calls', 'get', '4', '-o', 'csv', '--transcript'], { env });
    const [head, row] = csv.stdout.trimEnd().split('\n');
    expect(head!.split(',').slice(0, 3)).toEqual(['id', 'call_status', 'call_type']);
    expect(head).toContain('analysis.custom.sentiment');
    expect(head!.endsWith(',transcript')).toBe(true);
    expect(row!.startsWith('4,')).toBe(true);
    const tsv = await runCli(['calls', 'get', '4', '-o', 'tsv'], { env });
    expect(tsv.stdout.split('\n')[0]!.split('\t')[0]).toBe('id');
  });

  it('--transcript piped: the transcript under its key, its turns on one line', async () => {
    const direct = (await sandboxRequest<Call>(sbx, 'GET', '/call/2')).data;
    const r = await runCli(['calls', 'get', '2', '--transcript'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`\ntranscript\t${direct.transcript.replace(/\s*\n\s*/g, ' ')}\n`);
    expect(r.stdout).not.toContain('# ');
  });

  it('--transcript on a terminal is wrapped to its width', async () => {
    const out = `${tmp.dir}/get.out`;
    const t = await tmuxSession(`calls-get-${process.pid}`, `env -i PATH="$PATH" TZ=UTC NO_COLOR=1 OUTREACH_CONFIG_DIR=${tmp.dir} OUTREACH_API_KEY=${sbx.key} OUTREACH_BASE_URL=${sbx.baseUrl} timeout --foreground 30 ${process.execPath} ${BIN} calls get 1 --transcript; echo EXIT=$? > ${out}; sleep 30`, { x: 50, y: 60 });
    try {
      const screen = await t.waitFor(/Have a good day/);
      const lines = screen.split('\n');
      const start = lines.findIndex((l) => l.startsWith('Transcript'));
      expect(start).toBeGreaterThan(0);
      const transcript = lines.slice(start + 1).filter((l) => l.trim());
      for (const l of transcript) expect(l.length).toBeLessThanOrEqual(50);
      // The long first turn wraps with a hanging indent under the text after "AI: ".
      expect(transcript[0]).toMatch(/^AI: Hi, this is Ava/);
      expect(transcript[1]).toMatch(/^ {4}\S/);
      expect(screen).toContain('custom.sentiment');
    } finally {
      t.kill();
    }
  });

  it('404 exits 5; a bad id exits 2', async () => {
    const r = await runCli(['calls', 'get', '99999'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('not found');
    const j = await runCli(['calls', 'get', '99999', '-o', 'json'], { env });
    expect(j.code).toBe(5);
    expect(JSON.parse(j.stderr).error.status).toBe(404);
    const b = await runCli(['calls', 'get', 'abc'], { env });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('Invalid call id "abc"');
  });

  it("another organisation's call is a 404", async () => {
    const other = (await sandboxRequest<Call[]>(sbx, 'GET', '/call?limit=1', undefined, sbx.otherKey)).data[0]!;
    const r = await runCli(['calls', 'get', String(other.id)], { env });
    expect(r.code).toBe(5);
  });
});

describe('calls delete', () => {
  it('without a terminal and without --yes: exit 2, nothing deleted', async () => {
    const r = await runCli(['calls', 'delete', '10', '11'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect((await sandboxRequest(sbx, 'GET', '/call/10')).status).toBe(200);
    expect((await sandboxRequest(sbx, 'GET', '/call/11')).status).toBe(200);
  });

  it('several ids: each reported, a 404 does not stop the others, exit 5', async () => {
    const r = await runCli(['calls', 'delete', '12', '99998', '13', '--yes'], { env });
    expect(r.code).toBe(5);
    expect(r.stdout.trimEnd().split('\n').map((l) => l.split('\t').slice(0, 2))).toEqual([
      ['12', 'deleted'],
      ['99998', 'not-found'],
      ['13', 'deleted'],
    ]);
    expect(r.stderr).toContain('1 of 3 calls not deleted (2 deleted): 99998 not-found');
    expect((await sandboxRequest(sbx, 'GET', '/call/12')).status).toBe(404);
    expect((await sandboxRequest(sbx, 'GET', '/call/13')).status).toBe(404);
    noKey(r);
  });

  it('-o json lists each id with its result; all deleted exits 0', async () => {
    const r = await runCli(['calls', 'delete', '14', '15', '--yes', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { id: 14, result: 'deleted', message: null, exit_code: 0 },
      { id: 15, result: 'deleted', message: null, exit_code: 0 },
    ]);
    const nd = await runCli(['calls', 'delete', '16', '--yes', '-o', 'ndjson'], { env });
    expect(JSON.parse(nd.stdout)).toMatchObject({ id: 16, result: 'deleted' });
    const csv = await runCli(['calls', 'delete', '16', '--yes', '-o', 'csv'], { env });
    expect(csv.code).toBe(5);
    expect(csv.stdout).toBe('id,result,message\n16,not-found,call 16 not found\n');
  });

  it('a DELETE whose answer was lost is retried; the retry\'s 404 counts as deleted', async () => {
    let deletes = 0;
    proxy = await startRecordingProxy(sbx.baseUrl, (req) => req.method === 'DELETE' && ++deletes === 1);
    const r = await runCli(['calls', 'delete', '17', '--yes'], { env: { ...env, OUTREACH_BASE_URL: proxy.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.exchanges.map((e) => [e.method, e.status, e.dropped])).toEqual([
      ['DELETE', 204, true],
      ['DELETE', 404, false],
    ]);
    expect(r.stdout).toMatch(/^17\tdeleted\tthe first attempt got no answer/);
    expect((await sandboxRequest(sbx, 'GET', '/call/17')).status).toBe(404);
  });

  it('on a terminal: lists what will be deleted and asks once; "n" deletes nothing, "y" deletes', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const exitOf = async (file: string) => {
      for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
      return readFileSync(file, 'utf8').trim();
    };
    const cmd = (ids: string, out: string) =>
      `env -i PATH="$PATH" TZ=UTC NO_COLOR=1 OUTREACH_CONFIG_DIR=${tmp.dir} OUTREACH_API_KEY=${sbx.key} OUTREACH_BASE_URL=${sbx.baseUrl} timeout --foreground 30 ${process.execPath} ${BIN} calls delete ${ids}; echo EXIT=$? > ${out}; sleep 30`;
    const no = await tmuxSession(`calls-del-n-${process.pid}`, cmd('18 19 99997', `${tmp.dir}/no.out`));
    try {
      const screen = await no.waitFor(/Delete these 2 calls\?/);
      expect(screen).toContain('These 2 calls will be deleted permanently:');
      expect(screen).toMatch(/^\s+18\s/m);
      expect(screen).toMatch(/^\s+19\s/m);
      expect(screen).toContain('Not found (skipped): 99997');
      no.send('n', 'Enter');
      await no.waitFor(/Nothing deleted/);
      expect(await exitOf(`${tmp.dir}/no.out`)).toBe('EXIT=5'); // the unknown id is still reported
    } finally {
      no.kill();
    }
    expect((await sandboxRequest(sbx, 'GET', '/call/18')).status).toBe(200);
    expect((await sandboxRequest(sbx, 'GET', '/call/19')).status).toBe(200);

    const yes = await tmuxSession(`calls-del-y-${process.pid}`, cmd('18 19', `${tmp.dir}/yes.out`));
    try {
      await yes.waitFor(/Delete these 2 calls\?/);
      yes.send('y', 'Enter');
      const screen = await yes.waitFor(/call 19 deleted/);
      expect(screen).toContain('✓ call 18 deleted');
      expect(await exitOf(`${tmp.dir}/yes.out`)).toBe('EXIT=0');
    } finally {
      yes.kill();
    }
    expect((await sandboxRequest(sbx, 'GET', '/call/18')).status).toBe(404);
    expect((await sandboxRequest(sbx, 'GET', '/call/19')).status).toBe(404);
  });

  it('help has examples', async () => {
    for (const v of ['list', 'get', 'delete']) {
      const r = await runCli(['calls', v, '--help'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Examples:');
    }
  });
});
