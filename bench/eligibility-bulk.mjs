#!/usr/bin/env node
// Bulk eligibility (`eligibility check --csv`), in one run:
//   1. speed: BENCH_ROWS (1,000) rows against a sandbox with instant processing
//      (`--eligibility-delay 0`): the built CLI (`--concurrency 4`, journal and results file
//      included, process start included) against a minimal script (its own Node process, like the
//      CLI) sending the same POST /eligibility requests with the same concurrency using fetch.
//      Rounds alternate (BENCH_ROUNDS, 3, fresh patient ids each); best of each. Goal: CLI >= 0.8x.
//   2. memory: peak RSS of the CLI process (`eligibility check --csv FILE --out results.csv`, CLI
//      defaults) over 10,000, 100,000 and BENCH_BIG_ROWS (1,000,000; 0 skips it) generated rows,
//      against a fake service inside the bench that answers POST /v1/eligibility with 201
//      {"id": n, "status": "queued"} at once and GET /v1/eligibility with []. Also rows/s.
//      Goal: < 150 MB and flat as the file grows. A run is stopped after BENCH_TIMEOUT_S (1800) s.
//   node bench/eligibility-bulk.mjs
//   BENCH_ROWS=1000 BENCH_CONCURRENCY=4 BENCH_ROUNDS=3 BENCH_MEM_ROWS=10000,100000 BENCH_BIG_ROWS=1000000
//   BENCH_TIMEOUT_S=1800 BENCH_PROFILE=1 (CPU profile of one 1,000-row CLI run)
import { once } from 'node:events';
import { createWriteStream, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { best, bin, main, num, onCleanup, printCpuProfile, runCli, runNode, startSandbox, tempDir, verdict } from './lib.mjs';

const ROWS = num('BENCH_ROWS', 1000);
const CONCURRENCY = num('BENCH_CONCURRENCY', 4);
const ROUNDS = num('BENCH_ROUNDS', 3);
const MEM_ROWS = (process.env.BENCH_MEM_ROWS ?? '10000,100000').split(',').filter(Boolean).map(Number);
const BIG_ROWS = num('BENCH_BIG_ROWS', 1_000_000);
const TIMEOUT_S = num('BENCH_TIMEOUT_S', 1800);
const SPEED_GOAL = 0.8;
const MEM_GOAL_MB = 150;
const sizes = [...MEM_ROWS, BIG_ROWS].filter((x) => x > 0);

const COLS = ['customer_patient_id', 'first_name', 'last_name', 'date_of_birth', 'member_id', 'payer_id', 'provider_name', 'npi'];
function row(prefix, i) {
  return {
    customer_patient_id: `${prefix}-${i}`,
    first_name: `Pat${i}`,
    last_name: 'Bench',
    date_of_birth: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
    member_id: `W${100000 + i}`,
    payer_id: '87726',
    provider_name: 'Bench Clinic',
    npi: '1234567893',
  };
}
/** Streams a CSV of `rows` patients (ids prefix-1 … prefix-rows) to `file`. */
async function writeCsv(file, prefix, rows) {
  const ws = createWriteStream(file);
  ws.write(COLS.join(',') + '\n');
  let buf = '';
  for (let i = 1; i <= rows; i++) {
    const r = row(prefix, i);
    buf += COLS.map((c) => r[c]).join(',') + '\n';
    if (buf.length > 1 << 16) {
      if (!ws.write(buf)) await once(ws, 'drain');
      buf = '';
    }
  }
  ws.end(buf);
  await once(ws, 'finish');
  return file;
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

/** The fake service: POST /v1/eligibility → 201 {id, status: queued}; GET /v1/eligibility → []. */
async function startFakeService() {
  let posts = 0;
  let gets = 0;
  let other = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url.split('?')[0];
      if (req.method === 'POST' && path === '/v1/eligibility') {
        const body = `{"id":${++posts},"status":"queued"}`;
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      } else if (req.method === 'GET' && path === '/v1/eligibility') {
        gets++;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
        res.end('[]');
      } else {
        other++;
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"message":"not found","statusCode":404,"error":"Not Found"}');
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  onCleanup(close);
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    counts() {
      const c = { posts, gets, other };
      posts = gets = other = 0;
      return c;
    },
    close,
  };
}

await main(
  'bulk eligibility: eligibility check --csv, speed and memory',
  [
    `speed: ${ROWS} rows against a sandbox (instant processing), CLI --concurrency ${CONCURRENCY} vs a minimal fetch script at the same concurrency;`,
    `  rows/s from spawn to exit, best of ${ROUNDS}; goal: CLI >= ${SPEED_GOAL}x the script`,
    `memory: peak RSS of the CLI over ${sizes.map((x) => x.toLocaleString('en-US')).join(', ')} rows against an instant fake service; goal: < ${MEM_GOAL_MB} MB and flat`,
  ],
  async () => {
    const dir = tempDir('outreach-bench-elig-');

    // 1. Speed against the sandbox.
    const sbx = await startSandbox(['--eligibility-delay', '0']);
    const cliEnv = (baseUrl, key) => ({ PATH: process.env.PATH, HOME: dir, OUTREACH_CONFIG_DIR: dir, OUTREACH_BASE_URL: baseUrl, OUTREACH_API_KEY: key, NO_COLOR: '1' });
    const baseline = async (prefix) => {
      const file = join(dir, `${prefix}.json`);
      writeFileSync(file, JSON.stringify(Array.from({ length: ROWS }, (_, i) => row(prefix, i + 1))));
      const r = await runNode(['-e', MINIMAL, sbx.baseUrl, sbx.key, file, String(CONCURRENCY)]);
      if (r.code !== 0) throw new Error(`minimal script exited ${r.code}: ${r.stderrTail}`);
      return ROWS / (r.ms / 1000);
    };
    const cliArgs = (csv, out) => ['eligibility', 'check', '--csv', csv, '--out', out, '--concurrency', String(CONCURRENCY)];
    const cli = async (prefix) => {
      const csv = await writeCsv(join(dir, `${prefix}.csv`), prefix, ROWS);
      const out = join(dir, `${prefix}.results.csv`);
      const r = await runCli(cliArgs(csv, out), { env: cliEnv(sbx.baseUrl, sbx.key) });
      if (r.code !== 0) throw new Error(`CLI exited ${r.code}: ${r.stderrTail}`);
      const accepted = readFileSync(out, 'utf8').split('\n').filter((l) => l.includes(',accepted,')).length;
      if (accepted !== ROWS) throw new Error(`CLI: ${accepted} of ${ROWS} rows accepted`);
      return ROWS / (r.ms / 1000);
    };
    const base = [];
    const ours = [];
    for (let round = 1; round <= ROUNDS; round++) {
      base.push(await baseline(`B${round}`));
      ours.push(await cli(`C${round}`));
    }
    const b = -best(base.map((x) => -x));
    const c = -best(ours.map((x) => -x));
    console.log(`minimal fetch script:             ${base.map((x) => x.toFixed(0)).join(', ')} rows/s (best ${b.toFixed(0)})`);
    console.log(`outreach eligibility check --csv: ${ours.map((x) => x.toFixed(0)).join(', ')} rows/s (best ${c.toFixed(0)})`);
    console.log(`ratio CLI/script: ${(c / b).toFixed(2)}x (goal >= ${SPEED_GOAL}x) ${verdict(c / b >= SPEED_GOAL)}`);
    if (process.env.BENCH_PROFILE === '1') {
      const csv = await writeCsv(join(dir, 'P.csv'), 'P', ROWS);
      console.log('');
      await printCpuProfile(`the CLI, ${ROWS} rows`, [bin, ...cliArgs(csv, join(dir, 'P.results.csv'))], { env: cliEnv(sbx.baseUrl, sbx.key) });
    }
    await sbx.close();

    // 2. Memory against the fake service.
    const fake = await startFakeService();
    console.log(`\nmemory: peak RSS of the CLI process (eligibility check --csv FILE --out results.csv, defaults), fake instant service:`);
    const peaks = [];
    for (const rows of sizes) {
      const prefix = `M${rows}`;
      const csv = await writeCsv(join(dir, `${prefix}.csv`), prefix, rows);
      const size = statSync(csv).size;
      const out = join(dir, `${prefix}.results.csv`);
      const r = await runCli(['eligibility', 'check', '--csv', csv, '--out', out], { env: cliEnv(fake.url, 'bench-key'), peakRss: true, timeoutMs: TIMEOUT_S * 1000 });
      const n = fake.counts();
      const mb = r.peakRssKb / 1024;
      const finished = !r.timedOut;
      if (finished) peaks.push(mb);
      const how = r.timedOut ? `stopped after ${TIMEOUT_S} s (${n.posts} POSTs by then)` : r.code === 0 ? `exit 0` : `exit ${r.code}: ${r.stderrTail.trim().split('\n').at(-1)}`;
      console.log(
        `  ${rows.toLocaleString('en-US').padStart(9)} rows (${(size / 1e6).toFixed(1)} MB file)  peak ${Number.isFinite(mb) ? mb.toFixed(0).padStart(4) : '   ?'} MB  ` +
          `${(r.ms / 1000).toFixed(1)} s  ${Math.round((finished ? rows : n.posts) / (r.ms / 1000))} rows/s  ` +
          `${n.posts} POSTs, ${n.gets} GETs${n.other ? `, ${n.other} other` : ''}  ${how}  ${verdict(finished && r.code === 0 && mb < MEM_GOAL_MB)}`,
      );
      // Bench temp files of a big run are large: drop them before the next size.
      for (const f of [csv, out, `${csv}.outreach-eligibility.ndjson`, `${csv}.outreach-eligibility.lock`]) rmSync(f, { force: true, recursive: true });
    }
    if (peaks.length > 1) {
      const flat = peaks.at(-1) <= peaks[0] * 1.2;
      console.log(`  growth ${peaks[0].toFixed(0)} → ${peaks.at(-1).toFixed(0)} MB over the finished runs (flat: within 20%) ${verdict(flat)}`);
    }
  },
);
