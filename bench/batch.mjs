#!/usr/bin/env node
// `sequences batch` speed and memory against a local sandbox (no proxy), in one run:
//   1. --validate-only of a 10,000-row file, wall time from spawn to exit, against a raw poster (its
//      own Node process) sending the same 100 pre-built validate_only chunks one after another.
//      Goal: raw/CLI >= 1.0x. Then where the CLI's time goes: process start (`outreach --help`),
//      local checks (`--dry-run --definition-file`, no request at all), the requests (a --debug run:
//      count, sum and span of the traced timings), and the rest.
//   2. peak RSS of a local-checks-only run (--dry-run --definition-file) over 100,000 and
//      BENCH_BIG_ROWS (1,000,000; 0 skips it) generated rows. Goal: < 150 MB, flat as the file grows.
//   node bench/batch.mjs
//   BENCH_ROWS=10000 BENCH_ROUNDS=3 BENCH_MEM_ROWS=100000 BENCH_BIG_ROWS=1000000 BENCH_PROFILE=1 (CPU profile)
//   (the old positional form `node bench/batch.mjs [rounds] [bigRows]` still works)
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { best, bin, fmtMs, helpTime, main, makePatients, num, patientChunks, printCpuProfile, RAW_POSTER, runCli, runNode, startSandbox, tempDir, verdict } from './lib.mjs';

const ROWS = num('BENCH_ROWS', 10_000);
const ROUNDS = num('BENCH_ROUNDS', Number(process.argv[2] ?? 3));
const MEM_ROWS = num('BENCH_MEM_ROWS', 100_000);
const BIG_ROWS = num('BENCH_BIG_ROWS', Number(process.argv[3] ?? 1_000_000));
const MEM_GOAL_MB = 150;

