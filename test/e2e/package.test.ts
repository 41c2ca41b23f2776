// `npm pack` gives a package that installs globally into an empty prefix and runs there, with
// nothing from devDependencies (dist/ is shipped; the build does not run at install).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';
import { json, startFaultServer } from '../helpers/faultServer.js';

const tmp = tempDir('outreach-pack-');
afterAll(() => tmp.cleanup());

describe('packaging', () => {
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
