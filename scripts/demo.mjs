// The quick start's main job on the embedded sandbox, end to end: starts the sandbox, validates
// fixtures/patients.csv, creates its sequences, lists them, stops the sandbox. Exits non-zero if
// any step fails. Uses a temporary config directory (your own profiles are not touched), removed at
// the end; the copy of the CSV, its results file and journal stay in a temporary work directory,
// whose path is printed last (every path the demo prints still exists when it ends).
// Usage: node scripts/demo.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/outreach.js');
const dir = mkdtempSync(join(tmpdir(), 'outreach-demo-'));
const configDir = join(dir, 'config');
mkdirSync(configDir);
const baseEnv = { ...process.env, OUTREACH_CONFIG_DIR: configDir };
delete baseEnv.OUTREACH_API_KEY;
delete baseEnv.OUTREACH_BASE_URL;
delete baseEnv.OUTREACH_PROFILE;

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--memory', '-o', 'json'], { env: baseEnv, stdio: ['ignore', 'pipe', 'ignore'] });
let failed = false;
try {
  const first = await new Promise((resolve, reject) => {
    createInterface({ input: sandbox.stdout }).once('line', resolve);
    sandbox.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it started`)));
  });
  const { base_url: baseUrl, organizations } = JSON.parse(first);
  const env = { ...baseEnv, OUTREACH_BASE_URL: baseUrl, OUTREACH_API_KEY: organizations[0].api_key };
  // Work on a copy so the journal and results stay in the temporary directory.
  const csv = join(dir, 'patients.csv');
  copyFileSync(join(root, 'fixtures/patients.csv'), csv);
  const steps = [
    ['Check the file with the service (nothing is created)', ['sequences', 'batch', csv, '--definition', '1', '--validate-only']],
    ['Create the sequences (--yes: no question)', ['sequences', 'batch', csv, '--definition', '1', '--yes', '--out', join(dir, 'results.csv')]],
    ['The sequences now on the sandbox', ['sequences', 'list', '--limit', '15']],
  ];
  for (const [title, args] of steps) {
    process.stdout.write(`\n\u001b[1m== ${title}\u001b[22m\n$ outreach ${args.map((a) => (a.startsWith(dir) ? a.replace(dir, '$TMP') : a)).join(' ')}\n`);
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { env, stdio: 'inherit', cwd: root });
      child.on('close', resolve);
    });
    if (code !== 0) {
      process.stderr.write(`demo: step "${title}" exited ${code}\n`);
      failed = true;
      break;
    }
  }
} catch (err) {
  process.stderr.write(`demo: ${err.message}\n`);
  failed = true;
} finally {
  sandbox.kill('SIGTERM');
  await new Promise((r) => (sandbox.exitCode !== null ? r() : sandbox.once('exit', r)));
  rmSync(configDir, { recursive: true, force: true });
}
process.stdout.write(`\nKept (CSV copy, results, journal; delete when done):\n  ${dir}\n`);
process.exitCode = failed ? 1 : 0;
