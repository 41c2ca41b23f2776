// Builds dist/ from src/ with esbuild: our own code bundled (with code splitting, so a command's
// heavy modules stay in chunks that load only when it runs), npm dependencies left external so
// they load from node_modules only when imported.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Build into a fresh directory and swap it in at the end, so a process running dist/ meanwhile
// (a test, a sandbox) never sees it half-written.
// One directory per build process, so two builds at once (parallel work in one checkout) never
// delete each other's output.
const next = new URL(`../dist.next-${process.pid}`, import.meta.url);
const dist = new URL('../dist', import.meta.url);
rmSync(next, { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: `dist.next-${process.pid}`,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies stay external (loaded from node_modules when a command imports them), except
  // commander: every start needs it, and one bundled file loads faster than its CommonJS files.
  external: Object.keys(pkg.dependencies ?? {}).concat(Object.keys(pkg.optionalDependencies ?? {})).filter((d) => d !== 'commander'),
  // Bundled CommonJS calls require(); an ESM bundle must define it (see DESIGN.md's pitfalls).
  banner: { js: "import { createRequire as __outreachCreateRequire } from 'node:module'; const require = __outreachCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  define: { __OUTREACH_VERSION__: JSON.stringify(pkg.version) },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});

rmSync(dist, { recursive: true, force: true });
renameSync(next, dist);
