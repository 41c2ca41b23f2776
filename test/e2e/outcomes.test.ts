// `sequences outcomes` end to end, in process against a real sandbox over HTTP: a batch of patients
// whose phone numbers decide each call's outcome (docs/sandbox.md, "What a call gives"), run by the
// sandbox's scheduler at a day per second, then the outcomes joined back to the file.
import { existsSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const HEADER = 'First Name,Last Name,Phone,Appointment Date';
/** Line (in the file) → the patient, and the result docs/sandbox.md's phone digits give. */
const PATIENTS: Array<[string, string]> = [
  ['Ana,Lopez,(415) 555-0100,2030-05-01', 'completed'], // 0: confirmed
  ['Bo,Chen,415-555-0104,2030-05-01', 'completed'], // 4: confirmed
  ['Cy,Patel,+1 415 555 0105,2030-05-01', 'completed'], // 5: transferred to staff
  ['Di,Okafor,4155550106,2030-05-01', 'declined'], // 6
  ['Ed,Novak,(415) 555-0107,2030-05-01', 'callback-requested'], // 7: then the next steps
  ['Fe,Kim,(415) 555-0108,2030-05-01', 'not-reached'], // 8: dropped
  ['Gu,Rossi,(415) 555-0109,2030-05-01', 'not-reached'], // 9: voicemail
  ['Hu,Brown,(415) 555-0199,2030-05-01', 'opted-out'], // 99
  ['Iv,Nguyen,12,2030-05-01', 'skipped'], // invalid phone, --skip-invalid
];
const expected = new Map(PATIENTS.map(([, result], i) => [i + 2, result]));
const PATIENTS_CSV = `${HEADER}\n${PATIENTS.map(([row]) => row).join('\n')}\n`;

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

function file(name: string, text: string): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
}

function csvRecords(path: string): Array<Record<string, string>> {
  return parse(readFileSync(path, 'utf8'), { columns: true }) as Array<Record<string, string>>;
}

