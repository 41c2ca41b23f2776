// `outreach webhooks listen` (the built CLI, spawned) receiving the reports of a sandbox whose
// scheduler runs a batch at high speed; calls list / sequences metrics showing the outreach.
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, runCli, tempDir } from '../helpers/cli.js';
import { tmuxSession } from '../unit/resources/recordingProxy.js';
import { Listener, sleep, target, waitFor } from '../helpers/listener.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const SECRET = 'whsec-e2e-7f3a91c2';

describe('webhooks listen with a sandbox that runs its outreach', () => {
  let tmp: ReturnType<typeof tempDir>;
  let listener: Listener;
  let sbx: TestSandbox;
  let ids: number[] = [];

  beforeAll(async () => {
    tmp = tempDir();
    listener = new Listener(['--secret-env', 'HOOK_SECRET'], { ...baseEnv(tmp.dir), HOOK_SECRET: SECRET });
    const url = await listener.started();
    // 10,000,000×: an hour of outreach time is 0.36 ms, a weekend well under a second.
    sbx = await startTestSandbox({ scheduler: true, speed: 10_000_000, schedulerTickMs: 10, sequenceWebhookUrl: `${url}sequences`, sequenceWebhookSecret: SECRET });
    expect((await sandboxRequest(sbx, 'PATCH', '/assistant/1', { webhook_url: `${url}calls`, webhook_secret: SECRET })).status).toBe(200);
  });
  afterAll(async () => {
    await listener?.stop();
    await sbx?.close();
    tmp?.cleanup();
  });

  it('receives the end-of-call and end-of-sequence reports of a batch, authenticated', async () => {
    const rows = ['+14155557010', '+14155557016', '+14155557018'].map((phoneNumber) => ({ phoneNumber, firstName: 'Rosa', lastName: 'Quintero', appointmentDate: '2031-01-15' }));
    const r = await sandboxRequest<any>(sbx, 'POST', '/sequence-manager/sequences/batch', { sequence_definition_id: 1, rows });
    expect(r.status).toBe(200);
    ids = r.data.created.map((c: { sequence_id: number }) => c.sequence_id);
    expect(ids).toHaveLength(3);

    // 1 call (confirmed) + 1 call (declined) + 2 calls (not reached) and 3 sequence reports.
    const lines = await waitFor(() => (listener.lines().length >= 7 ? listener.lines() : null), 30_000, '7 deliveries');
    await sleep(300);
    expect(listener.lines()).toHaveLength(7);
    for (const l of lines) expect(l.authenticated).toBe(true);
    const calls = lines.filter((l) => l.kind === 'end-of-call');
    const ends = lines.filter((l) => l.kind === 'end-of-sequence');
    expect(calls).toHaveLength(4);
    expect(ends).toHaveLength(3);
    expect(calls.every((l) => l.path === '/calls' && l.event === 'call.ended' && l.body.type === 'end-of-call-report')).toBe(true);
    expect(calls.map((l) => l.body.call.outcome).sort()).toEqual(['appointment-confirmed', 'declined', 'incomplete', 'incomplete']);
    const byId = new Map(ends.map((l) => [l.body.id, l.body]));
    expect(byId.get(ids[0])).toMatchObject({ status: 'completed', outcome_description: expect.any(String) });
    expect(byId.get(ids[1])).toMatchObject({ status: 'failed' });
    expect(byId.get(ids[2]).outreach.map((o: any) => o.type)).toEqual(['call', 'sms', 'call']);
    // The secret never appears in what the listener prints.
    expect(listener.stdout + listener.stderr).not.toContain(SECRET);
  });

  it('rejects a wrong secret and a missing header with 401 and a warning, without printing either', async () => {
    const body = JSON.stringify({ id: 1, status: 'completed', outcome: 'success', coverage: { is_active_today: true, member_id: 'W123' } });
    const wrong = await fetch(listener.url, { method: 'POST', headers: { authorization: 'Bearer not-the-secret-42', 'content-type': 'application/json' }, body });
    expect(wrong.status).toBe(401);
    const missing = await fetch(listener.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(missing.status).toBe(401);
    await waitFor(() => listener.stderr.includes('no Authorization header'), 10_000, 'the warning');
    expect(listener.stderr).toMatch(/warning: rejected a delivery to \/ from \S+: wrong secret \(answered 401\)/);
    expect(listener.stderr).not.toContain('not-the-secret-42');
    expect(listener.stdout).not.toContain('W123'); // rejected deliveries are not printed
  });

  it('calls list and sequences metrics show the new outreach', async () => {
    const env = sbx.env(tmp.dir);
    const outreach = (await sandboxRequest<any>(sbx, 'GET', '/sequence-manager/sequences/metrics')).data.data.filter((m: any) => ids.includes(m.id));
    expect(outreach.map((m: any) => m.outreach.length).sort()).toEqual([1, 1, 3]);
    const callIds = outreach.flatMap((m: any) => m.outreach.filter((o: any) => o.type === 'call').map((o: any) => o.call_record_id));
    expect(callIds).toHaveLength(4);

    const list = await runCli(['calls', 'list', '-o', 'json'], { env });
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as any[];
    for (const id of callIds) expect(listed.find((c) => c.id === id)).toMatchObject({ call_status: 'ended', call_type: 'outboundPhoneCall' });
    const table = await runCli(['calls', 'list'], { env });
    expect(table.stdout).toContain('declined');

    const metrics = await runCli(['sequences', 'metrics', '-o', 'json'], { env });
    expect(metrics.code, metrics.stderr).toBe(0);
    const m = JSON.parse(metrics.stdout).data.find((x: any) => x.id === ids[2]);
    expect(m).toMatchObject({ status: 'failed' });
    expect(m.outreach.map((o: any) => o.type)).toEqual(['call', 'sms', 'call']);

    const get = await runCli(['sequences', 'get', String(ids[0]), '--metrics'], { env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain('status\tcompleted');
    expect(get.stdout).toMatch(/^outreach\.0\.type\tcall$/m); // piped: the outreach under dotted keys
  });

  it('stops cleanly on Ctrl-C with exit 0 and a true count: received, accepted, rejected and why', async () => {
    expect(await listener.stop('SIGINT')).toBe(0);
    expect(listener.stderr.replace(/\s+/g, ' ')).toContain('Stopped: 9 deliveries received: 7 accepted, 2 rejected (1 no Authorization header, 1 wrong secret).');
  });
});

describe('webhooks listen on its own', () => {
  it('prints short summaries without patient data, forwards unchanged and reports the answer; SIGTERM stops it', async () => {
    const tmp = tempDir();
    const fwd = await target(202);
    const l = new Listener(['-o', 'table', '--forward-to', fwd.url, '--secret-env', 'S'], { ...baseEnv(tmp.dir), S: SECRET });
    try {
      const url = await l.started();
      expect(l.stderr).toContain(`Forwarding each accepted delivery to ${fwd.url}`);
      const check = JSON.stringify([{ id: 41, status: 'completed', outcome: 'success', customer_patient_id: 'P-9', created_at: '2030-01-01T00:00:00Z', coverage: { is_active_today: false, member_id: 'ZX99887766', payer_name: 'Aetna', plan_name: 'Aetna PPO Plan' } }]);
      const headers = { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json; charset=utf-8', 'x-outreach-event': 'eligibility.completed', 'x-outreach-delivery': '9' };
      expect((await fetch(url, { method: 'POST', headers, body: check })).status).toBe(200);
      const call = JSON.stringify({ type: 'end-of-call-report', call: { id: 7, call_status: 'ended', outcome: 'declined', failure_reason: 'declined', duration_ms: 92_000, assistant_id: 1, destination_number: '+14155550123', transcript: 'AI: Am I speaking with Rosa Quintero?' } });
      expect((await fetch(url, { method: 'POST', headers: { ...headers, 'x-outreach-event': 'call.ended', 'x-outreach-delivery': '10' }, body: call })).status).toBe(200);
      expect((await fetch(url, { method: 'POST', headers: { ...headers, 'x-outreach-delivery': '11' }, body: 'hello' })).status).toBe(200);
      await waitFor(() => l.stdout.trim().split('\n').length >= 3 && fwd.got.length >= 3, 10_000, '3 summaries');
      // Each summary is printed once its forward is answered, so the order of the lines may vary.
      const out = l.stdout.trim().split('\n');
      expect(out.find((x) => x.includes('eligibility') && !x.includes('unrecognised'))).toMatch(/eligibility\s+check 41 {2}completed {2}success {2}inactive {2}→ 202$/);
      expect(out.find((x) => x.includes('end-of-call'))).toMatch(/end-of-call\s+call 7 {2}ended {2}declined {2}1m32s {2}→ 202$/);
      expect(out.find((x) => x.includes('unrecognised'))).toContain('unrecognised delivery');
      for (const secretish of ['ZX99887766', '+14155550123', 'Rosa', 'Quintero', 'P-9', 'Aetna', SECRET]) expect(l.stdout + l.stderr).not.toContain(secretish);
      // Forwarded unchanged: same bytes, content type and Authorization header.
      const f = fwd.got.find((g) => g.body.toString() === check)!;
      expect(f.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(f.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(f.headers['x-outreach-delivery']).toBe('9');
      expect(fwd.got.map((g) => g.body.toString()).sort()).toEqual([call, check, 'hello'].sort());
      expect(await l.stop('SIGTERM')).toBe(0);
    } finally {
      await l.stop('SIGKILL');
      await fwd.close();
      tmp.cleanup();
    }
  });

  it('usage errors: an unset --secret-env variable, a bad --forward-to, csv output (exit 2)', async () => {
    const tmp = tempDir();
    try {
      const unset = await runCli(['webhooks', 'listen', '--port', '0', '--secret-env', 'NOPE_NOT_SET'], { env: baseEnv(tmp.dir) });
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain('NOPE_NOT_SET');
      const bad = await runCli(['webhooks', 'listen', '--port', '0', '--forward-to', 'ftp://x'], { env: baseEnv(tmp.dir) });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--forward-to');
      const csv = await runCli(['webhooks', 'listen', '--port', '0', '-o', 'csv'], { env: baseEnv(tmp.dir) });
      expect(csv.code).toBe(2);
      const help = await runCli(['webhooks', 'listen', '--help'], { env: baseEnv(tmp.dir) });
      expect(help.stdout).toContain('Examples:');
    } finally {
      tmp.cleanup();
    }
  });
});

describe('webhooks listen warnings', () => {
  it('name the event, the delivery id and the attempt; repeats of the same warning are told once, as a count', async () => {
    const tmp = tempDir();
    const l = new Listener(['-o', 'ndjson', '--secret-env', 'S'], { ...baseEnv(tmp.dir), S: SECRET });
    try {
      const url = await l.started();
      const send = (delivery: number, attempt: number, auth = 'Bearer wrong-secret-1') =>
        fetch(`${url}calls`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json', 'x-outreach-event': 'call.ended', 'x-outreach-delivery': String(delivery), 'x-outreach-attempt': String(attempt) },
          body: '{"type":"end-of-call-report","call":{"id":5}}',
        }).then((r) => r.status);
      expect(await send(31, 1)).toBe(401);
      for (const [d, a] of [[31, 2], [32, 1], [33, 4]] as const) expect(await send(d, a)).toBe(401);
      expect(await send(34, 1, `Bearer ${SECRET}`)).toBe(200);
      await waitFor(() => l.lines().length === 1, 10_000, 'the accepted delivery');
      const warned = l.stderr.replace(/\s+/g, ' ');
      expect(warned).toContain('warning: rejected call.ended delivery 31 (attempt 1) to /calls from 127.0.0.1: wrong secret (answered 401)');
      // The repeats are not said one by one while they come (within 5 s of the first repeat).
      expect(warned).not.toContain('delivery 32');
      expect(await l.stop('SIGINT')).toBe(0);
      const all = l.stderr.replace(/\s+/g, ' ');
      expect(all).toContain('warning: same warning for 3 more deliveries (wrong secret, to /calls from 127.0.0.1); the last: call.ended delivery 33 (attempt 4)');
      expect(all).toContain('Stopped: 5 deliveries received: 1 accepted, 4 rejected (4 wrong secret).');
      expect(l.stderr).not.toContain('wrong-secret-1');
      expect(l.stderr).not.toContain(SECRET);
    } finally {
      await l.stop('SIGKILL');
      tmp.cleanup();
    }
  });
});

describe('webhooks listen at an 80×24 terminal', () => {
  it('fits every delivery on one line, ids, statuses and outcomes whole, and ends with the true summary', async () => {
    const tmp = tempDir();
    const name = `webhooks-${process.pid}`;
    const t = await tmuxSession(
      name,
      `env -i PATH="$PATH" TZ=UTC NO_COLOR=1 HOME=${tmp.dir} OUTREACH_CONFIG_DIR=${tmp.dir} S=${SECRET} timeout --foreground 60 ${process.execPath} ${BIN} webhooks listen --port 0 --secret-env S; echo EXIT=$?; sleep 30`,
      { x: 80, y: 24 },
    );
    try {
      const url = /Listening for webhooks on (http:\S+)/.exec(await t.waitFor(/Listening for webhooks on http:\S+\/\s/))![1]!;
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(url, { method: 'POST', headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then((r) => r.status);
      const longReason = 'the patient asked to be called back after the long weekend by the care team';
      expect(await post({ type: 'end-of-call-report', sequence_id: 987654, step: 3, call: { id: 123456, call_status: 'ended', outcome: 'declined', failure_reason: longReason, duration_ms: 754_000 } }, { 'x-outreach-attempt': '3', 'x-outreach-event': 'call.ended' })).toBe(200);
      expect(await post({ id: 987654, status: 'completed', outcome_description: 'Patient reached', outreach: [1, 2, 3, 4].map((step) => ({ type: 'call', step, analysis: { outcome: 'appointment-confirmed' } })) })).toBe(200);
      const check = [{ id: 4242, status: 'completed', outcome: 'success', customer_patient_id: 'MRN-77', coverage: { is_active_today: true, member_id: 'W99' } }];
      expect(await post(check, { 'x-outreach-delivery': '55' })).toBe(200);
      // The service delivers at least once: the same delivery again is marked as a repeat.
      expect(await post(check, { 'x-outreach-delivery': '55', 'x-outreach-attempt': '2' })).toBe(200);
      expect(await post({ anything: true }, { 'x-outreach-event': 'something.new', 'x-outreach-delivery': '77' })).toBe(200);
      for (const d of ['91', '92']) expect(await post({}, { authorization: 'Bearer nope', 'x-outreach-event': 'sequence.ended', 'x-outreach-delivery': d, 'x-outreach-attempt': '2' })).toBe(401);
      await t.waitFor(/unrecognised delivery/);
      t.send('C-c');
      const screen = await t.waitFor(/EXIT=0/);
      if (process.env.SHOW_SCREENS) console.log(screen);
      const lines = screen.split('\n');
      // -J joins what the terminal wrapped: a line over 80 columns would show here as one longer line.
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
      const find = (text: string) => lines.find((x) => x.includes(text)) ?? '';
      // Free text clipped first, then the step, the duration and the sequence left out: the call's own id, status, outcome and attempt stay.
      expect(find('end-of-call')).toMatch(/^\d\d:\d\d:\d\d {2}end-of-call {6}call 123456 {2}ended {2}declined {2}failure: th… {2}attempt 3$/);
      expect(find('end-of-sequence')).toMatch(/end-of-sequence {2}sequence 987654 {2}completed {2}outreach call:appoi\S*…$/);
      const checks = lines.filter((x) => x.includes('eligibility'));
      expect(checks[0]).toMatch(/eligibility {6}check 4242 {2}completed {2}success {2}active$/);
      // 82 columns with two spaces between parts: this line is joined by one instead.
      expect(checks[1]).toMatch(/^\d\d:\d\d:\d\d eligibility check 4242 completed success active repeat attempt 2$/);
      expect(find('unrecognised')).toMatch(/unrecognised delivery {2}\(event something\.new\)$/);
      expect(screen).toContain('warning: rejected sequence.ended delivery 91 (attempt 2)');
      const tail = screen.replace(/\s+/g, ' ');
      expect(tail).toContain('warning: same warning for 1 more delivery (wrong secret,');
      // The repeats are told before the summary, which is last.
      expect(tail).toMatch(/same warning .* Stopped: 7 deliveries received: 5 accepted \(1 repeat of earlier ones\), 2 rejected \(2 wrong secret\)\. EXIT=0/);
      for (const pii of ['MRN-77', 'W99', SECRET, 'nope']) expect(screen).not.toContain(pii);
    } finally {
      t.kill();
      tmp.cleanup();
    }
  }, 60_000);
});
