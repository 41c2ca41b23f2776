// A second, deliberately different reading of API.md: a small in-memory service whose answers are
// switched per test among the shapes API.md (and CLI.md's notes on the real service) allow but our
// sandbox does not use — single records as an object, an array or {success, data}; lists bare or
// wrapped; numbers as strings; records with API.md's fields only; batch answers without `created`,
// with errors as strings, {rowIndex, errors}, {field, message} or 1-based rows; unknown statuses; error
// pages in HTML. `override()` scripts one-off answers (a 502 page on the 2nd create, a drop, ...).
// Tests of the client run against it so that no command depends on how our own sandbox answers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { drop, json, text } from './faultServer.js';

// The fault server's plain answers serve here too.
export { drop, json, text };

export interface Variant {
  /** How a single record is answered (GET one, POST/PATCH/PUT answers). */
  single: 'object' | 'array' | 'envelope';
  /** How a list is answered. */
  list: 'bare' | 'envelope';
  /** Integers sent as strings ("current_step": "1", "id": "7"). */
  numbersAsStrings: boolean;
  /** Records carry only API.md's fields (no created_at/phone_number/name on sequences). */
  apiFieldsOnly: boolean;
  /** The batch answer's `created`: listed, omitted, or an empty list (with created_count still set). */
  batchCreated: 'list' | 'omit' | 'empty';
  /** created_count: honest, short by one, always 0, or omitted. */
  batchCreatedCount: 'honest' | 'short' | 'zero' | 'omit';
  /** Shape of batch error items. */
  batchErrors: 'object' | 'string' | 'rowIndexErrors' | 'fieldMessage' | 'oneBasedRow';
  /** A warning per row whose lastName is "Warn". */
  batchWarnings: 'object' | 'string';
  /** Eligibility statuses a check goes through, one per read after submission (the last repeats). */
  eligibilityStatuses: string[];
  /** Does GET /sequence-manager/sequences/metrics exist (404 otherwise)? */
  metrics: boolean;
}

export const DEFAULT_VARIANT: Variant = {
  single: 'object',
  list: 'bare',
  numbersAsStrings: false,
  apiFieldsOnly: true,
  batchCreated: 'list',
  batchCreatedCount: 'honest',
  batchErrors: 'object',
  batchWarnings: 'object',
  eligibilityStatuses: ['in-progress', 'completed'],
  metrics: true,
};

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface VariantServer {
  url: string;
  key: string;
  requests: RecordedRequest[];
  variant: Variant;
  set(v: Partial<Variant>): void;
  /** The next `times` requests matching method and path get `handler` instead (default once; Infinity for all). */
  override(method: string, path: RegExp, handler: Handler, times?: number): void;
  /** The store, for assertions and set-up. */
  store: Store;
  /** Batch create requests (not validate_only) received so far. */
  creates(): RecordedRequest[];
  close(): Promise<void>;
}

interface Store {
  sequences: Array<Record<string, unknown>>;
  checks: Array<Record<string, unknown> & { reads: number }>;
  calls: Array<Record<string, unknown>>;
  assistants: Array<Record<string, unknown>>;
  nextId: number;
}

const KEY = 'variant-key';
const T0 = '2026-11-20T10:00:00.000Z';

/** An empty 200 body. */
export const empty: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end();
};
/** Acts first (the default handler), then drops the connection instead of answering. */
export const actThenDrop =
  (server: () => VariantServer): Handler =>
  async (req, res, body) => {
    const sink = { writeHead: () => sink, end: () => req.socket.destroy(), setHeader: () => undefined } as unknown as ServerResponse;
    await route(server(), req, sink, body);
    void res;
  };
/** Acts, then answers with `status` and an HTML page (a gateway that timed out after the service acted). */
export const actThenPage =
  (server: () => VariantServer, status = 502): Handler =>
  async (req, res, body) => {
    const sink = { writeHead: () => sink, end: () => undefined, setHeader: () => undefined } as unknown as ServerResponse;
    await route(server(), req, sink, body);
    text(status, NGINX_502)(req, res, body);
  };

export const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';

