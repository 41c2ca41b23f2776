#!/usr/bin/env node
// Bulk eligibility benchmark: 1,000 CSV rows against a sandbox with instant processing
// (`outreach sandbox --eligibility-delay 0`), the built CLI (`eligibility check --csv`, default
// concurrency 4, journal and results file included, process start included) against a minimal
// script (its own Node process, like the CLI) sending the same 1,000 POST /eligibility requests with
// the same concurrency using fetch.
// Runs baseline and CLI alternately (BENCH_ROUNDS, default 3, each with fresh patient ids) and
// prints rows/s of every run, the best of each and the ratio of the bests. Goal: CLI >= 0.8x the minimal script.
//   node bench/eligibility-bulk.mjs        (BENCH_ROWS=1000 BENCH_CONCURRENCY=4 to change)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/outreach.js');
const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'outreach-bench-elig-'));

// 1. The sandbox, in its own process, processing checks instantly.
const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--memory', '-o', 'json', '--eligibility-delay', '0', '--no-profile'], {
  env: { ...process.env, OUTREACH_CONFIG_DIR: dir },
  stdio: ['ignore', 'pipe', 'ignore'],
});
const first = await new Promise((resolve, reject) => {
  const rl = createInterface({ input: sandbox.stdout });
  rl.once('line', resolve);
  sandbox.once('exit', (c) => reject(new Error(`sandbox exited ${c}`)));
});
const { base_url: baseUrl, organizations } = JSON.parse(first);
const key = organizations[0].api_key;

function rowsFor(prefix) {
  const out = [];
  for (let i = 1; i <= ROWS; i++) {
    out.push({
      customer_patient_id: `${prefix}-${i}`,
      first_name: `Pat${i}`,
      last_name: 'Bench',
      date_of_birth: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
      member_id: `W${100000 + i}`,
      payer_id: '87726',
      provider_name: 'Bench Clinic',
      npi: '1234567893',
    });
  }
  return out;
}

// The minimal script: its own Node process (as the CLI is), fetch, the same bodies, the same concurrency.
const MINIMAL = `
const [url, key, file, conc] = process.argv.slice(1);
const rows = JSON.parse(require('fs').readFileSync(file, 'utf8'));
let next = 0;
Promise.all(Array.from({ length: Number(conc) }, async () => {
  while (next < rows.length) {
    const r = rows[next++];
    const res = await fetch(url + '/eligibility', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
      body: JSON.stringify({
        patient: { first_name: r.first_name, last_name: r.last_name, date_of_birth: r.date_of_birth, member_id: r.member_id, customer_patient_id: r.customer_patient_id },
        insurance: { payer_id: r.payer_id },
        provider: { organization_name: r.provider_name, npi: r.npi },
      }),
    });
    if (res.status !== 201) throw new Error('status ' + res.status);
    await res.json();
  }
})).catch((e) => { console.error(e); process.exitCode = 1; });
`;

async function baseline(prefix) {
  const file = join(dir, `${prefix}.json`);
  writeFileSync(file, JSON.stringify(rowsFor(prefix)));
  const t0 = performance.now();
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', MINIMAL, baseUrl, key, file, String(CONCURRENCY)], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`baseline exited ${code}`);
  return ROWS / ((performance.now() - t0) / 1000);
}

async function cli(prefix) {
  const rows = rowsFor(prefix);
  const cols = Object.keys(rows[0]);
  const csv = join(dir, `${prefix}.csv`);
  writeFileSync(csv, [cols.join(','), ...rows.map((r) => cols.map((c) => r[c]).join(','))].join('\n') + '\n');
  const out = join(dir, `${prefix}.results.csv`);
  const t0 = performance.now();
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', String(CONCURRENCY)], {
      env: { PATH: process.env.PATH, HOME: dir, OUTREACH_CONFIG_DIR: dir, OUTREACH_BASE_URL: baseUrl, OUTREACH_API_KEY: key, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('close', resolve);
  });
  const rps = ROWS / ((performance.now() - t0) / 1000);
  if (code !== 0) throw new Error(`cli exited ${code}`);
  const accepted = readFileSync(out, 'utf8').split('\n').filter((l) => l.includes(',accepted,')).length;
  if (accepted !== ROWS) throw new Error(`cli: ${accepted} of ${ROWS} rows accepted`);
  return rps;
}

try {
  const base = [];
  const ours = [];
  for (let round = 1; round <= ROUNDS; round++) {
    base.push(await baseline(`B${round}`));
    ours.push(await cli(`C${round}`));
  }
  const b = Math.max(...base);
  const c = Math.max(...ours);
  console.log(`rows: ${ROWS}, concurrency: ${CONCURRENCY}`);
  console.log(`minimal fetch script: ${base.map((x) => x.toFixed(0)).join(', ')} rows/s (best ${b.toFixed(0)}, process start included)`);
  console.log(`outreach eligibility check --csv: ${ours.map((x) => x.toFixed(0)).join(', ')} rows/s (best ${c.toFixed(0)}, process start included)`);
  console.log(`ratio: ${(c / b).toFixed(2)}x (goal >= 0.80x) ${c / b >= 0.8 ? 'OK' : 'BELOW GOAL'}`);
} finally {
  sandbox.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