describe('against the sandbox running the outreach', () => {
  let sbx: TestSandbox;
  beforeAll(async () => {
    sbx = await startTestSandbox({ scheduler: true, speed: 86_400, schedulerTickMs: 20 });
  });
  afterAll(async () => {
    await sbx.close();
  });

  it('joins every row to what its sequence became, as the phone numbers say, and --only lists the unreached', { timeout: 90_000 }, async () => {
    const env = sbx.env(tmp.dir);
    const patients = file('patients.csv', PATIENTS_CSV);
    const results = join(tmp.dir, 'results.csv');
    const batch = await runCli(['sequences', 'batch', patients, '--definition', '1', '--yes', '--skip-invalid', '--out', results], { env });
    expect(batch.code, batch.stderr).toBe(0);

    const followup = join(tmp.dir, 'followup.csv');
    const run = await runCli(['sequences', 'outcomes', patients, '--from', results, '--wait', '--interval', '5', '--out', followup], { env, timeoutMs: 80_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(''); // --out without -o: the file is the output
    expect(statSync(followup).mode & 0o777).toBe(0o600);
    const rows = csvRecords(followup);
    // Every input row, its own columns first, then ours.
    expect(Object.keys(rows[0]!)).toEqual([
      'First Name', 'Last Name', 'Phone', 'Appointment Date',
      'line', 'sequence_id', 'status', 'outcome', 'was_contact_reached', 'ended_reason', 'next_activity',
      'last_call_at', 'last_call_outcome', 'last_call_failure_reason', 'result',
    ]);
    expect(rows.map((r) => [Number(r.line), r.result])).toEqual([...expected]);
    const byLine = new Map(rows.map((r) => [Number(r.line), r]));
    expect(byLine.get(2)).toMatchObject({ 'First Name': 'Ana', status: 'completed', outcome: 'appointment-confirmed', was_contact_reached: 'true', next_activity: '' });
    expect(byLine.get(4)).toMatchObject({ outcome: 'escalated', last_call_failure_reason: 'escalated', ended_reason: 'transferred-to-staff' });
    expect(byLine.get(5)).toMatchObject({ status: 'failed', last_call_failure_reason: 'declined' });
    expect(byLine.get(6)).toMatchObject({ last_call_failure_reason: 'requested-callback' });
    expect(byLine.get(7)).toMatchObject({ status: 'failed', was_contact_reached: 'false', last_call_outcome: 'incomplete', last_call_failure_reason: 'customer-dropped' });
    expect(byLine.get(8)).toMatchObject({ last_call_outcome: 'voicemail', last_call_failure_reason: 'assistant-ended' });
    expect(byLine.get(9)).toMatchObject({ status: 'failed', last_call_failure_reason: 'opt-out' });
    expect(byLine.get(10)).toMatchObject({ 'First Name': 'Iv', status: 'skipped', sequence_id: '', outcome: '', last_call_at: '' });
    for (const [line, r] of byLine) {
      if (line === 10) continue;
      expect(Number(r.sequence_id)).toBeGreaterThan(0);
      expect(Date.parse(r.last_call_at!)).not.toBeNaN();
    }
    // Piped stderr: one plain line of counts, no chart.
    expect(run.stderr).toContain('9 rows: 8 sequences, 1 skipped · 8 ended, 0 in progress.');
    expect(run.stderr).not.toContain('█');

    // The list a person must call: exactly the unreached, as records on stdout and in a file.
    const json = await runCli(['sequences', 'outcomes', patients, '--from', results, '--only', 'not-reached', '-o', 'json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(listed.map((r) => [r.line, r['First Name'], r.result])).toEqual([
      [7, 'Fe', 'not-reached'],
      [8, 'Gu', 'not-reached'],
    ]);
    expect(listed[0]!.was_contact_reached).toBe(false);
    // The summary still counts every row.
    expect(json.stderr).toContain('9 rows: 8 sequences');
    const toCall = join(tmp.dir, 'to-call.csv');
    const only = await runCli(['sequences', 'outcomes', patients, '--from', join(tmp.dir, 'results.csv.journal.ndjson'), '--only', 'not-reached,declined', '--out', toCall], { env });
    expect(only.code, only.stderr).toBe(0);
    expect(csvRecords(toCall).map((r) => [r.line, r.result])).toEqual([
      ['5', 'declined'],
      ['7', 'not-reached'],
      ['8', 'not-reached'],
    ]);
  });
});

describe('against the sandbox with the scheduler off (sequences stay queued)', () => {
  let sbx: TestSandbox;
  beforeAll(async () => {
    sbx = await startTestSandbox();
  });
  afterAll(async () => {
    await sbx.close();
  });

  async function upload(opts: { out?: boolean; csv?: string } = {}) {
    const env = sbx.env(tmp.dir);
    const patients = file('patients.csv', opts.csv ?? PATIENTS_CSV);
    const args = ['sequences', 'batch', patients, '--definition', '1', '--yes', '--skip-invalid'];
    if (opts.out) args.push('--out', join(tmp.dir, 'results.csv'));
    const batch = await runCli(args, { env });
    expect(batch.code, batch.stderr).toBe(0);
    return { env, patients };
  }

  it('finds the journal beside the file, and prints the records with -o csv and -o ndjson', async () => {
    const { env, patients } = await upload();
    const csv = await runCli(['sequences', 'outcomes', patients, '-o', 'csv'], { env });
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(9);
    expect(rows.slice(0, 8).every((r) => r.status === 'queued' && r.result === 'in-progress' && r.next_activity !== '')).toBe(true);
    // Without the results file, a row the journal never sent is only known as not created.
    expect(rows[8]).toMatchObject({ line: '10', status: 'not-created', result: 'not-created', sequence_id: '' });
    expect(csv.stderr).toContain('9 rows: 8 sequences, 1 not-created · 0 ended, 8 in progress.');

    const nd = await runCli(['sequences', 'outcomes', patients, '-o', 'ndjson', '--only', 'not-created'], { env });
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout.trim().split('\n').map((l) => JSON.parse(l).line)).toEqual([10]);
  });

  it('piped without -o: the table columns as tab-separated lines; -q: the lines kept', async () => {
    const { env, patients } = await upload();
    const plain = await runCli(['sequences', 'outcomes', patients, '--only', 'not-created,in-progress'], { env });
    expect(plain.code, plain.stderr).toBe(0);
    const first = plain.stdout.split('\n')[0]!.split('\t');
    expect(first.slice(0, 5)).toEqual(['2', 'in-progress', 'Ana', 'Lopez', '(415) 555-0100']);
    const quiet = await runCli(['sequences', 'outcomes', patients, '--only', 'not-created', '-q'], { env });
    expect(quiet).toMatchObject({ code: 0, stdout: '10\n', stderr: '' });
  });

  it('refuses a file edited since the upload, naming the line and never the number (exit 2)', async () => {
    const { env, patients } = await upload();
    // Line 4 (created) gets another patient's number; same columns, same number of rows.
    writeFileSync(patients, PATIENTS_CSV.replace('+1 415 555 0105', '(415) 555-0177'));
    const run = await runCli(['sequences', 'outcomes', patients, '--out', join(tmp.dir, 'f.csv')], { env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('line 4');
    expect(run.stderr).toContain('not the one uploaded');
    expect(run.stderr).not.toMatch(/0177|0105/);
    expect(existsSync(join(tmp.dir, 'f.csv'))).toBe(false);

    writeFileSync(patients, PATIENTS_CSV.replace('Phone', 'Mobile'));
    const header = await runCli(['sequences', 'outcomes', patients], { env });
    expect(header.code).toBe(2);
    expect(header.stderr).toContain('does not have the columns it had');

    writeFileSync(patients, `${HEADER}\n${PATIENTS.slice(0, 3).map(([r]) => r).join('\n')}\n`);
    const shorter = await runCli(['sequences', 'outcomes', patients], { env });
    expect(shorter.code).toBe(2);
    expect(shorter.stderr).toContain('has no line 5');
  });

  it('cannot recognise the rows without the journal key of the user who uploaded (exit 2)', async () => {
    const { patients } = await upload();
    const other = tempDir();
    try {
      const run = await runCli(['sequences', 'outcomes', patients], { env: sbx.env(other.dir) });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('journal key');
    } finally {
      other.cleanup();
    }
  });

  it('with only the results file, refuses a file that lacks one of its lines', async () => {
    const { env, patients } = await upload({ out: true });
    const results = join(tmp.dir, 'results.csv');
    // Without the journal (moved away), the results file alone is used.
    unlinkSync(join(tmp.dir, 'results.csv.journal.ndjson'));
    const ok = await runCli(['sequences', 'outcomes', patients, '--from', results, '-o', 'json'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as Array<{ result: string }>).map((r) => r.result)).toEqual([...Array(8).fill('in-progress'), 'skipped']);
    expect(ok.stderr).toContain('matched to their sequences by line number only');
    writeFileSync(patients, `${HEADER}\n${PATIENTS.slice(0, 5).map(([r]) => r).join('\n')}\n`);
    const short = await runCli(['sequences', 'outcomes', patients, '--from', results], { env });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('has no line 7');
  });

  it('says where it looked when there is no record of an upload (exit 2)', async () => {
    const env = sbx.env(tmp.dir);
    const patients = file('patients.csv', PATIENTS_CSV);
    const run = await runCli(['sequences', 'outcomes', patients], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${patients}.journal.ndjson`);
    expect(run.stderr).toContain('--from results.csv');
  });

  it('refuses unknown --only words, listing the results, and flags that need --wait (exit 2)', async () => {
    const { env, patients } = await upload();
    const bad = await runCli(['sequences', 'outcomes', patients, '--only', 'not-reached,voicemail'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"voicemail" is not a result');
    expect(bad.stderr).toContain('not-reached, declined, callback-requested, opted-out');
    const timeout = await runCli(['sequences', 'outcomes', patients, '--timeout', '5'], { env });
    expect(timeout.code).toBe(2);
    const ext = await runCli(['sequences', 'outcomes', patients, '--out', join(tmp.dir, 'f.txt')], { env });
    expect(ext.code).toBe(2);
  });

  it('refuses a symlink at --out before reading anything (exit 2), and leaves its target alone', async () => {
    const { env, patients } = await upload();
    const target = file('elsewhere.csv', 'keep me\n');
    const link = join(tmp.dir, 'followup.csv');
    symlinkSync(target, link);
    const run = await runCli(['sequences', 'outcomes', patients, '--out', link], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('symbolic link');
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
  });

  it('--wait gives up at --timeout: writes what it read and exits 124', async () => {
    const { env, patients } = await upload();
    const out = join(tmp.dir, 'followup.ndjson');
    const run = await runCli(['sequences', 'outcomes', patients, '--wait', '--timeout', '20', '--interval', '5', '--out', out], { env });
    expect(run.code, run.stderr).toBe(124);
    expect(run.stderr).toContain('8 of 8 sequences had not ended');
    const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows).toHaveLength(9);
    expect(rows.filter((r) => r.result === 'in-progress')).toHaveLength(8);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it('Ctrl-C while waiting: exit 130, nothing written, the outreach goes on', async () => {
    const { env, patients } = await upload();
    const out = join(tmp.dir, 'followup.csv');
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 400);
    const run = await runCli(['sequences', 'outcomes', patients, '--wait', '--out', out], { env, signal: stop.signal });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('goes on in the service');
    // The command ends on its own soon after: still nothing written.
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(out)).toBe(false);
  });

  it('writes .xlsx (0600) with the same records', async () => {
    const { env, patients } = await upload();
    const out = join(tmp.dir, 'followup.xlsx');
    const run = await runCli(['sequences', 'outcomes', patients, '--out', out], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const { openPatientFile } = await import('../../src/csv/open.js');
    const book = await openPatientFile(out);
    expect(book.headers.slice(-2)).toEqual(['last_call_failure_reason', 'result']);
    const lines: string[] = [];
    for await (const row of book.rows) lines.push(row.values[book.headers.indexOf('line')]!);
    expect(lines).toEqual(['2', '3', '4', '5', '6', '7', '8', '9', '10']);
  });
});
