// Replaced at build time by esbuild (scripts/build.mjs) and in tests by vitest's `define`.
declare const __OUTREACH_VERSION__: string;
