// `outreach sandbox` as a person starts it: one "listening" line, every line within 80 columns, and
// where its data lives said truthfully (a file kept between runs unless --memory).
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { baseEnv, runCli, tempDir } from '../helpers/cli.js';

/** Runs the sandbox until it has printed its summary, then Ctrl-C. */
async function startAndStop(args: string[], env: Record<string, string>) {
  const ctrlC = new AbortController();
  const timer = setTimeout(() => ctrlC.abort(), 2500);
  try {
    return await runCli(['sandbox', '--port', '0', '--no-profile', ...args], { env, realTime: true, signal: ctrlC.signal });
  } finally {
    clearTimeout(timer);
  }
}

describe('outreach sandbox', () => {
  it('says it is listening once, in lines that fit 80 columns, and that the default database is kept', async () => {
    const tmp = tempDir();
    try {
      const r = await startAndStop([], { ...baseEnv(tmp.dir), OUTREACH_DATA_DIR: `${tmp.dir}/data`, COLUMNS: '80' });
      expect(r.code, r.stderr).toBe(0);
      const all = `${r.stdout}${r.stderr}`;
      expect(all.match(/listening/gi)).toHaveLength(1);
      expect(r.stdout).toMatch(/^Sandbox listening on http:\/\/127\.0\.0\.1:\d+\/v1\n {2}database {2}\S+\/data\/sandbox\.db\n {12}\(kept between runs; --memory starts clean\)\n/);
      for (const line of all.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
      expect(r.stdout).toContain('    tool ids  c027fd4c-4528-4596-a20a-6ba2a53a8fc5\n              c655fcdc-4d0b-49ae-a61a-13445e419ae2\n');
    } finally {
      tmp.cleanup();
    }
  });

  it('with --memory says the data goes when it stops', async () => {
    const tmp = tempDir();
    try {
      const r = await startAndStop(['--memory'], baseEnv(tmp.dir));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('  database  :memory:\n            (in memory: lost when it stops)\n');
      expect(`${r.stdout}${r.stderr}`.match(/listening/gi)).toHaveLength(1);
    } finally {
      tmp.cleanup();
    }
  });
});
