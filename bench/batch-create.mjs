#!/usr/bin/env node
// `sequences batch` create run over latency: a proxy inside the bench holds every request 60 ms
// before forwarding it to a sandbox (keep-alive both sides), and times, from spawn to exit:
//   (a) a raw script, its own Node process, POSTing the 50 pre-built create chunks of 100 rows one
//       after another through the proxy;
//   (b) `outreach sequences batch FILE --definition 1 --yes --out results.csv` through the proxy,
//       with the CLI's defaults (its validate_only pass included).
// Every run gets a fresh sandbox (so it really creates), warmed up with one validate_only chunk
// outside the timing. Rounds alternate (a) and (b); the best of each is compared. Goal: baseline/CLI
// >= 1.5x. Then, from the proxy's log of the best CLI run, where its time went.
//   node bench/batch-create.mjs
//   BENCH_ROWS=5000 BENCH_ROUNDS=3 BENCH_LATENCY_MS=60 BENCH_PROFILE=1 (CPU profile of one CLI run)
//   BENCH_CLI_ARGS="--concurrency 8" (extra flags for the CLI run)
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { best, bin, describeTimeline, fmtMs, main, makePatients, num, patientChunks, printCpuProfile, RAW_POSTER, runCli, runNode, startLatencyProxy, startSandbox, tempDir, verdict } from './lib.mjs';

const ROWS = num('BENCH_ROWS', 5000);
const ROUNDS = num('BENCH_ROUNDS', 3);
const LATENCY = num('BENCH_LATENCY_MS', 60);
const CLI_ARGS = (process.env.BENCH_CLI_ARGS ?? '').split(' ').filter(Boolean);
const GOAL = 1.5;
const DEFINITION = 1; // the seeded "Appointment reminder" (appointmentDate required; time, clinic, provider optional)

await main(
  `sequences batch: create ${ROWS} rows through a ${LATENCY} ms latency proxy`,
  [
    `baseline: a raw Node script POSTing the ${Math.ceil(ROWS / 100)} create chunks of 100 one after another`,
    `CLI: outreach sequences batch FILE --definition ${DEFINITION} --yes --out results.csv (defaults)`,
    `wall time from spawn to exit, best of ${ROUNDS}, fresh sandbox per run; goal: baseline/CLI >= ${GOAL}x`,
  ],
  async () => {
    const dir = tempDir('outreach-bench-create-');
    const csv = makePatients(ROWS, join(dir, 'patients.csv'));
    const chunksFile = join(dir, 'chunks.json');
    writeFileSync(chunksFile, JSON.stringify(patientChunks(csv, DEFINITION, false)));
    const warmBody = patientChunks(csv, DEFINITION, true)[0];
    const proxy = await startLatencyProxy(LATENCY);

    // A fresh sandbox behind the proxy, warmed up with one validate_only chunk sent to it directly.
    const freshSandbox = async () => {
      const sbx = await startSandbox();
      const res = await fetch(`${sbx.baseUrl}/sequence-manager/sequences/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sbx.key}`, 'content-type': 'application/json' },
        body: warmBody,
      });
      await res.text();
      proxy.setTarget(sbx.baseUrl);
      return sbx;
    };

    const runs = { baseline: [], cli: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      {
        const sbx = await freshSandbox();
        const r = await runNode(['-e', RAW_POSTER, proxy.url, sbx.key, chunksFile]);
        const { log, maxInFlight } = proxy.take();
        await sbx.close();
        if (r.code !== 0) throw new Error(`baseline exited ${r.code}: ${r.stderrTail}`);
        runs.baseline.push({ ms: r.ms, log, maxInFlight, t0: r.t0 });
      }
      {
        const sbx = await freshSandbox();
        const out = join(dir, `results-${round}.csv`);
        const cfg = tempDir('outreach-bench-cfg-');
        const r = await runCli(['sequences', 'batch', csv, '--definition', String(DEFINITION), '--yes', '--out', out, ...CLI_ARGS], {
          env: { PATH: process.env.PATH, HOME: cfg, OUTREACH_CONFIG_DIR: cfg, OUTREACH_BASE_URL: proxy.url, OUTREACH_API_KEY: sbx.key, NO_COLOR: '1' },
        });
        const { log, maxInFlight } = proxy.take();
        await sbx.close();
        if (r.code !== 0) throw new Error(`CLI exited ${r.code}: ${r.stderrTail}`);
        const created = readFileSync(out, 'utf8').split('\n').filter((l) => l.includes(',created,')).length;
        if (created !== ROWS) throw new Error(`CLI: ${created} of ${ROWS} rows created`);
        runs.cli.push({ ms: r.ms, log, maxInFlight, t0: r.t0 });
      }
      console.log(`  round ${round}: baseline ${fmtMs(runs.baseline.at(-1).ms)}, CLI ${fmtMs(runs.cli.at(-1).ms)}`);
    }

    const b = best(runs.baseline.map((x) => x.ms));
    const c = best(runs.cli.map((x) => x.ms));
    const ratio = b / c;
    console.log(`raw script (sequential creates)  ${runs.baseline.map((x) => fmtMs(x.ms)).join(', ')}  best ${fmtMs(b)}  ${Math.round(ROWS / (b / 1000))} rows/s`);
    console.log(`outreach sequences batch         ${runs.cli.map((x) => fmtMs(x.ms)).join(', ')}  best ${fmtMs(c)}  ${Math.round(ROWS / (c / 1000))} rows/s`);
    console.log(`ratio baseline/CLI: ${ratio.toFixed(2)}x (goal >= ${GOAL}x) ${verdict(ratio >= GOAL)}`);

    const bestCli = runs.cli.find((x) => x.ms === c);
    console.log(`\nwhere the CLI's time went (best run, ${fmtMs(c)}; times from spawn, as seen by the proxy):`);
    for (const l of describeTimeline(bestCli.log, bestCli.t0, bestCli.ms)) console.log(`  ${l}`);
    const bestBase = runs.baseline.find((x) => x.ms === b);
    console.log(`the raw script's time (best run, ${fmtMs(b)}):`);
    for (const l of describeTimeline(bestBase.log, bestBase.t0, bestBase.ms)) console.log(`  ${l}`);
    console.log('  ("at the service": after the proxy\'s delay until the answer, queueing in the sandbox included)');
    const latencyFloor = Math.ceil(ROWS / 100) * LATENCY;
    console.log(`(${Math.ceil(ROWS / 100)} sequential requests cost at least ${fmtMs(latencyFloor)} of latency alone)`);

    if (process.env.BENCH_PROFILE === '1') {
      const sbx = await freshSandbox();
      const cfg = tempDir('outreach-bench-cfg-');
      console.log('');
      await printCpuProfile('the CLI create run', [bin, 'sequences', 'batch', csv, '--definition', String(DEFINITION), '--yes', '--out', join(dir, 'results-prof.csv')], {
        env: { PATH: process.env.PATH, HOME: cfg, OUTREACH_CONFIG_DIR: cfg, OUTREACH_BASE_URL: proxy.url, OUTREACH_API_KEY: sbx.key, NO_COLOR: '1' },
      });
      proxy.take();
      await sbx.close();
    }
  },
);