await main(
  `sequences batch: validate-only ${ROWS.toLocaleString('en-US')} rows, and memory of local checks`,
  [
    `validate-only: CLI (--validate-only -q) vs a raw Node script POSTing the ${Math.ceil(ROWS / 100)} validate_only chunks one after another;`,
    `  wall time from spawn to exit, best of ${ROUNDS}; goal: raw/CLI >= 1.0x`,
    `memory: peak RSS of --dry-run --definition-file over ${[MEM_ROWS, BIG_ROWS].filter((x) => x > 0).map((x) => x.toLocaleString('en-US')).join(' and ')} rows; goal: < ${MEM_GOAL_MB} MB and flat`,
  ],
  async () => {
    const dir = tempDir('outreach-bench-batch-');
    const sbx = await startSandbox();
    const env = { PATH: process.env.PATH, HOME: dir, OUTREACH_CONFIG_DIR: dir, OUTREACH_BASE_URL: sbx.baseUrl, OUTREACH_API_KEY: sbx.key, NO_COLOR: '1' };
    const file = makePatients(ROWS, join(dir, 'patients.csv'));
    const chunksFile = join(dir, 'chunks.json');
    writeFileSync(chunksFile, JSON.stringify(patientChunks(file, 1, true)));
    const def = await (await fetch(`${sbx.baseUrl}/sequence-manager/sequence-definitions/1`, { headers: { authorization: `Bearer ${sbx.key}` } })).json();
    const defFile = join(dir, 'def1.json');
    writeFileSync(defFile, JSON.stringify(def));

    const validateArgs = ['sequences', 'batch', file, '--definition', '1', '--validate-only', '-q'];
    const baseline = async () => {
      const r = await runNode(['-e', RAW_POSTER, sbx.baseUrl, sbx.key, chunksFile]);
      if (r.code !== 0) throw new Error(`raw poster exited ${r.code}: ${r.stderrTail}`);
      return r.ms;
    };
    const cli = async (extra = [], opts = {}) => {
      const r = await runCli([...validateArgs, ...extra], { env, ...opts });
      if (r.code !== 0) throw new Error(`CLI exited ${r.code}: ${r.stderrTail}`);
      return r.ms;
    };
    const dryRun = async () => {
      const r = await runCli(['sequences', 'batch', file, '--dry-run', '--definition-file', defFile, '-q'], { env });
      if (r.code !== 0) throw new Error(`dry run exited ${r.code}: ${r.stderrTail}`);
      return r.ms;
    };

    await baseline(); // warm up the sandbox
    await cli();
    const b = [];
    const c = [];
    const d = [];
    for (let i = 0; i < ROUNDS; i++) {
      b.push(await baseline());
      c.push(await cli());
      d.push(await dryRun());
    }
    const mb = best(b);
    const mc = best(c);
    const ratio = mb / mc;
    console.log(`raw poster (sequential validate_only POSTs)  ${b.map(fmtMs).join(', ')}  best ${fmtMs(mb)}  ${Math.round(ROWS / (mb / 1000))} rows/s`);
    console.log(`outreach sequences batch --validate-only     ${c.map(fmtMs).join(', ')}  best ${fmtMs(mc)}  ${Math.round(ROWS / (mc / 1000))} rows/s`);
    console.log(`ratio raw/CLI: ${ratio.toFixed(2)}x (goal >= 1.0x) ${verdict(ratio >= 1)}`);

    // Where the CLI's time goes.
    const help = await helpTime(ROUNDS);
    const dry = best(d);
    const trace = { requests: 0, answers: 0, sum: 0, first: Infinity, last: 0 };
    const debugMs = await cli(['--debug'], {
      onStderrLine(line, at) {
        if (/^\[debug\] → /.test(line)) {
          trace.requests++;
          trace.first = Math.min(trace.first, at);
        }
        const m = line.match(/^\[debug\] ← \d+ (\d+)ms/);
        if (m) {
          trace.answers++;
          trace.sum += Number(m[1]);
          trace.last = Math.max(trace.last, at);
        }
      },
    });
    const span = trace.last - trace.first;
    console.log(`\nwhere the CLI's time goes (best runs; the --debug run took ${fmtMs(debugMs)}):`);
    console.log(`  process start (outreach --help)                 ${fmtMs(help).padStart(8)}`);
    console.log(`  local checks (--dry-run --definition-file) - start ${fmtMs(dry - help).padStart(8)}   (dry run in all ${fmtMs(dry)})`);
    console.log(`  requests (--debug): ${trace.requests} sent, ${trace.answers} answered, sum of timings ${fmtMs(trace.sum)}, first sent → last answered ${fmtMs(span)}`);
    console.log(`    spawn → first request ${fmtMs(trace.first)}, last answer → exit ${fmtMs(debugMs - trace.last)} (stderr time stamps)`);
    console.log(`  the rest: CLI - dry run - request span          ${fmtMs(mc - dry - span).padStart(8)}   (negative: checks and requests overlap)`);
    console.log(`  (the raw poster's ${Math.ceil(ROWS / 100)} requests took ${fmtMs(mb)} with its process start)`);

    if (process.env.BENCH_PROFILE === '1') {
      console.log('');
      await printCpuProfile('the validate-only run', [bin, ...validateArgs], { env });
      await printCpuProfile('the local checks (--dry-run --definition-file)', [bin, 'sequences', 'batch', file, '--dry-run', '--definition-file', defFile, '-q'], { env });
    }
    await sbx.close();

    // Memory: local checks only, no request at all.
    console.log('\nlocal checks only (--dry-run --definition-file), peak RSS of the CLI process:');
    const peaks = [];
    for (const rows of [MEM_ROWS, BIG_ROWS].filter((x) => x > 0)) {
      const big = makePatients(rows, join(dir, `p${rows}.csv`));
      const r = await runCli(['sequences', 'batch', big, '--dry-run', '--definition-file', defFile, '-q'], { env, peakRss: true });
      const mb = r.peakRssKb / 1024;
      peaks.push(mb);
      const status = r.code === 0 ? '' : ` (exit ${r.code}: ${r.stderrTail.trim().split('\n').at(-1)})`;
      console.log(
        `  ${rows.toLocaleString('en-US').padStart(9)} rows (${(statSync(big).size / 1e6).toFixed(1)} MB file)  peak ${mb.toFixed(0).padStart(4)} MB  ` +
          `${(r.ms / 1000).toFixed(1)} s  ${Math.round(rows / (r.ms / 1000))} rows/s  ${verdict(mb < MEM_GOAL_MB)}${status}`,
      );
      rmSync(big);
    }
    if (peaks.length > 1) {
      const flat = peaks.at(-1) <= peaks[0] * 1.2;
      console.log(`  growth ${peaks[0].toFixed(0)} → ${peaks.at(-1).toFixed(0)} MB (flat: within 20%) ${verdict(flat)}`);
    }
  },
);
