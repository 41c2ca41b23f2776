// sequences list/get/update/metrics and definitions list/get/update against the sandbox.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

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
const run = (args: string[], input?: string) => runCli(args, { env: sbx.env(tmp.dir), input });

describe('sequences', () => {
  it('list: piped rows, -o json as the service sent it, --status filter, bad --limit', async () => {
    const r = await run(['sequences', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => l.split('\t').slice(0, 3))).toEqual([
      ['3', 'failed', 'follow_up'],
      ['2', 'in-progress', 'appointment_reminder'],
      ['1', 'completed', 'appointment_reminder'],
    ]);
    const j = await run(['sequences', 'list', '-o', 'json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ success: true, data: expect.any(Array) });
    const s = await run(['sequences', 'list', '--status', 'completed', '-q']);
    expect(s.stdout).toBe('1\n');
    expect((await run(['sequences', 'list', '--limit', '0'])).code).toBe(2);
  });

  it('get with --metrics shows steps and outreach; an unknown id exits 5', async () => {
    const r = await run(['sequences', 'get', '1', '--metrics']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tcompleted');
    // Steps and outreach under numbered dotted keys, no section lines.
    expect(r.stdout).toMatch(/^steps\.0\.type\tvoice$/m);
    expect(r.stdout).toMatch(/^outreach\.0\.call_record_id\t\d+$/m);
    expect(r.stdout).not.toContain('#');
    expect((await run(['sequences', 'get', '999'])).code).toBe(5);
    expect((await run(['sequences', 'get', 'abc'])).code).toBe(2);
  });

  it('update --input - and metrics', async () => {
    const u = await run(['sequences', 'update', '2', '--input', '-', '-o', 'json'], JSON.stringify({ name: 'Renamed' }));
    expect(u.code, u.stderr).toBe(0);
    expect(JSON.parse(u.stdout)).toMatchObject({ success: true, data: { id: 2, name: 'Renamed' } });
    const m = await run(['sequences', 'metrics', '-o', 'json']);
    expect(JSON.parse(m.stdout).data.length).toBe(3);
  });
});

describe('definitions', () => {
  it('list and get show the inputs a CSV needs', async () => {
    const l = await run(['definitions', 'list']);
    expect(l.stdout.split('\n')[0]).toBe('1\tAppointment reminder\t\tappointmentDate\tappointmentTime, clinicName, providerName');
    const g = await run(['definitions', 'get', '1']);
    expect(g.stdout).toContain('inputs_definition.0.id\tappointmentDate\ninputs_definition.0.name\tAppointment date\ninputs_definition.0.type\tdate\ninputs_definition.0.required\ttrue\n');
    expect((await run(['definitions', 'get', '99'])).code).toBe(5);
  });

  it('update --input FILE', async () => {
    const f = join(tmp.dir, 'def.json');
    writeFileSync(f, JSON.stringify({ name: 'Reminder v2' }));
    const u = await run(['definitions', 'update', '3', '--input', f, '-o', 'json']);
    expect(u.code, u.stderr).toBe(0);
    expect(JSON.parse(u.stdout)).toMatchObject({ id: 3, name: 'Reminder v2' });
  });
});
