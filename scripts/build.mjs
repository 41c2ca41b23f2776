// Builds dist/ from src/ with esbuild: our own code bundled (with code splitting, so a command's
// heavy modules stay in chunks that load only when it runs), npm dependencies left external so
// they load from node_modules only when imported.
import { build } from 'esbuild';
import { rmSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  define: { __OUTREACH_VERSION__: JSON.stringify(pkg.version) },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
