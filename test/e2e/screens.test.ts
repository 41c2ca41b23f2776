// Every list and get view at a real 80×24 terminal (tmux), against the sandbox and against a service
// that answers long strings, missing fields and unknown enum values: no line wider than 80 display
// columns, one line per record, and nothing essential cut (ids, phone numbers, statuses, outcomes,
// codes, the definition input names a coordinator types).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Call, EligibilityCheck, PhoneNumber } from '../../src/api/types.js';
import { baseEnv, BIN, runCli, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { json, startVariantServer, variantEnv, type VariantServer } from '../helpers/variantServer.js';

const WIDTH = 80;
let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  sbx = await startTestSandbox();
  tmp = tempDir();
});
afterAll(async () => {
  await sbx.close();
  tmp.cleanup();
});

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs each command in turn at an 80×24 tmux terminal and returns what each printed (stdout and
 * stderr, as the terminal shows them), by command. Lines the terminal wrapped are joined (-J), so a
 * line wider than the terminal shows as one long line.
 */
async function screens(name: string, env: Record<string, string>, commands: string[][]): Promise<Map<string, string[]>> {
  const script = join(tmp.dir, `${name}.sh`);
  const done = join(tmp.dir, `${name}.done`);
  writeFileSync(
    script,
    [
      `o() { echo "=== $*"; ${shQuote(process.execPath)} ${shQuote(BIN)} "$@"; echo "--- exit $?"; }`,
      ...commands.map((c) => `o ${c.map(shQuote).join(' ')}`),
      `touch ${shQuote(done)}`,
      'sleep 60',
    ].join('\n'),
  );
  const envArgs = Object.entries({ ...env, TZ: 'UTC', NO_COLOR: '1', LANG: 'C.UTF-8' }).map(([k, v]) => `${k}=${shQuote(v)}`);
  const server = `screens-${name}-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', server, ...args], { encoding: 'utf8' });
  tmux('new-session', '-d', '-x', String(WIDTH), '-y', '24', `env -i ${envArgs.join(' ')} timeout --foreground 120 sh ${shQuote(script)}`);
  tmux('set-option', '-g', 'history-limit', '10000');
  try {
    const until = Date.now() + 60_000;
    const { existsSync } = await import('node:fs');
    while (!existsSync(done)) {
      if (Date.now() > until) throw new Error(`timed out; screen:\n${tmux('capture-pane', '-p', '-J', '-S', '-')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const text = tmux('capture-pane', '-p', '-J', '-S', '-');
    const byCommand = new Map<string, string[]>();
    let current: string[] | undefined;
    for (const line of text.split('\n')) {
      if (line.startsWith('=== ')) byCommand.set(line.slice(4).trim(), (current = []));
      else if (line.startsWith('--- exit')) {
        current?.push(line);
        current = undefined;
      } else current?.push(line);
    }
    return byCommand;
  } finally {
    try {
      tmux('kill-server');
    } catch {
      /* already gone */
    }
  }
}

function expectFits(view: string, lines: string[] | undefined): string[] {
  expect(lines, `${view} was not run`).toBeDefined();
  for (const l of lines!) expect(stringWidth(l), `${view}: "${l}"`).toBeLessThanOrEqual(WIDTH);
  expect(lines!.at(-1), `${view}:\n${lines!.join('\n')}`).toBe('--- exit 0');
  return lines!.slice(0, -1).filter((l) => l.trim() !== '');
}

