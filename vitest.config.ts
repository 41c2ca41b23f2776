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
    // Two cores here. Forks, not threads: tests change the umask and spawn processes.
    pool: 'forks',
    maxWorkers: 2,
    // Test files share worker processes: a fresh process per file (and the sandbox, fastify and the
    // CLI's modules imported again in each) cost more than most files take. The CLI keeps no state
    // between runs (src/main.ts), and a test that changes the process (umask, env) puts it back.
    isolate: false,
  },
});
