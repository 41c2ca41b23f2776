// `npm test` after the build: the type check, the linter, the README's commands (scripts/readme-check.mjs,
// ~20 s) and the test suite side by side. tsc and eslint use one core each for ~6 s alone and vitest two
// workers for ~45 s; started together, the checks finish inside the suite's time instead of before it.
// The suite's output streams as it runs; each check's output is printed when it ends. Non-zero exit
// when any of them fails.
import { spawn } from 'node:child_process';

const run = (name, cmd, args, stream) =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { stdio: ['ignore', stream ? 'inherit' : 'pipe', stream ? 'inherit' : 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    const done = (code, extra = '') => {
      const result = { name, code, seconds: ((Date.now() - started) / 1000).toFixed(1) };
      if (!stream) process.stdout.write(`${code === 0 ? 'ok' : 'FAILED'}: ${name} (${result.seconds} s)\n${out}${extra}`);
      resolve(result);
    };
    child.on('error', (err) => done(1, `${err.message}\n`));
    child.on('close', (code) => done(code ?? 1));
  });

const results = await Promise.all([
  run('typecheck', 'node_modules/.bin/tsc', ['--noEmit']),
  run('lint', 'node_modules/.bin/eslint', ['.']),
  run('readme', process.execPath, ['scripts/readme-check.mjs']),
  run('tests', 'node_modules/.bin/vitest', ['run'], true),
]);
const failed = results.filter((r) => r.code !== 0);
process.stdout.write(`${results.map((r) => `${r.name} ${r.code === 0 ? 'ok' : 'FAILED'} (${r.seconds} s)`).join(', ')}\n`);
process.exitCode = failed.length ? 1 : 0;