/** A table's rows: the lines after the header line up to the first blank line or note. */
function tableRows(lines: string[], header: RegExp): string[] {
  const start = lines.findIndex((l) => header.test(l));
  expect(start, `no header ${header} in:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
  const rows: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() === '' || l.startsWith('(') || /^[A-Z][a-z]/.test(l)) break;
    rows.push(l);
  }
  return rows;
}

describe('the sandbox at 80×24', () => {
  let shown: Map<string, string[]>;
  let checkId: number;
  const toolId = () => sbx.organizations[0]!.tool_ids[0]!;

  beforeAll(async () => {
    const env = sbx.env(tmp.dir);
    const patient = ['--first-name', 'Ana', '--last-name', 'Diaz', '--dob', '1980-04-02', '--provider-name', 'Sandbox Clinic', '--npi', '1234567893', '--payer', '87726'];
    const check = await runCli(['eligibility', 'check', ...patient, '--member-id', 'W1234', '--patient-id', 'MRN-SCREEN', '--wait', '--interval', '0.5', '-q'], { env, realTime: true });
    expect(check.code, check.stderr).toBe(0);
    checkId = Number(check.stdout.trim());
    const login = await runCli(['login', '--with-key', '--base-url', sbx.baseUrl, '--profile', 'clinic'], { env: { ...env, OUTREACH_API_KEY: undefined }, input: `${sbx.key}\n` });
    expect(login.code, login.stderr).toBe(0);
    shown = await screens('sandbox', env, [
      ['calls', 'list', '--limit', '12'],
      ['calls', 'get', '4'],
      ['eligibility', 'list'],
      ['eligibility', 'get', String(checkId)],
      ['eligibility', 'payers'],
      ['eligibility', 'check', ...patient, '--member-id', 'W9999', '--patient-id', 'MRN-SCREEN-2'],
      ['sequences', 'list'],
      ['sequences', 'get', '1', '--metrics'],
      ['sequences', 'metrics'],
      ['definitions', 'list'],
      ['definitions', 'get', '1'],
      ['phone-numbers', 'list'],
      ['profiles', 'list'],
      ['auth', 'status'],
      ['health'],
      ['assistants', 'create', '--name', 'Reminder line', '--first-message', 'Hello, this is Sandbox Medical Group calling to remind you of your appointment tomorrow; please stay on the line to confirm it or to choose another time.'],
      ['tools', 'patch', toolId(), '--async'],
    ]);
  }, 120_000);

  it('calls list: one line per call, full ids, phone numbers and outcomes', async () => {
    const lines = expectFits('calls list', shown.get('calls list --limit 12'));
    const calls = (await sandboxRequest<Call[]>(sbx, 'GET', '/call?limit=12')).data;
    const rows = tableRows(lines, /^ID +STARTED +TO /);
    expect(rows).toHaveLength(calls.length);
    calls.forEach((c, i) => {
      expect(rows[i]).toMatch(new RegExp(`^${c.id} `));
      expect(rows[i]).toContain(` ${c.destination_number} `);
      expect(rows[i]).toMatch(new RegExp(` ${c.outcome}( |$)`));
    });
    expect(lines.join('\n')).not.toContain('…');
  });

  it('calls get: label/value lines, the analysis readable', () => {
    const lines = expectFits('calls get', shown.get('calls get 4'));
    expect(lines).toContain('Analysis');
    expect(lines.some((l) => /^to +\+1\d{10}$/.test(l))).toBe(true);
    expect(lines.some((l) => /^custom\.callback_requested +yes$/.test(l))).toBe(true);
  });

  it('eligibility list, get and the single check view', async () => {
    const list = expectFits('eligibility list', shown.get('eligibility list'));
    // The list ran before the single check below was submitted.
    const checks = (await sandboxRequest<EligibilityCheck[]>(sbx, 'GET', '/eligibility')).data.filter((c) => c.customer_patient_id !== 'MRN-SCREEN-2');
    const rows = tableRows(list, /^ID +STATUS +OUTCOME/);
    expect(rows).toHaveLength(checks.length);
    for (const c of checks) expect(rows.some((r) => r.startsWith(`${c.id} `) && r.includes(c.status) && r.includes(c.customer_patient_id!))).toBe(true);

    const get = expectFits('eligibility get', shown.get(`eligibility get ${checkId}`));
    const check = (await sandboxRequest<EligibilityCheck[]>(sbx, 'GET', `/eligibility/${checkId}`)).data[0]!;
    expect(get.some((l) => l === `member id     ${check.coverage!.member_id}`)).toBe(true);
    const costs = tableRows(get, /^TYPE +AMOUNT/);
    expect(costs).toHaveLength(check.coverage!.patient_costs.length);
    check.coverage!.patient_costs.forEach((c, i) => {
      expect(costs[i]).toMatch(new RegExp(`^${c.type} `)); // out_of_pocket_max whole
      expect(costs[i]).toContain(` ${c.network} `);
    });
    // The descriptions are cut on their line, never wrapped one word per line.
    expect(get.filter((l) => /^\s+\S+$/.test(l))).toEqual([]);

    const single = expectFits('eligibility check', [...shown.entries()].find(([k]) => k.startsWith('eligibility check'))?.[1]);
    expect(single.some((l) => /^status +(queued|in-progress|completed)$/.test(l))).toBe(true);
    expect(single.some((l) => /^patient id +MRN-SCREEN-2$/.test(l))).toBe(true);

    const payers = expectFits('eligibility payers', shown.get('eligibility payers'));
    expect(payers.some((l) => /^87726 +UnitedHealthcare/.test(l))).toBe(true);
  });

  it('sequences list, get and metrics: full statuses and outcomes', async () => {
    const list = expectFits('sequences list', shown.get('sequences list'));
    const rows = tableRows(list, /^ID +STATUS/);
    const seqs = (await sandboxRequest<{ data: Array<{ id: number; status: string; outcome: string | null }> }>(sbx, 'GET', '/sequence-manager/sequences')).data.data;
    expect(rows).toHaveLength(seqs.length);
    for (const s of seqs) {
      const row = rows.find((r) => r.startsWith(`${s.id} `));
      expect(row).toContain(` ${s.status} `);
      if (s.outcome) expect(row).toContain(` ${s.outcome} `);
    }
    const get = expectFits('sequences get', shown.get('sequences get 1 --metrics'));
    expect(get).toContain('Steps');
    expect(get).toContain('Outreach');
    expect(tableRows(get, /^STEP +TYPE +STATUS/).every((r) => /\+1\d{10}/.test(r))).toBe(true);
    const metrics = expectFits('sequences metrics', shown.get('sequences metrics'));
    expect(tableRows(metrics, /^ID +STATUS/)).toHaveLength(seqs.length);
  });

  it('definitions list and get: every input name whole, no empty STATUS column', async () => {
    const list = expectFits('definitions list', shown.get('definitions list'));
    expect(list[0]).not.toContain('STATUS');
    const defs = (await sandboxRequest<Array<{ id: number; inputs_definition: Array<{ id: string }> }>>(sbx, 'GET', '/sequence-manager/sequence-definitions')).data;
    const rows = tableRows(list, /^ID +NAME/);
    expect(rows).toHaveLength(defs.length);
    for (const d of defs) {
      const row = rows.find((r) => r.startsWith(`${d.id} `))!;
      for (const input of d.inputs_definition) expect(row).toMatch(new RegExp(`(^| )${input.id}(,| |$)`));
    }
    const get = expectFits('definitions get', shown.get('definitions get 1'));
    const inputs = tableRows(get, /^ID +NAME +TYPE/);
    expect(inputs.map((r) => r.split(/ +/)[0])).toEqual(defs.find((d) => d.id === 1)!.inputs_definition.map((i) => i.id));
  });

  it('phone numbers, profiles, auth status and health', async () => {
    const numbers = (await sandboxRequest<PhoneNumber[]>(sbx, 'GET', '/phone-number')).data;
    const rows = tableRows(expectFits('phone-numbers list', shown.get('phone-numbers list')), /^ID +NUMBER/);
    expect(rows.map((r) => r.split(/ +/)[1])).toEqual(numbers.map((n) => n.number));
    expect(tableRows(expectFits('profiles list', shown.get('profiles list')), /^ACTIVE +NAME/).some((r) => /^\* +clinic /.test(r))).toBe(true);
    expect(expectFits('auth status', shown.get('auth status')).some((l) => /^key accepted +yes$/.test(l))).toBe(true);
    expect(expectFits('health', shown.get('health')).some((l) => /^status +ok$/.test(l))).toBe(true);
  });

  it('assistants create and tools patch: long text wrapped by words under the value column', () => {
    const created = expectFits('assistants create', [...shown.entries()].find(([k]) => k.startsWith('assistants create'))?.[1]);
    const first = created.findIndex((l) => l.startsWith('first message'));
    expect(created[first]).toMatch(/^first message +Hello, this is/);
    const column = created[first]!.indexOf('Hello');
    expect(created[first + 1]).toMatch(new RegExp(`^ {${column}}\\S`));
    expect(created.slice(first, first + 3).join(' ')).toContain('another time.');
    const patched = expectFits('tools patch', shown.get(`tools patch ${toolId()} --async`));
    expect(patched.some((l) => l === `id           ${toolId()}`)).toBe(true);
    expect(patched).toContain('Parameters');
  });
});

describe('a service answering long strings, missing fields and unknown values, at 80×24', () => {
  let server: VariantServer;
  beforeAll(async () => {
    server = await startVariantServer({ single: 'array', numbersAsStrings: true });
  });
  afterAll(() => server.close());

  it('still one line per record, essential values whole', async () => {
    const long = 'A very long free-text value the service made up, repeated. '.repeat(4);
    server.override('GET', /\/call$/, json(200, [
      { id: 1, started_at: '2026-11-20T10:00:00Z', destination_number: '+14155550101', outcome: 'outcome-nobody-documented', failure_reason: long, call_status: 'weird-status' },
      { id: '2', destination_number: '+14155550102' },
      { id: 3, outcome: '山田太郎様の予約確認 📞', destination_number: '+14155550103', summary: long },
    ]));
    server.override('GET', /\/eligibility$/, json(200, [
      { id: 300, status: 'manual-review', customer_patient_id: 'MRN-1', coverage: { payer_name: long, plan_name: long, is_active_today: 'maybe' } },
      { id: 301, status: 'completed' },
    ]));
    const shown = await screens('variant', variantEnv(server, baseEnv(tmp.dir)), [
      ['calls', 'list'],
      ['eligibility', 'list'],
    ]);
    const calls = tableRows(expectFits('calls list', shown.get('calls list')), /^ID +STARTED/);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toMatch(/^1 .*\+14155550101 .*outcome-nobody-documented/);
    expect(calls[1]).toMatch(/^2 .*\+14155550102/);
    expect(calls[2]).toContain('山田太郎様の予約確認 📞');
    const checks = tableRows(expectFits('eligibility list', shown.get('eligibility list')), /^ID +STATUS/);
    expect(checks).toHaveLength(2);
    expect(checks[0]).toMatch(/^300 +manual-review +.*MRN-1/);
  });
});
