import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { client, Receiver, sandbox, sleep, validEligibility, waitFor } from './helpers.js';

describe('eligibility webhooks through the outbox', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sbx-hooks-'));
  const open: (RunningSandbox | Receiver)[] = [];
  const track = <T extends RunningSandbox | Receiver>(x: T) => (open.push(x), x);
  afterEach(async () => {
    for (const x of open.splice(0).reverse()) await x.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('POSTs the completed check with Authorization: Bearer <secret>', async () => {
    const rx = track(new Receiver());
    const url = await rx.listen();
    const logs: string[] = [];
    const sbx = track(await sandbox({ eligibilityDelayMs: 50, log: (l) => logs.push(l) }));
    const sub = await client(sbx)('POST', '/eligibility', validEligibility('H1', { webhook_url: url, webhook_secret: 's3cret-value' }));
    expect(sub.status).toBe(201);
    await waitFor(() => rx.deliveries.length === 1);
    const d = rx.deliveries[0]!;
    expect(d.headers.authorization).toBe('Bearer s3cret-value');
    expect(d.headers['content-type']).toBe('application/json');
    expect(d.body).toMatchObject({ id: sub.body.id, status: 'completed', outcome: 'success', customer_patient_id: 'P-001' });
    expect(d.body.coverage.member_id).toBe('H1');
    // The secret never reaches the log.
    await sleep(20);
    expect(logs.some((l) => l.includes('delivered'))).toBe(true);
    expect(logs.join('\n')).not.toContain('s3cret-value');
  });

  it('sends no Authorization header when no secret was given', async () => {
    const rx = track(new Receiver());
    const url = await rx.listen();
    const sbx = track(await sandbox({ eligibilityDelayMs: 0 }));
    await client(sbx)('POST', '/eligibility', validEligibility('H2', { webhook_url: url }));
    await waitFor(() => rx.deliveries.length === 1);
    expect(rx.deliveries[0]!.headers.authorization).toBeUndefined();
  });

  it('retries with backoff while the receiver answers 503, then delivers once', async () => {
    const rx = track(new Receiver());
    rx.mode = 'fail';
    const url = await rx.listen();
    const sbx = track(await sandbox({ eligibilityDelayMs: 0, webhookRetryBaseMs: 20 }));
    await client(sbx)('POST', '/eligibility', validEligibility('H3', { webhook_url: url, webhook_secret: 'k' }));
    await waitFor(() => rx.attempts >= 3);
    expect(rx.deliveries).toHaveLength(0);
    rx.mode = 'ok';
    await waitFor(() => rx.deliveries.length === 1);
    await sleep(150);
    expect(rx.deliveries).toHaveLength(1);
    expect(rx.deliveries[0]!.headers['x-outreach-attempt']).toBe(String(rx.attempts));
  });

  it('times out a receiver that hangs and retries until it answers', async () => {
    const rx = track(new Receiver());
    rx.mode = 'hang';
    const url = await rx.listen();
    const sbx = track(await sandbox({ eligibilityDelayMs: 0, webhookRetryBaseMs: 10, webhookTimeoutMs: 100 }));
    await client(sbx)('POST', '/eligibility', validEligibility('H4', { webhook_url: url }));
    await waitFor(() => rx.attempts >= 2);
    rx.mode = 'ok';
    await waitFor(() => rx.deliveries.length === 1);
    expect(rx.deliveries[0]!.body.coverage.member_id).toBe('H4');
  });

  it('retries while the receiver is down (connection refused) and delivers when it comes back', async () => {
    const probe = new Receiver();
    const url = await probe.listen();
    const port = probe.port;
    await probe.close(); // nothing listens on the port now
    const sbx = track(await sandbox({ eligibilityDelayMs: 0, webhookRetryBaseMs: 20 }));
    await client(sbx)('POST', '/eligibility', validEligibility('H5', { webhook_url: url }));
    await sleep(120);
    const rx = track(new Receiver());
    await rx.listen(port);
    await waitFor(() => rx.deliveries.length === 1, 5000);
    expect(rx.deliveries[0]!.body.coverage.member_id).toBe('H5');
  });

  it('delivers after a restart on the same database file: pending retries and checks still in progress', async () => {
    const dbPath = join(dir, 'restart.db');
    const rx = track(new Receiver());
    rx.mode = 'fail';
    const url = await rx.listen();
    // First run: one failed attempt, then a long backoff; a second check is still in progress at close.
    const first = await sandbox({ dbPath, eligibilityDelayMs: 0, webhookRetryBaseMs: 60_000 });
    const failed = await client(first)('POST', '/eligibility', validEligibility('R1', { webhook_url: url, webhook_secret: 'restart-secret' }));
    await waitFor(() => rx.attempts >= 1);
    await first.close();

    const slow = await sandbox({ dbPath, eligibilityDelayMs: 300 });
    const pending = await client(slow)('POST', '/eligibility', validEligibility('R2', { webhook_url: url }));
    expect(pending.body.status).toBe('in-progress');
    await slow.close();

    await sleep(350); // the in-progress check falls due while no sandbox runs

    // Second run, receiver fixed: the pending delivery is retried at start; the overdue check is
    // completed and its result delivered too.
    rx.mode = 'ok';
    const second = track(await sandbox({ dbPath, eligibilityDelayMs: 0 }));
    await waitFor(() => rx.deliveries.length === 2, 5000);
    const byId = new Map(rx.deliveries.map((d) => [d.body.id, d]));
    expect(byId.get(failed.body.id)!.headers.authorization).toBe('Bearer restart-secret');
    expect(byId.get(pending.body.id)!.body).toMatchObject({ status: 'completed', outcome: 'success' });
    const [check] = (await client(second)('GET', `/eligibility/${pending.body.id}`)).body;
    expect(check.status).toBe('completed');
  });

  it('a delivery cut off by close() is not lost: the next start sends it', async () => {
    const dbPath = join(dir, 'cut.db');
    const rx = track(new Receiver());
    rx.mode = 'hang';
    const url = await rx.listen();
    const first = await sandbox({ dbPath, eligibilityDelayMs: 0, webhookTimeoutMs: 60_000 });
    const sub = await client(first)('POST', '/eligibility', validEligibility('R3', { webhook_url: url }));
    await waitFor(() => rx.attempts >= 1);
    await first.close(); // aborts the hanging delivery
    rx.mode = 'ok';
    track(await sandbox({ dbPath, eligibilityDelayMs: 0 }));
    await waitFor(() => rx.deliveries.length === 1, 5000);
    expect(rx.deliveries[0]!.body.id).toBe(sub.body.id);
    expect(rx.deliveries[0]!.headers['x-outreach-attempt']).toBe('1'); // the aborted try did not count
  });
});