export async function startVariantServer(v: Partial<Variant> = {}): Promise<VariantServer> {
  const overrides: Array<{ method: string; path: RegExp; handler: Handler; left: number }> = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const store: Store = { sequences: [], checks: [], calls: seedCalls(), assistants: [], nextId: 100 };
  let server!: VariantServer;
  const http = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const path = (req.url ?? '').split('?')[0]!;
    const o = overrides.find((x) => x.left > 0 && x.method === req.method && x.path.test(path));
    try {
      if (o) {
        o.left--;
        await o.handler(req, res, body);
      } else await route(server, req, res, body);
    } catch (err) {
      if (!res.headersSent) json(500, { message: `variant server: ${(err as Error).message}`, statusCode: 500 })(req, res, body);
    }
  });
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  server = {
    url: `http://127.0.0.1:${port}/v1`,
    key: KEY,
    requests,
    variant: { ...DEFAULT_VARIANT, ...v },
    set: (p) => Object.assign(server.variant, p),
    override: (method, path, handler, times = 1) => overrides.push({ method, path, handler, left: times }),
    store,
    creates: () => requests.filter((r) => r.method === 'POST' && r.url.includes('/sequences/batch') && !JSON.parse(r.body || '{}').validate_only),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        http.close(() => r());
      }),
  };
  return server;
}

/** An environment for the built CLI pointed at the variant server. */
export function variantEnv(s: VariantServer, base: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return { ...base, OUTREACH_API_KEY: s.key, OUTREACH_BASE_URL: s.url, ...extra };
}

// ---- answers -------------------------------------------------------------------------------------

function shapeNumbers(v: unknown, asStrings: boolean): unknown {
  if (!asStrings) return v;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  if (Array.isArray(v)) return v.map((x) => shapeNumbers(x, true));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeNumbers(x, true)]));
  return v;
}

function one(s: VariantServer, res: ServerResponse, rec: unknown, status = 200) {
  const r = shapeNumbers(rec, s.variant.numbersAsStrings);
  const body = s.variant.single === 'array' ? [r] : s.variant.single === 'envelope' ? { success: true, data: r } : r;
  json(status, body)(undefined as never, res, '');
}

function many(s: VariantServer, res: ServerResponse, items: unknown[]) {
  const r = shapeNumbers(items, s.variant.numbersAsStrings);
  json(200, s.variant.list === 'envelope' ? { success: true, data: r } : r)(undefined as never, res, '');
}

const DEFINITION = {
  id: 1,
  name: 'Appointment reminder',
  inputs_definition: [{ id: 'appointmentDate', name: 'Appointment date', type: 'date', required: false }],
};

function seedCalls(): Array<Record<string, unknown>> {
  return [1, 2].map((id) => ({
    id,
    assistant_id: 1,
    started_at: T0,
    ended_at: '2026-11-20T10:02:00.000Z',
    call_status: id === 1 ? 'ended' : 'voicemail-left', // an enum value API.md does not list
    ended_reason: 'customer-ended-call',
    transcript: 'AI: Hello',
    source_number: '+14155550100',
    destination_number: `+1415555020${id}`,
    call_type: 'outbound',
    duration_ms: 120000,
    analysis: { repetition_count: 0, interruption_count: 0, custom: {} },
    summary: 'Confirmed',
    outcome: 'appointment-confirmed',
  }));
}

