// Startup cost: median of N starts of bare node, `outreach --version` and `outreach --help`, in one
// run, printed as ratios against bare node. Goals: --version ≤ 1.2×, --help ≤ 1.4×.
// Usage: node bench/startup.mjs [runs=25]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 25);
const bin = fileURLToPath(new URL('../bin/outreach.js', import.meta.url));
const cases = [
  ['node -e 0', ['-e', '0']],
  ['outreach --version', [bin, '--version']],
  ['outreach --help', [bin, '--help']],
];

function time(args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const samples = cases.map(() => []);
for (let i = 0; i < 3; i++) cases.forEach(([, a]) => time(a)); // warm the file cache
// Interleave the cases so that machine noise hits all of them alike.
for (let i = 0; i < runs; i++) cases.forEach(([, a], j) => samples[j].push(time(a)));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(samples[0]);
console.log(`startup, median of ${runs} runs`);
for (const [i, [name]] of cases.entries()) {
  const m = median(samples[i]);
  console.log(`${name.padEnd(20)} ${m.toFixed(1).padStart(7)} ms  ${(m / base).toFixed(2)}×`);
}
