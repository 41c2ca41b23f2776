import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// The version the built CLI prints, so that in-process runs (test/helpers/cli.ts) print the same.
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __OUTREACH_VERSION__: JSON.stringify(version) },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The time zone test runs are given (baseEnv): in-process runs share this process's.
    env: { TZ: 'UTC' },
    // Two cores here. Forks, not threads: tests change the umask and spawn processes.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        // Unit and sandbox tests leave nothing running behind them: their files share worker
        // processes (a fresh process per file costs more than many of them take).
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/sandbox/**/*.test.ts'], isolate: false },
      },
      {
        // End-to-end files start servers, proxies and child processes that may still be busy when
        // the file ends: each file in a process of its own.
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts', 'test/security/**/*.test.ts'] },
      },
    ],
  },
});
