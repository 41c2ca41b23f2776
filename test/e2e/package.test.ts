// `npm pack` gives a package that installs globally into an empty prefix and runs there, with
// nothing from devDependencies (dist/ is shipped; the build does not run at install).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';
import { json, startFaultServer } from '../helpers/faultServer.js';

const tmp = tempDir('outreach-pack-');
afterAll(() => tmp.cleanup());

/** The paths `npm pack` would put in the tarball, listed without building or writing one. */
function packedPaths(cwd: string): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });
  return (JSON.parse(out.toString()) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

describe('packaging', () => {
  it('ships docs/ and every tracked fixture, and no journal, lock or results file a run left in fixtures/', () => {
    // A copy of what packing reads, so the artefacts planted here never touch the checkout.
    const dir = join(tmp.dir, 'copy');
    mkdirSync(dir);
    for (const p of ['package.json', 'README.md', 'bin', 'docs', 'fixtures']) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'cli.js'), '');
    const artefacts = [
      'patients.csv.journal.ndjson',
      'patients.csv.journal.ndjson.lock',
      'eligibility-mixed.csv.outreach-eligibility.ndjson',
      'eligibility-mixed.csv.outreach-eligibility.ndjson.lock',
      'results.csv',
      'results.ndjson',
      '.results.csv.1234.tmp',
      'followup.csv',
    ];
    for (const a of artefacts) writeFileSync(join(dir, 'fixtures', a), 'x');
    mkdirSync(join(dir, 'fixtures', 'run'));
    writeFileSync(join(dir, 'fixtures', 'run', 'results.csv'), 'x');

    const packed = packedPaths(dir);
    expect(packed).toEqual(expect.arrayContaining(['README.md', 'bin/outreach.js', 'dist/cli.js', 'docs/sandbox.md', 'docs/security.md']));
    const tracked = execFileSync('git', ['ls-files', 'fixtures'], { cwd: ROOT }).toString().trim().split('\n');
    expect(packed.filter((p) => p.startsWith('fixtures/')).sort()).toEqual(tracked.sort());
    for (const a of artefacts) expect(packed).not.toContain(`fixtures/${a}`);
  });

  it('installs from the packed tarball into an empty prefix and runs', async () => {
    const npmEnv = { ...process.env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' };
    // --ignore-scripts: `prepare` would rebuild dist/ under the other e2e tests running in parallel;
    // `npm test` has just built it.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp.dir], { cwd: ROOT, env: npmEnv, stdio: 'pipe' });
    const tgz = readdirSync(tmp.dir).find((f) => f.endsWith('.tgz'));
    expect(tgz).toMatch(/^outreach-cli-\d+\.\d+\.\d+\.tgz$/);
    const prefix = join(tmp.dir, 'prefix');
    execFileSync('npm', ['install', '-g', '--prefix', prefix, join(tmp.dir, tgz!)], { cwd: tmp.dir, env: npmEnv, stdio: 'pipe', timeout: 240_000 });
    const bin = join(prefix, 'bin', 'outreach');
    expect(existsSync(bin)).toBe(true);
    const installed = join(prefix, 'lib', 'node_modules', 'outreach-cli');
    expect(existsSync(join(installed, 'dist', 'cli.js'))).toBe(true);
    expect(existsSync(join(installed, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(installed, 'node_modules', 'esbuild'))).toBe(false);

    const runEnv = { PATH: process.env.PATH ?? '', HOME: tmp.dir, OUTREACH_CONFIG_DIR: join(tmp.dir, 'cfg') };
    expect(execFileSync(bin, ['--version'], { env: runEnv }).toString()).toMatch(/^\d+\.\d+\.\d+/);
    expect(execFileSync(bin, ['--help'], { env: runEnv }).toString()).toContain('Usage: outreach');
    const server = await startFaultServer(json(200, { status: 'ok' }));
    try {
      // Async: the server answering lives in this process, so its event loop must keep running.
      const { stdout: out } = await promisify(execFile)(bin, ['health', '--base-url', server.url, '-o', 'json'], { env: runEnv });
      expect(JSON.parse(out)).toEqual({ status: 'ok' });
    } finally {
      await server.close();
    }
  }, 300_000);
});
