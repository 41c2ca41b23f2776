import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __OUTREACH_VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // e2e tests spawn processes and servers; two cores here, keep it modest.
    pool: 'forks',
    maxWorkers: 2,
  },
});
