// `npm test`'s static checks, side by side: tsc --noEmit and eslint each use one core, so running
// them together saves the shorter one's time. Each one's output is printed when it ends; the exit
// code is non-zero when either fails.
import { spawn } from 'node:child_process';

const checks = [
  ['typecheck', 'node_modules/.bin/tsc', ['--noEmit']],
  ['lint', 'node_modules/.bin/eslint', ['.']],
];

const results = await Promise.all(
  checks.map(
    ([name, cmd, args]) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('error', (err) => resolve({ name, code: 1, out: String(err), ms: Date.now() - started }));
        child.on('close', (code) => resolve({ name, code, out, ms: Date.now() - started }));
      }),
  ),
);
for (const r of results) {
  process.stdout.write(`${r.code === 0 ? 'ok' : 'FAILED'}: ${r.name} (${(r.ms / 1000).toFixed(1)} s)\n${r.out}`);
}
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
