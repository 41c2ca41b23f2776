// `sequences batch` speed and memory, in one run:
//   1. --validate-only of a 10,000-row file against a sandbox, rows/s, against a minimal script that
//      posts the same 100 pre-built validate_only chunks one after another (goal: ≥ 1.0×; the CLI
//      also reads, checks and normalises every row, and starts a process);
//   2. peak RSS of a local-checks-only run (--dry-run --definition-file: no request at all) over
//      100,000 and 1,000,000 generated rows (goal: < 150 MB, flat as the file grows).
// Usage: node bench/batch.mjs [runs=3] [bigRows=1000000]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 3);
const bigRows = Number(process.argv[3] ?? 1_000_000);
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/outreach.js');
const dir = mkdtempSync(join(tmpdir(), 'outreach-bench-batch-'));

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--memory', '-o', 'json'], {
  env: { ...process.env, OUTREACH_CONFIG_DIR: dir },
  stdio: ['ignore', 'pipe', 'ignore'],
});
const first = await new Promise((resolve, reject) => {
  createInterface({ input: sandbox.stdout }).once('line', resolve);
  sandbox.once('exit', (c) => reject(new Error(`sandbox exited ${c}`)));
});
const { base_url: baseUrl, organizations } = JSON.parse(first);
const key = organizations[0].api_key;
const env = { ...process.env, OUTREACH_CONFIG_DIR: dir, OUTREACH_BASE_URL: baseUrl, OUTREACH_API_KEY: key, NO_COLOR: '1' };

try {
  const file = join(dir, 'p10k.csv');
  spawnSync(process.execPath, [join(root, 'scripts/make-patients.mjs'), '10000', file], { stdio: 'inherit' });

  // The same rows as the CLI sends (E.164 phones, ISO dates), pre-built into 100 chunks.
  const AREAS = ['415', '628', '510', '650', '408', '707', '916', '925', '209', '559'];
  const chunks = [];
  for (let c = 0; c < 100; c++) {
    const rows = [];
    for (let j = 0; j < 100; j++) {
      const i = c * 100 + j;
      const n = String(Math.floor(i / 10) % 10000).padStart(4, '0');
      const day = new Date(Date.UTC(2030, 4, 1) + (i % 120) * 86_400_000).toISOString().slice(0, 10);
      rows.push({ firstName: 'Ann', lastName: 'Lee', phoneNumber: `+1${AREAS[i % 10]}555${n}`, appointmentDate: day, appointmentTime: '09:00', clinicName: 'North Clinic', providerName: 'Dr. Reyes' });
    }
    chunks.push(JSON.stringify({ sequence_definition_id: 1, rows, validate_only: true }));
  }
  const baseline = async () => {
    const t = performance.now();
    for (const body of chunks) {
      const res = await fetch(`${baseUrl}/sequence-manager/sequences/batch`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
      const j = await res.json();
      if (!j.valid) throw new Error('baseline chunk invalid');
    }
    return performance.now() - t;
  };
  const cli = () => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [bin, 'sequences', 'batch', file, '--definition', '1', '--validate-only', '-q'], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`CLI exited ${r.status}: ${r.stderr}`);
    return performance.now() - t;
  };
  await baseline(); // warm up the sandbox
  cli();
  const b = [];
  const c = [];
  for (let i = 0; i < runs; i++) {
    b.push(await baseline());
    c.push(cli());
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const mb = median(b);
  const mc = median(c);
  console.log(`validate-only, 10,000 rows, median of ${runs}`);
  console.log(`  minimal script (100 sequential POSTs) ${mb.toFixed(0).padStart(6)} ms  ${Math.round(10_000 / (mb / 1000))} rows/s`);
  console.log(`  outreach sequences batch              ${mc.toFixed(0).padStart(6)} ms  ${Math.round(10_000 / (mc / 1000))} rows/s  ${(mb / mc).toFixed(2)}× (goal ≥ 1.0×)`);

  // Memory: local checks only, no request at all.
  const def = await (await fetch(`${baseUrl}/sequence-manager/sequence-definitions/1`, { headers: { authorization: `Bearer ${key}` } })).json();
  const defFile = join(dir, 'def1.json');
  writeFileSync(defFile, JSON.stringify(def));
  console.log('local checks only (--dry-run --definition-file), peak RSS');
  for (const rows of [100_000, bigRows]) {
    const big = join(dir, `p${rows}.csv`);
    spawnSync(process.execPath, [join(root, 'scripts/make-patients.mjs'), String(rows), big], { stdio: 'inherit' });
    const t = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bin, 'sequences', 'batch', big, '--dry-run', '--definition-file', defFile, '-q'], { env, encoding: 'utf8' });
    const secs = (performance.now() - t) / 1000;
    if (r.status !== 0) throw new Error(`dry run exited ${r.status}: ${r.stderr.slice(-500)}`);
    const kb = Number(r.stderr.trim().split('\n').at(-1));
    console.log(`  ${rows.toLocaleString('en-US').padStart(9)} rows (${(statSync(big).size / 1e6).toFixed(0)} MB)  ${(kb / 1024).toFixed(0).padStart(4)} MB  ${secs.toFixed(1)} s  ${Math.round(rows / secs)} rows/s (goal < 150 MB)`);
    rmSync(big);
  }
} finally {
  sandbox.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
