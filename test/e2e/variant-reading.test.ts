// Every reading command against the variant server (test/helpers/variantServer.ts): a service that
// follows API.md but answers single records as an object, an array or {success, data}, lists bare
// or wrapped, numbers as strings, only API.md's fields, unknown enum values and empty bodies.
// -o json must print the body as the service sent it; piped plain output must show every value.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { empty, json, NGINX_502, startVariantServer, text, variantEnv, type Variant, type VariantServer } from '../helpers/variantServer.js';

const T0 = '2026-11-20T10:00:00.000Z';
const SEQ_ID = 7;
const CHECK_ID = 300;
const ASSISTANT_ID = 50;

function seed(s: VariantServer): void {
  const step = {
    id: 'voice-1',
    type: 'voice',
    inputs: [],
    status: 'pending',
    scheduled_at: T0,
    voicemail_message: null,
    source_number: '+14155550100',
    destination_number: '+14155550202',
    voice_assistant_id: 1,
    post_actions: [],
  };
  const seq = (id: number, status: string) => ({
    id,
    status,
    ended_reason: null,
    ended_reason_v2: null,
    current_step: 1,
    next_activity: T0,
    organization_id: 1,
    patient_id: 5000 + id,
    type: 'appointment_reminder',
    steps: [step],
    sequence_definition_id: 1,
    inputs: [],
    outcome: null,
    was_contact_reached: false,
    claimed_at: null,
    is_test_mode: false,
    last_updated: T0,
    _created_at: T0,
  });
  // Sequence 8 has a status API.md does not list.
  s.store.sequences.push(seq(SEQ_ID, 'queued'), seq(8, 'on-hold'));
  s.store.checks.push({ id: CHECK_ID, status: 'in-progress', created_at: T0, customer_patient_id: 'MRN-1', reads: 0 });
  s.store.assistants.push({
    id: ASSISTANT_ID,
    name: 'Front desk line',
    organization_id: 1,
    created_at: T0,
    updated_at: T0,
    is_webhook_secret_set: false,
    first_message: 'Hi',
    max_duration_seconds: 600,
  });
}

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

async function run(server: VariantServer, args: string[], input?: string): Promise<RunResult> {
  return runCli(args, { env: variantEnv(server, baseEnv(tmp.dir)), input });
}

/** How the JSON body is wrapped: as a single record, as a list, or always ({success,data} / {data}). */
type Wire = 'one' | 'list' | 'successData' | 'data';

interface Case {
  name: string;
  args: string[];
  input?: string;
  wire: Wire;
  /** Picks the record to check out of the unwrapped JSON payload. */
  pick?: (payload: Array<Record<string, unknown>>) => Record<string, unknown> | undefined;
  /** Field values of that record as the service sends them (numbers turned into strings by the variant). */
  sent: Record<string, number | string | boolean>;
  /** Lines that must appear in the piped plain output. */
  lines: Array<string | RegExp>;
  stderr?: RegExp;
}

const byId = (id: number) => (p: Array<Record<string, unknown>>) => p.find((r) => String(r.id) === String(id));