/** The default behaviour, for overrides that act normally on some requests. */
export async function route(s: VariantServer, req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname.replace(/^\/v1/, '');
  const m = req.method ?? 'GET';
  if (path === '/health') return json(200, { status: 'ok' })(req, res, body);
  if (req.headers.authorization !== `Bearer ${s.key}`) return json(401, { message: 'Unauthorized', statusCode: 401 })(req, res, body);
  const parsed = body ? (JSON.parse(body) as Record<string, unknown>) : {};
  const st = s.store;
  let mm: RegExpMatchArray | null;

  if (m === 'POST' && path === '/sequence-manager/sequences/batch') return batch(s, res, parsed);
  if (m === 'GET' && path === '/sequence-manager/sequences') return json(200, { success: true, data: shapeNumbers(st.sequences.map((x) => visible(s, x)), s.variant.numbersAsStrings) })(req, res, body);
  if (m === 'GET' && path === '/sequence-manager/sequences/metrics') {
    if (!s.variant.metrics) return json(404, { error: 'Not found' })(req, res, body);
    const data = st.sequences.map((x) => ({ id: x.id, status: x.status, created_at: x._created_at, last_updated: x.last_updated, outreach: [] }));
    return json(200, { data: shapeNumbers(data, s.variant.numbersAsStrings) })(req, res, body);
  }
  if ((mm = path.match(/^\/sequence-manager\/sequences\/(\d+)$/))) {
    const seq = st.sequences.find((x) => x.id === Number(mm![1]));
    if (!seq) return json(404, { error: 'Sequence not found' })(req, res, body);
    if (m === 'GET') return one(s, res, visible(s, seq));
    if (m === 'PUT') {
      Object.assign(seq, { last_updated: new Date().toISOString() });
      return one(s, res, visible(s, seq));
    }
  }
  if (m === 'GET' && path === '/sequence-manager/sequence-definitions') return many(s, res, [DEFINITION]);
  if ((mm = path.match(/^\/sequence-manager\/sequence-definitions\/(\d+)$/))) {
    if (Number(mm[1]) !== 1) return json(404, { error: 'Sequence definition not found' })(req, res, body);
    return one(s, res, m === 'PUT' ? { ...DEFINITION, status: 'active', ...parsed } : DEFINITION);
  }
  if (m === 'POST' && path === '/eligibility') {
    const payer = (parsed.insurance as { payer_id?: string } | undefined)?.payer_id;
    if (payer !== '87726') {
      return json(400, { error: 'Bad Request', statusCode: 400, message: `Payer ${payer} is not supported`, supported_payers: [{ payer_id: '87726', name: 'UnitedHealthcare' }] })(req, res, body);
    }
    const check = { id: st.nextId++, status: 'in-progress', created_at: new Date().toISOString(), customer_patient_id: (parsed.patient as { customer_patient_id?: string }).customer_patient_id, reads: 0 };
    st.checks.push(check);
    const { reads: _r, ...rec } = check;
    return one(s, res, rec);
  }
  if (m === 'GET' && path === '/eligibility') return many(s, res, st.checks.map(checkView(s, false)));
  if ((mm = path.match(/^\/eligibility\/(\d+)$/))) {
    const c = st.checks.find((x) => x.id === Number(mm![1]));
    if (!c) return json(404, { message: 'Eligibility check not found', statusCode: 404, error: 'Not Found' })(req, res, body);
    return one(s, res, checkView(s, true)(c));
  }
  if (m === 'GET' && path === '/call') return many(s, res, st.calls);
  if ((mm = path.match(/^\/call\/(\d+)$/))) {
    const c = st.calls.find((x) => x.id === Number(mm![1]));
    if (!c) return json(404, { message: 'Call not found', statusCode: 404 })(req, res, body);
    if (m === 'GET') return one(s, res, c);
    if (m === 'DELETE') {
      st.calls.splice(st.calls.indexOf(c), 1);
      res.writeHead(204).end();
      return;
    }
  }
  if (m === 'POST' && path === '/assistant') {
    const a = { id: st.nextId++, organization_id: 1, created_at: T0, updated_at: T0, is_webhook_secret_set: false, ...parsed };
    st.assistants.push(a);
    return one(s, res, a, 201);
  }
  if ((mm = path.match(/^\/assistant\/(\d+)$/)) && m === 'PATCH') {
    const a = st.assistants.find((x) => x.id === Number(mm![1]));
    if (!a) return json(404, { error: 404, message: 'Assistant not found' })(req, res, body);
    Object.assign(a, parsed, { updated_at: new Date().toISOString() });
    return one(s, res, a);
  }
  if ((mm = path.match(/^\/tool\/([^/]+)$/)) && m === 'PATCH') {
    return one(s, res, { type: 'function', id: mm[1], orgId: '1', createdAt: T0, updatedAt: new Date().toISOString(), async: false, ...parsed });
  }
  if (m === 'GET' && path === '/phone-number') {
    return many(s, res, [{ number: '+14155550100', id: 1, organization_id: 1, name: 'Front desk', assistant_id: 1 }]);
  }
  return json(404, { message: `No route ${m} ${path}`, statusCode: 404 })(req, res, body);
}

function checkView(s: VariantServer, read: boolean) {
  return (c: VariantServer['store']['checks'][number]): Record<string, unknown> => {
    if (read) c.reads++;
    const list = s.variant.eligibilityStatuses;
    const status = list[Math.min(c.reads, list.length) - 1] ?? list[0]!;
    const { reads: _r, ...rec } = c;
    return {
      ...rec,
      status,
      ...(status === 'completed'
        ? {
            outcome: 'success',
            coverage: { is_active_today: true, checked_date: '2026-11-20', plan_name: 'Choice Plus', payer_name: 'UnitedHealthcare', patient_costs: [], group_number: 'G1', member_id: 'M1' },
          }
        : {}),
    };
  };
}

