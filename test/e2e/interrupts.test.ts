// Ctrl-C as a person presses it (issue 13, point 4): at a question on a real 80×24 terminal (tmux)
// the run ends 130 saying what was left undone, with no red "error:"; in a wait, it says the checks
// go on and how to follow them. The key prompt echoes nothing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmuxSession } from '../unit/resources/recordingProxy.js';
import { BIN, ROOT, baseEnv, runCli, tempDir } from '../helpers/cli.js';
import { json, startFaultServer } from '../helpers/faultServer.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const tmp = tempDir('outreach-interrupts-');
let sbx: TestSandbox;
beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(async () => {
  await sbx.close();
  tmp.cleanup();
});

let n = 0;
/** Runs `outreach <args>` in an 80×24 tmux terminal; the exit code lands in a file. */
async function atTerminal(args: string, env: Record<string, string>) {
  const codeFile = join(tmp.dir, `code-${++n}`);
  const vars = Object.entries({ PATH: process.env.PATH ?? '', TZ: 'UTC', NO_COLOR: '1', OUTREACH_CONFIG_DIR: tmp.dir, ...env })
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  const command = `cd ${ROOT} && env -i ${vars} timeout --foreground 30 ${process.execPath} ${BIN} ${args}; echo $? > ${codeFile}; sleep 30`;
  const t = await tmuxSession(`outreach-int-${process.pid}-${n}`, command, { x: 80, y: 24 });
  return {
    ...t,
    async exitCode(): Promise<string> {
      for (let i = 0; i < 200 && !existsSync(codeFile); i++) await new Promise((r) => setTimeout(r, 100));
      return readFileSync(codeFile, 'utf8').trim();
    },
  };
}

describe('Ctrl-C at a question (tmux, 80×24)', () => {
  it('eligibility check: "Interrupted at the question: nothing was sent.", exit 130, no error:', async () => {
    const t = await atTerminal('eligibility check', { OUTREACH_API_KEY: sbx.key, OUTREACH_BASE_URL: sbx.baseUrl });
    try {
      await t.waitFor(/First name/i);
      t.send('C-c');
      expect(await t.exitCode()).toBe('130');
      const screen = t.capture();
      expect(screen).toContain('Interrupted at the question: nothing was sent.');
      expect(screen).not.toContain('error:');
    } finally {
      t.kill();
    }
  });

  it('calls delete: "nothing was deleted", and the call is still there', async () => {
    const t = await atTerminal('calls delete 18', { OUTREACH_API_KEY: sbx.key, OUTREACH_BASE_URL: sbx.baseUrl });
    try {
      await t.waitFor(/Delete call 18\?/);
      t.send('C-c');
      expect(await t.exitCode()).toBe('130');
      const screen = t.capture();
      expect(screen).toContain('Interrupted at the question: nothing was deleted.');
      expect(screen).not.toContain('error:');
      expect((await sandboxRequest(sbx, 'GET', '/call/18')).status).toBe(200);
    } finally {
      t.kill();
    }
  });

  it('sequences batch confirmation: nothing was sent, nothing created', async () => {
    const file = join(tmp.dir, 'patients.csv');
    writeFileSync(file, readFileSync(join(ROOT, 'fixtures/patients.csv')));
    const before = (await sandboxRequest<{ data: unknown[] }>(sbx, 'GET', '/sequence-manager/sequences?limit=1000')).data;
    const t = await atTerminal(`sequences batch ${file} --definition 1`, { OUTREACH_API_KEY: sbx.key, OUTREACH_BASE_URL: sbx.baseUrl });
    try {
      await t.waitFor(/patients will be contacted[^]*\(y\/N\)/);
      t.send('C-c');
      expect(await t.exitCode()).toBe('130');
      const screen = t.capture();
      expect(screen).toContain('Interrupted at the question: nothing was sent.');
      expect(screen).not.toContain('error:');
      const after = (await sandboxRequest<{ data: unknown[] }>(sbx, 'GET', '/sequence-manager/sequences?limit=1000')).data;
      expect(after).toEqual(before);
    } finally {
      t.kill();
    }
  });

  it('login: the key is not echoed (no * per character); Ctrl-C stores nothing', async () => {
    const t = await atTerminal(`login --profile typed --base-url ${sbx.baseUrl}`, {});
    try {
      await t.waitFor(/API key for .* \(input hidden\)/);
      t.send('-l', 'sk_typed_secret');
      await new Promise((r) => setTimeout(r, 300));
      const typing = t.capture();
      expect(typing).not.toContain('sk_typed_secret');
      expect(typing).not.toMatch(/\*{3,}/);
      t.send('C-c');
      expect(await t.exitCode()).toBe('130');
      const screen = t.capture();
      expect(screen).toContain('Interrupted at the question: nothing was stored.');
      expect(screen).not.toContain('error:');
      const profiles = await runCli(['profiles', 'list', '-o', 'json'], { env: baseEnv(tmp.dir) });
      expect(profiles.stdout).not.toContain('typed');
    } finally {
      t.kill();
    }
  });
});

describe('Ctrl-C in a wait', () => {
  it('eligibility watch (SIGINT): exit 130, "Interrupted." then how to follow the checks, no error:', async () => {
    const pending = await startFaultServer(json(200, [{ id: 2, status: 'queued' }]));
    try {
      const ctrlC = new AbortController();
      const run = runCli(['eligibility', 'watch', '2', '3'], {
        spawn: true,
        signal: ctrlC.signal,
        env: { ...baseEnv(tmp.dir), OUTREACH_API_KEY: 'sk_test_watch', OUTREACH_BASE_URL: pending.url },
      });
      while (pending.requests.length < 2) await new Promise((r) => setTimeout(r, 20));
      ctrlC.abort();
      const r = await run;
      expect(r.code).toBe(130);
      expect(r.stderr).toContain('Interrupted.\nThe checks go on in the service. Follow them with: outreach eligibility watch 2 3\n');
      expect(r.stderr).not.toContain('error:');
    } finally {
      await pending.close();
    }
  });
});