const CASES: Case[] = [
  {
    name: 'calls list',
    args: ['calls', 'list'],
    wire: 'list',
    pick: byId(2),
    sent: { id: 2, duration_ms: 120000, call_status: 'voicemail-left' },
    lines: [
      `1\t${T0}\t+14155550201\t120000\tappointment-confirmed\t\tended\t+14155550100\t1`,
      `2\t${T0}\t+14155550202\t120000\tappointment-confirmed\t\tvoicemail-left\t+14155550100\t1`,
    ],
  },
  {
    name: 'calls get',
    args: ['calls', 'get', '1'],
    wire: 'one',
    sent: { id: 1, assistant_id: 1, duration_ms: 120000 },
    lines: ['id\t1', 'call_status\tended', 'assistant_id\t1', 'duration_ms\t120000', 'analysis.repetition_count\t0', 'analysis.interruption_count\t0'],
  },
  {
    name: 'definitions list',
    args: ['definitions', 'list'],
    wire: 'list',
    pick: byId(1),
    sent: { id: 1, name: 'Appointment reminder' },
    lines: ['1\tAppointment reminder\t\t\tappointmentDate'],
  },
  {
    name: 'definitions get',
    args: ['definitions', 'get', '1'],
    wire: 'one',
    sent: { id: 1, name: 'Appointment reminder' },
    lines: ['id\t1', 'name\tAppointment reminder', 'inputs_definition.0.id\tappointmentDate', 'inputs_definition.0.name\tAppointment date', 'inputs_definition.0.type\tdate', 'inputs_definition.0.required\tfalse'],
  },
  {
    name: 'definitions update',
    args: ['definitions', 'update', '1', '--input', '-'],
    input: '{"name":"Reminder v2"}',
    wire: 'one',
    sent: { id: 1, name: 'Reminder v2', status: 'active' },
    lines: ['id\t1', 'name\tReminder v2', 'status\tactive'],
  },
  {
    name: 'sequences list',
    args: ['sequences', 'list'],
    wire: 'successData',
    pick: byId(SEQ_ID),
    sent: { id: SEQ_ID, current_step: 1, patient_id: 5007, status: 'queued' },
    lines: [`7\tqueued\tappointment_reminder\t1\t${T0}\t\tfalse`, `8\ton-hold\tappointment_reminder\t1\t${T0}\t\tfalse`],
  },
  {
    name: 'sequences get',
    args: ['sequences', 'get', String(SEQ_ID)],
    wire: 'one',
    sent: { id: SEQ_ID, current_step: 1, patient_id: 5007 },
    lines: ['id\t7', 'status\tqueued', 'sequence_definition_id\t1', 'patient_id\t5007', 'current_step\t1', 'was_contact_reached\tfalse', 'steps.0.order\tvoice-1', 'steps.0.type\tvoice', `steps.0.scheduled_at\t${T0}`, 'steps.0.destination_number\t+14155550202'],
  },
  {
    name: 'sequences update (PUT answer as the variant shapes single records)',
    args: ['sequences', 'update', String(SEQ_ID), '--input', '-'],
    input: '{"name":"Reminder"}',
    wire: 'one',
    sent: { id: SEQ_ID, current_step: 1, status: 'queued' },
    lines: ['id\t7', 'status\tqueued', 'steps_count\t1', /^last_updated\t\d{4}-\d\d-\d\dT/m],
  },
  {
    name: 'sequences metrics',
    args: ['sequences', 'metrics'],
    wire: 'data',
    pick: byId(SEQ_ID),
    sent: { id: SEQ_ID, status: 'queued' },
    lines: [new RegExp(`^7\\tqueued\\t${T0.replace(/\./g, '\\.')}\\t[^\\t]+\\t0\\t0$`, 'm'), /^8\ton-hold\t/m],
  },
  {
    name: 'phone-numbers list',
    args: ['phone-numbers', 'list'],
    wire: 'list',
    pick: byId(1),
    sent: { id: 1, assistant_id: 1, organization_id: 1, number: '+14155550100' },
    lines: ['1\t+14155550100\tFront desk\t1'],
  },
  {
    name: 'eligibility list',
    args: ['eligibility', 'list'],
    wire: 'list',
    pick: byId(CHECK_ID),
    sent: { id: CHECK_ID, status: 'completed' },
    lines: [`300\tcompleted\tsuccess\ttrue\tMRN-1\tUnitedHealthcare\tChoice Plus\t${T0}`],
  },
  {
    name: 'eligibility get',
    args: ['eligibility', 'get', String(CHECK_ID)],
    wire: 'one',
    sent: { id: CHECK_ID, status: 'completed' },
    lines: ['id\t300', 'status\tcompleted', 'outcome\tsuccess', 'customer_patient_id\tMRN-1', 'coverage.is_active_today\ttrue', 'coverage.plan_name\tChoice Plus', 'coverage.member_id\tM1'],
  },
  {
    name: 'assistants create',
    args: ['assistants', 'create', '--name', 'Reminder line', '--first-message', 'Hello', '--max-duration-seconds', '300'],
    wire: 'one',
    sent: { name: 'Reminder line', organization_id: 1, max_duration_seconds: 300 },
    lines: [/^id\t\d+$/m, 'name\tReminder line', 'first_message\tHello', 'max_duration_seconds\t300', 'organization_id\t1'],
    stderr: /Created assistant \d+\./,
  },
  {
    name: 'assistants patch',
    args: ['assistants', 'patch', String(ASSISTANT_ID), '--first-message', 'Hello again'],
    wire: 'one',
    sent: { id: ASSISTANT_ID, organization_id: 1, max_duration_seconds: 600 },
    lines: ['id\t50', 'name\tFront desk line', 'first_message\tHello again', 'max_duration_seconds\t600', 'organization_id\t1', 'is_webhook_secret_set\tfalse'],
    stderr: /Updated assistant 50\./,
  },
  {
    name: 'tools patch',
    args: ['tools', 'patch', 'tool-1', '--async'],
    wire: 'one',
    sent: { id: 'tool-1', async: true, orgId: '1' },
    lines: ['id\ttool-1', 'type\tfunction', 'async\ttrue'],
  },
];

