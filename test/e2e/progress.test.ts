// The progress line and the retry status at a real 80×24 terminal (tmux), through the built CLI: a
// batch create and an eligibility --csv run against a slow service show one line while they run and
// leave nothing of it on screen; a request answered 503 twice shows what is happening on a terminal
// and nothing when stderr is a pipe.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { json, startFaultServer, type Behaviour, type FaultServer } from '../helpers/faultServer.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { tmuxSession } from '../unit/resources/recordingProxy.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
let server: FaultServer | undefined;

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(() => sbx.close());
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  tmp.cleanup();
});

/** Forwards every request to the sandbox after `ms`: a slow service. */
function slowly(ms: number): Behaviour {
  const origin = new URL(sbx.baseUrl).origin;
  return async (req, res, body) => {
    await new Promise((r) => setTimeout(r, ms));
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'accept']) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
    const answer = await fetch(origin + (req.url ?? '/'), { method: req.method, headers, body: body === '' ? undefined : body });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(await answer.text());
  };
}

/** The CLI in tmux at 80×24 with a clean environment; the shell prints EXIT=<code> when it ends. */
async function atTerminal(name: string, baseUrl: string, args: string) {
  const env = `env -i PATH="$PATH" HOME=${tmp.dir} TZ=UTC NO_COLOR=1 LANG=C.UTF-8 OUTREACH_CONFIG_DIR=${tmp.dir} OUTREACH_API_KEY=${sbx.key} OUTREACH_BASE_URL=${baseUrl}`;
  return tmuxSession(`${name}-${process.pid}`, `cd ${tmp.dir} && ${env} timeout --foreground 60 ${process.execPath} ${BIN} ${args}; echo EXIT=$?; sleep 60`, { x: 80, y: 24 });
}

/**
 * The one line of the screen that holds `label`, checked to fit 80 columns (the capture joins wrapped
 * lines, so a line that wrapped would show longer; the last column stays free).
 */
function progressLine(screen: string, label: string): string {
  const lines = screen.split('\n').filter((l) => l.includes(label));
  expect(lines, screen).toHaveLength(1);
  expect(lines[0]!.length, lines[0]).toBeLessThanOrEqual(79);
  return lines[0]!;
}

describe('at an 80×24 terminal', () => {
  it('sequences batch: one progress line while checking and creating, nothing of it left at the end', async () => {
    server = await startFaultServer(slowly(250));
    const file = join(tmp.dir, 'patients.csv');
    execFileSync(process.execPath, [join(ROOT, 'scripts/make-patients.mjs'), '1200', file]);
    const t = await atTerminal('progress-batch', server.url, 'sequences batch patients.csv --definition 1 --yes --concurrency 1');
    try {
      const checking = await t.waitFor(/Checking rows .*rows? checked/, 30_000);
      expect(progressLine(checking, 'Checking rows')).toMatch(/^Checking rows  (█*░* {2})?[\d,]+ rows? checked · \d+%/);
      const creating = await t.waitFor(/Creating sequences .*[1-9][\d,]* of 1,200 created/, 30_000);
      expect(progressLine(creating, 'Creating sequences')).toMatch(/^Creating sequences  (█*░* {2})?[\d,]+ of 1,200 created · \d+%/);
      expect(creating).not.toContain('Checking rows'); // cleared, not left above
      const end = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(end).toContain('EXIT=0');
      expect(end).toMatch(/1200 sequences created|1,200 sequences created/);
      expect(end).not.toMatch(/Checking rows|Creating sequences|█|░/);
    } finally {
      t.kill();
    }
  });

  it('eligibility --csv: one progress line while submitting, nothing of it left at the end', async () => {
    server = await startFaultServer(slowly(60));
    const rows = ['Patient ID,First Name,Last Name,DOB,Member ID,Payer,Provider Name,NPI'];
    for (let i = 0; i < 150; i++) rows.push(`MRN-${7000 + i},Ana,Diaz,1980-04-02,W1${String(i).padStart(8, '0')},87726,Sandbox Family Clinic,1234567893`);
    writeFileSync(join(tmp.dir, 'checks.csv'), `${rows.join('\n')}\n`);
    const t = await atTerminal('progress-elig', server.url, 'eligibility check --csv checks.csv --out results.csv --concurrency 2');
    try {
      const mid = await t.waitFor(/Submitting checks .*[1-9]\d* rows done · \d+%/, 30_000);
      expect(progressLine(mid, 'Submitting checks')).toMatch(/^Submitting checks  (█*░* {2})?[\d,]+ rows done · \d+%/);
      const end = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(end).toContain('EXIT=0');
      expect(end).not.toMatch(/Submitting checks|rows done|█|░/);
    } finally {
      t.kill();
    }
  });
});

describe('the retry status', () => {
  const busyTwice = () => startFaultServer([json(503, { message: 'busy' }, { 'retry-after': '2' }), json(503, { message: 'busy' }, { 'retry-after': '2' }), json(200, [])]);

  it('on a terminal: says the service is unavailable and counts down, then is gone', async () => {
    server = await busyTwice();
    const t = await atTerminal('progress-retry', server.url, 'calls list -o json');
    try {
      const first = await t.waitFor(/Service unavailable \(503\); retry 1 of 3/, 20_000);
      expect(first).toMatch(/^Service unavailable \(503\); retry 1 of 3( in [12]s)?…$/m);
      const second = await t.waitFor(/retry 2 of 3/, 20_000);
      // The same line, redrawn: never a line per retry.
      expect(progressLine(second, 'Service unavailable')).toMatch(/^Service unavailable \(503\); retry 2 of 3( in [12]s)?…$/);
      const end = await t.waitFor(/EXIT=\d+/, 20_000);
      expect(end).toContain('EXIT=0');
      expect(end).toMatch(/^\[\]$/m);
      expect(end).not.toContain('Service unavailable');
      expect(server.requests).toHaveLength(3);
    } finally {
      t.kill();
    }
  });

  it('when stderr is a pipe: nothing per retry', async () => {
    server = await busyTwice();
    const r = await runCli(['calls', 'list', '-o', 'json'], { env: { ...sbx.env(tmp.dir), OUTREACH_BASE_URL: server.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('[]');
    expect(r.stderr).toBe('');
    expect(server.requests).toHaveLength(3);
  });
});
