// Prompts for missing fields on a real terminal (tmux): answers are checked as they are typed
// (a bad NPI is refused inline), the payer is chosen from the cached or documented list (nothing is
// sent to learn it), and the check is sent.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../helpers/cli.js';
import { sandboxRequest, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sbx: TestSandbox;
let tmp: ReturnType<typeof tempDir>;
const SOCKET = `outreach-elig-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', 'e2e', '-S', '-200');

async function waitFor(text: string | RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
    if (typeof text === 'string' ? s.includes(text) : text.test(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  sbx = await startTestSandbox({ eligibilityDelayMs: 0 });
  tmp = tempDir();
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    /* already gone */
  }
  await sbx.close();
  tmp.cleanup();
});

describe('eligibility check on a terminal', () => {
  it('asks for what is missing, validates answers inline, offers the supported payers, then submits', async () => {
    const env = sbx.env(tmp.dir);
    const script = join(tmp.dir, 'run.sh');
    const exports = Object.entries(env).map(([k, v]) => `export ${k}='${v}'`).join('\n');
    writeFileSync(
      script,
      // The tmux server inherits this process's environment: CI=true (set by CI) would forbid prompts.
      `unset CI OUTREACH_NO_INPUT\n${exports}\ntimeout --foreground 60 ${process.execPath} ${BIN} eligibility check --first-name Ana --patient-id MRN-TTY > ${tmp.dir}/out.txt\necho "EXIT=$?"\nsleep 30\n`,
    );
    const checksBefore = (await sandboxRequest<unknown[]>(sbx, 'GET', '/eligibility?limit=1000')).data.length;
    tmux('new-session', '-d', '-s', 'e2e', '-x', '160', '-y', '50', `bash ${script}`);
    await waitFor('Last name');
    tmux('send-keys', '-t', 'e2e', 'Diaz', 'Enter');
    await waitFor('Date of birth');
    tmux('send-keys', '-t', 'e2e', '2999-01-01', 'Enter');
    await waitFor('in the future'); // refused inline, asked again
    tmux('send-keys', '-t', 'e2e', 'C-u', '1980-04-02', 'Enter');
    await waitFor('Member id');
    tmux('send-keys', '-t', 'e2e', 'W1234', 'Enter');
    const payers = await waitFor('Another payer id');
    // No cached list: the documented one, labelled; nothing was sent to learn it.
    expect(payers).toContain("from the service's public documentation, not confirmed by the service");
    expect(payers).toContain('UnitedHealthcare — 87726');
    expect((await sandboxRequest<unknown[]>(sbx, 'GET', '/eligibility?limit=1000')).data).toHaveLength(checksBefore);
    tmux('send-keys', '-t', 'e2e', 'Enter'); // the first: UnitedHealthcare 87726
    await waitFor('Provider (organization) name');
    tmux('send-keys', '-t', 'e2e', 'Sandbox Clinic', 'Enter');
    await waitFor('Provider NPI');
    tmux('send-keys', '-t', 'e2e', '1234567890', 'Enter');
    await waitFor('check digit');
    tmux('send-keys', '-t', 'e2e', 'C-u', '1234567893', 'Enter');
    const done = await waitFor(/EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    const list = await sandboxRequest<Array<{ customer_patient_id: string; id: number }>>(sbx, 'GET', '/eligibility?customer_patient_id=MRN-TTY');
    expect(list.data).toHaveLength(1);
    const out = execFileSync('cat', [join(tmp.dir, 'out.txt')], { encoding: 'utf8' });
    expect(out).toContain(`${list.data[0]!.id}`);
  });
});