const VARIANTS: Array<[string, Partial<Variant>]> = [
  ['object, bare lists, numbers as numbers', { single: 'object', list: 'bare', numbersAsStrings: false }],
  ['object, bare lists, numbers as strings', { single: 'object', list: 'bare', numbersAsStrings: true }],
  ['array, {success,data} lists, numbers as strings', { single: 'array', list: 'envelope', numbersAsStrings: true }],
  ['{success,data} records and lists, numbers as strings', { single: 'envelope', list: 'envelope', numbersAsStrings: true }],
];

/** The payload of a JSON body, after checking that it is wrapped exactly as the variant sends it. */
function payload(body: unknown, wire: Wire, v: Variant): Array<Record<string, unknown>> {
  const shape = wire === 'one' ? v.single : wire === 'list' ? (v.list === 'bare' ? 'bare' : 'envelope') : wire;
  switch (shape) {
    case 'object':
      expect(Array.isArray(body)).toBe(false);
      expect(body).not.toHaveProperty('success');
      return [body as Record<string, unknown>];
    case 'array':
    case 'bare':
      expect(Array.isArray(body)).toBe(true);
      return body as Array<Record<string, unknown>>;
    case 'envelope':
    case 'successData': {
      expect(body).toMatchObject({ success: true });
      const d = (body as { data: unknown }).data;
      return Array.isArray(d) ? d : [d as Record<string, unknown>];
    }
    case 'data':
      expect(Array.isArray((body as { data?: unknown }).data)).toBe(true);
      return (body as { data: Array<Record<string, unknown>> }).data;
  }
  throw new Error(`unknown shape ${String(shape)}`);
}

function onTheWire(value: number | string | boolean, v: Variant): unknown {
  return typeof value === 'number' && v.numbersAsStrings ? String(value) : value;
}

function expectLines(stdout: string, lines: Array<string | RegExp>): void {
  const got = stdout.split('\n');
  for (const l of lines) {
    if (typeof l === 'string') expect(got, `line ${JSON.stringify(l)} in:\n${stdout}`).toContain(l);
    else expect(stdout).toMatch(l);
  }
}

describe.each(VARIANTS)('variant: %s', (_label, variant) => {
  let server: VariantServer;
  beforeAll(async () => {
    server = await startVariantServer({ ...variant, eligibilityStatuses: ['completed'] });
    seed(server);
  });
  afterAll(() => server.close());

  it.each(CASES)('$name: -o json prints the body as sent; piped output shows every value', async (c) => {
    const j = await run(server, [...c.args, '-o', 'json'], c.input);
    expect(j.code, j.stderr).toBe(0);
    const items = payload(JSON.parse(j.stdout), c.wire, server.variant);
    const rec = c.pick ? c.pick(items) : items[0];
    expect(rec, j.stdout).toBeDefined();
    for (const [k, val] of Object.entries(c.sent)) expect(rec![k], `${k} as sent`).toEqual(onTheWire(val, server.variant));

    const p = await run(server, c.args, c.input);
    expect(p.code, p.stderr).toBe(0);
    expectLines(p.stdout, c.lines);
    expect(p.stdout + p.stderr).not.toMatch(/undefined|NaN|\[object Object\]/);
    if (c.stderr) expect(p.stderr).toMatch(c.stderr);
  });
});

