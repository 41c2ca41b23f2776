import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// The version the built CLI prints, so that in-process runs (test/helpers/cli.ts) print the same.
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __OUTREACH_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The time zone test runs are given (baseEnv): in-process runs share this process's.
    env: { TZ: 'UTC' },
    // e2e tests run the CLI in process and start servers; some still spawn it. Two cores here.
    pool: 'forks',
    maxWorkers: 2,
  },
});