/** A sequence as the variant shows it: without the fields only our sandbox adds, when so set. */
function visible(s: VariantServer, seq: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(seq)) {
    if (k.startsWith('_')) {
      if (!s.variant.apiFieldsOnly) out[k.slice(1)] = v;
    } else out[k] = v;
  }
  return out;
}

const PHONE = /^\+1[2-9]\d{9}$/;

function batch(s: VariantServer, res: ServerResponse, body: Record<string, unknown>) {
  const rows = Array.isArray(body.rows) ? (body.rows as Array<Record<string, unknown>>) : [];
  const validateOnly = body.validate_only === true;
  const v = s.variant;
  const errors: unknown[] = [];
  const warnings: unknown[] = [];
  const bad = new Set<number>();
  rows.forEach((r, i) => {
    const problems: Array<{ field: string; message: string }> = [];
    if (typeof r.phoneNumber !== 'string' || !PHONE.test(r.phoneNumber)) problems.push({ field: 'phoneNumber', message: `phoneNumber ${String(r.phoneNumber)} is not a valid phone number` });
    if (r.firstName === 'Reject') problems.push({ field: 'firstName', message: 'firstName is not accepted by the service' });
    if (problems.length) {
      bad.add(i);
      if (v.batchErrors === 'string') for (const p of problems) errors.push(`Row ${i + 1}: ${p.message}`);
      else if (v.batchErrors === 'rowIndexErrors') errors.push({ rowIndex: i, errors: problems.map((p) => p.message) });
      else if (v.batchErrors === 'fieldMessage') for (const p of problems) errors.push({ row: i, field: p.field, message: p.message });
      else if (v.batchErrors === 'oneBasedRow') for (const p of problems) errors.push({ row: i + 1, message: p.message });
      else for (const p of problems) errors.push({ rowIndex: i, field: p.field, message: p.message });
    }
    if (r.lastName === 'Warn') warnings.push(v.batchWarnings === 'string' ? `Row ${i + 1}: lastName looks like a placeholder` : { rowIndex: i, field: 'lastName', message: 'lastName looks like a placeholder' });
  });
  const created: Array<{ rowIndex: number; sequence_id: number }> = [];
  if (!validateOnly) {
    rows.forEach((r, i) => {
      if (bad.has(i)) return;
      const id = s.store.nextId++;
      const now = new Date().toISOString();
      s.store.sequences.push({
        id,
        status: 'queued',
        ended_reason: null,
        ended_reason_v2: null,
        current_step: 1,
        next_activity: (body.next_activity_date as string | undefined) ?? now,
        organization_id: 1,
        patient_id: 5000 + id,
        type: 'appointment_reminder',
        steps: [{ id: 'voice-1', type: 'voice', inputs: [], status: 'pending', scheduled_at: now, voicemail_message: null, source_number: '+14155550100', destination_number: r.phoneNumber, voice_assistant_id: 1, post_actions: [] }],
        sequence_definition_id: body.sequence_definition_id,
        inputs: Object.entries(r)
          .filter(([k]) => !['phoneNumber', 'firstName', 'lastName'].includes(k))
          .map(([k, val]) => ({ id: k, value: String(val), name: k, type: 'text' })),
        outcome: null,
        was_contact_reached: false,
        claimed_at: null,
        is_test_mode: false,
        last_updated: now,
        // Only our sandbox sends these: shown when apiFieldsOnly is false.
        _created_at: now,
        _phone_number: r.phoneNumber,
        _name: `${String(r.firstName)} ${String(r.lastName)}`,
      });
      created.push({ rowIndex: i, sequence_id: id });
    });
  }
  const count = created.length;
  const answer: Record<string, unknown> = {
    valid: bad.size === 0,
    total_attempted: rows.length,
    valid_count: rows.length - bad.size,
    errors,
    warnings,
  };
  if (v.batchCreatedCount !== 'omit') answer.created_count = v.batchCreatedCount === 'zero' ? 0 : v.batchCreatedCount === 'short' ? Math.max(0, count - 1) : count;
  if (v.batchCreated === 'list') answer.created = created;
  else if (v.batchCreated === 'empty') answer.created = [];
  json(200, shapeNumbers(answer, v.numbersAsStrings))(undefined as never, res, '');
}