describe('an empty 200 body is malformed (exit 1), for every read and write', () => {
  let server: VariantServer;
  beforeAll(async () => {
    server = await startVariantServer({ eligibilityStatuses: ['completed'] });
    seed(server);
  });
  afterAll(() => server.close());

  it.each([
    { args: ['calls', 'list'], method: 'GET', path: /\/call$/, kind: 'list', where: 'GET /call' },
    { args: ['calls', 'get', '1'], method: 'GET', path: /\/call\/1$/, kind: 'record', where: 'GET /call/1' },
    { args: ['definitions', 'list'], method: 'GET', path: /\/sequence-definitions$/, kind: 'list', where: 'GET /sequence-manager/sequence-definitions' },
    { args: ['definitions', 'get', '1'], method: 'GET', path: /\/sequence-definitions\/1$/, kind: 'record', where: 'GET /sequence-manager/sequence-definitions/1' },
    { args: ['definitions', 'update', '1', '--input', '-'], input: '{"name":"x"}', method: 'PUT', path: /\/sequence-definitions\/1$/, kind: 'record', where: 'PUT /sequence-manager/sequence-definitions/1' },
    { args: ['sequences', 'list'], method: 'GET', path: /\/sequences$/, kind: 'list', where: 'GET /sequence-manager/sequences' },
    { args: ['sequences', 'get', '7'], method: 'GET', path: /\/sequences\/7$/, kind: 'record', where: 'GET /sequence-manager/sequences/7' },
    { args: ['sequences', 'update', '7', '--input', '-'], input: '{"name":"x"}', method: 'PUT', path: /\/sequences\/7$/, kind: 'record', where: 'PUT /sequence-manager/sequences/7' },
    { args: ['sequences', 'metrics'], method: 'GET', path: /\/sequences\/metrics$/, kind: 'list', where: 'GET /sequence-manager/sequences/metrics' },
    { args: ['phone-numbers', 'list'], method: 'GET', path: /\/phone-number$/, kind: 'list', where: 'GET /phone-number' },
    { args: ['phone-numbers'], method: 'GET', path: /\/phone-number$/, kind: 'list', where: 'GET /phone-number' },
    { args: ['eligibility', 'list'], method: 'GET', path: /\/eligibility$/, kind: 'list', where: 'GET /eligibility' },
    { args: ['eligibility', 'get', '300'], method: 'GET', path: /\/eligibility\/300$/, kind: 'record', where: 'GET /eligibility/300' },
    { args: ['assistants', 'create', '--name', 'X'], method: 'POST', path: /\/assistant$/, kind: 'record', where: 'POST /assistant' },
    { args: ['assistants', 'patch', '50', '--first-message', 'x'], method: 'PATCH', path: /\/assistant\/50$/, kind: 'record', where: 'PATCH /assistant/50' },
    { args: ['tools', 'patch', 'tool-1', '--async'], method: 'PATCH', path: /\/tool\/tool-1$/, kind: 'record', where: 'PATCH /tool/tool-1' },
    { args: ['health'], method: 'GET', path: /\/health$/, kind: 'record', where: 'GET /health' },
  ])('$args.0 $args.1: $where', async (c) => {
    for (const format of [[], ['-o', 'json']]) {
      server.override(c.method, c.path, empty);
      const r = await run(server, [...c.args, ...format], c.input);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`The service answered ${c.where} without a ${c.kind} (empty body).`);
      if (c.method === 'POST') expect(r.stderr).toMatch(/may have acted/);
      if (format.length) expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { code: 'malformed_response' } });
    }
  });

  it.each([
    ['null', null, /without a list \(null\)/],
    ['a single object where a list belongs', { id: 1 }, /without a list/],
  ])('calls list answered with %s: exit 1', async (_n, body, message) => {
    server.override('GET', /\/call$/, json(200, body));
    const r = await run(server, ['calls', 'list']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(message);
  });

  it('an empty list is no error: exit 0, nothing printed', async () => {
    for (const body of [[], { success: true, data: [] }]) {
      server.override('GET', /\/call$/, json(200, body));
      const r = await run(server, ['calls', 'list']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
    }
  });

  it('assistants create answered without an id: exit 1, says it was created but the id is missing', async () => {
    server.override('POST', /\/assistant$/, json(201, { name: 'X', organization_id: 1 }));
    const r = await run(server, ['assistants', 'create', '--name', 'X']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('The service created the assistant but its answer holds no id');
    expect(r.stderr).not.toContain('may have been created: The service'); // said once, not wrapped again
    expect(r.stdout + r.stderr).not.toContain('undefined');
  });

  it('assistants patch / tools patch answered without an id: the id asked for is shown', async () => {
    server.override('PATCH', /\/assistant\/50$/, json(200, [{ name: 'Front desk line', first_message: 'Yo' }]));
    const a = await run(server, ['assistants', 'patch', '50', '--first-message', 'Yo']);
    expect(a.code, a.stderr).toBe(0);
    expectLines(a.stdout, ['id\t50', 'first_message\tYo']);
    expect(a.stderr).toContain('Updated assistant 50.');
    server.override('PATCH', /\/tool\/tool-9$/, json(200, { success: true, data: { type: 'function', async: 'true' } }));
    const t = await run(server, ['tools', 'patch', 'tool-9', '--async']);
    expect(t.code, t.stderr).toBe(0);
    expectLines(t.stdout, ['id\ttool-9', 'async\ttrue']);
  });
});

describe('unknown enum values are shown as sent', () => {
  let server: VariantServer;
  beforeAll(async () => {
    server = await startVariantServer({ single: 'array', numbersAsStrings: true, eligibilityStatuses: ['manual-review'] });
    seed(server);
  });
  afterAll(() => server.close());

  it.each([
    { args: ['calls', 'get', '2'], line: 'call_status\tvoicemail-left', json: (b: unknown) => (b as Array<Record<string, unknown>>)[0]!.call_status },
    { args: ['sequences', 'get', '8'], line: 'status\ton-hold', json: (b: unknown) => (b as Array<Record<string, unknown>>)[0]!.status },
    { args: ['eligibility', 'get', String(CHECK_ID)], line: 'status\tmanual-review', json: (b: unknown) => (b as Array<Record<string, unknown>>)[0]!.status },
    { args: ['eligibility', 'list'], line: `300\tmanual-review\t\t\tMRN-1\t\t\t${T0}`, json: (b: unknown) => (b as Array<Record<string, unknown>>)[0]!.status },
  ])('$args.0 $args.1', async (c) => {
    const p = await run(server, c.args);
    expect(p.code, p.stderr).toBe(0);
    expectLines(p.stdout, [c.line]);
    const j = await run(server, [...c.args, '-o', 'json']);
    expect(j.code, j.stderr).toBe(0);
    expect(c.json(JSON.parse(j.stdout))).toBe(c.line.split('\t')[1]);
  });
});

describe("a proxy's HTML error page is summarised in one line", () => {
  let server: VariantServer;
  beforeAll(async () => {
    server = await startVariantServer();
  });
  afterAll(() => server.close());

  it.each([
    [['calls', 'list'], /\/call$/],
    [['sequences', 'get', '1'], /\/sequences\/1$/],
    [['definitions', 'list'], /\/sequence-definitions$/],
  ])('%j: exit 1, status and reason, no markup; the page only with --debug', async (args, path) => {
    server.override('GET', path, text(502, NGINX_502), Infinity);
    const r = await run(server, args);
    expect(r.code).toBe(1);
    const message = r.stderr.split('\n').find((l) => l.startsWith('error:'))!;
    expect(message).toMatch(/^error: an HTML page, probably from a proxy or gateway in front of the service \(GET \/v1\/.+: 502 Bad Gateway\)$/);
    expect(r.stderr).not.toContain('<');
    const d = await run(server, [...args, '--debug']);
    expect(d.stderr).toContain('<h1>502 Bad Gateway</h1>');
  });
});
