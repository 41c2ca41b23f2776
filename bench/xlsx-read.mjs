#!/usr/bin/env node
// Reading Excel workbooks: peak RSS and rows/s of `sequences batch FILE.xlsx --dry-run
// --definition-file` (local checks only, no request at all) as the workbook grows, against the same
// rows as a CSV in the same run.
//   Three files per size, written into a temp dir: a workbook as Excel and exporting programs write
//   it (exceljs's streaming writer, shared strings on) with a unique member-id-like text per row; the
//   same workbook without that column (texts from a small pool only); the same rows as a CSV.
//   Each is read BENCH_ROUNDS times (default 2) by the built CLI in its own process; the lowest peak
//   RSS is kept (how high a peak goes is mostly V8's choice of when to collect). Peak RSS is read from
//   /proc/<pid>/status (VmHWM) while the run goes, so the peak half-way through the run is known too.
//   Goals: the workbook's peak RSS at the largest size within 1.5x of the smallest (flat), and the
//   largest workbooks read in full with V8's heap capped at 64 MB (flat whatever the collector does).
//   The shared strings (every distinct text of a workbook) are kept whatever the rows: their size is
//   printed apart, as the CLI keeps them and as exceljs's own cache would.
//   node bench/xlsx-read.mjs
//   BENCH_XLSX_ROWS=100000,1000000 (sizes, smallest first)  BENCH_ROUNDS=2
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, main, num, onCleanup, root, runCli, runNode, startSandbox, tempDir, verdict } from './lib.mjs';

const SIZES = (process.env.BENCH_XLSX_ROWS ?? '100000,1000000').split(',').map(Number).filter((n) => n > 0);
const ROUNDS = Math.max(1, num('BENCH_ROUNDS', 2));
const GOAL_RATIO = 1.5;
const HEAP_CAP_MB = 64;
const PROC = existsSync(`/proc/${process.pid}/status`);

const FIRST = ['Maria', 'James', 'Aisha', 'Robert', 'Emily', 'David', 'Sofia', 'Michael', 'Grace', 'Daniel', 'Ana', 'Omar', 'Lena', 'Tomás', 'Yuki', 'Kwame'];
const LAST = ['Lopez', 'Chen', 'Patel', 'Okafor', 'Novak', 'Kim', 'Rossi', 'Brown', 'Nguyen', 'Haddad', 'Silva', 'Farouk', "O'Neil", 'García', 'Tanaka', 'Mensah'];
const TIMES = ['08:00', '09:30', '11:15', '13:00', '14:45', '16:30'];
const AREAS = ['415', '628', '510', '650', '408', '707', '916', '925', '209', '559'];

/** Row i: every value derives from i. The phone is unique and valid (10 areas × exchanges 230-329 × 10,000). */
function row(i) {
  const j = Math.floor(i / AREAS.length);
  const phone = Number(`${AREAS[i % AREAS.length]}${230 + Math.floor(j / 10_000)}${String(j % 10_000).padStart(4, '0')}`);
  const day = new Date(Date.UTC(2030, 0, 1) + (i % 365) * 86_400_000);
  return { first: FIRST[i % FIRST.length], last: LAST[(i * 7) % LAST.length], phone, day, time: TIMES[i % TIMES.length], member: `MBR${String(i).padStart(9, '0')}` };
}

async function writeWorkbook(path, rows, uniqueColumn) {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true, useStyles: true });
  const ws = wb.addWorksheet('Patients');
  ws.addRow(['First Name', 'Last Name', 'Phone', 'Appointment Date', 'Appointment Time', ...(uniqueColumn ? ['Member ID'] : [])]).commit();
  for (let i = 0; i < rows; i++) {
    const r = row(i);
    const added = ws.addRow([r.first, r.last, r.phone, r.day, r.time, ...(uniqueColumn ? [r.member] : [])]);
    added.getCell(4).numFmt = 'm/d/yyyy';
    added.commit();
  }
  ws.commit();
  await wb.commit();
}

async function writeCsv(path, rows) {
  const out = createWriteStream(path);
  const write = async (s) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write('First Name,Last Name,Phone,Appointment Date,Appointment Time,Member ID\n');
  for (let i = 0; i < rows; i++) {
    const r = row(i);
    await write(`${r.first},${r.last},${r.phone},${r.day.toISOString().slice(0, 10)},${r.time},${r.member}\n`);
  }
  out.end();
  await once(out, 'finish');
}

/**
 * Runs the built CLI, polling /proc/<pid>/status every 50 ms: the peak RSS (VmHWM) at the end and
 * half-way through the run's time. Without /proc: lib.mjs's peak only.
 */
async function runPolled(args, env) {
  if (!PROC) {
    const r = await runCli(args, { env, peakRss: true });
    return { code: r.code, ms: r.ms, peakKb: r.peakRssKb, halfKb: undefined, stderrTail: r.stderrTail };
  }
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = onCleanup(() => child.kill('SIGKILL'));
  let stderrTail = '';
  child.stderr.on('data', (d) => (stderrTail = (stderrTail + d).slice(-2000)));
  const samples = [];
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) samples.push([performance.now() - t0, Number(hwm[1])]);
    } catch {} // exited between two polls
  }, 50);
  const [code] = await once(child, 'close');
  clearInterval(poll);
  stop();
  const ms = performance.now() - t0;
  const half = samples.filter(([t]) => t <= ms / 2).at(-1);
  return { code, ms, peakKb: samples.at(-1)?.[1] ?? 0, halfKb: half?.[1], stderrTail };
}

// Run with --expose-gc: reads the workbook's shared strings with exceljs's streaming reader, as the
// CLI does, and prints how many there are, the bytes the CLI keeps for them (UTF-8 and an offset
// each, outside V8's heap: src/csv/stringTable.ts) and the live heap exceljs's own cache takes.
const SHARED_STRINGS = `
const { createRequire } = require('node:module');
const Reader = createRequire(process.argv[2])('exceljs/lib/stream/xlsx/workbook-reader.js');
(async () => {
  gc();
  const before = process.memoryUsage().heapUsed;
  const reader = new Reader(require('node:fs').createReadStream(process.argv[1]), { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore' });
  for await (const ev of reader.parse()) {
    if (ev.eventType !== 'worksheet') continue;
    gc();
    const heap = process.memoryUsage().heapUsed - before;
    const text = (s) => (s === null ? '' : typeof s === 'string' ? s : s.richText.map((r) => r.text ?? '').join(''));
    const compact = reader.sharedStrings.reduce((n, s) => n + Buffer.byteLength(text(s)) + 4, 0);
    console.log(JSON.stringify({ strings: reader.sharedStrings.length, compact, heap }));
    process.exit(0);
  }
})();
`;

const mb = (kb) => (kb / 1024).toFixed(0);

await main(
  `reading .xlsx: peak RSS and rows/s of sequences batch --dry-run over ${SIZES.map((n) => n.toLocaleString('en-US')).join(' and ')} rows`,
  [
    'each size: a workbook with a unique text per row (a member id: the shared strings grow with the rows), the same without it, and a CSV of the same rows,',
    `each read by the built CLI in its own process (--dry-run --definition-file: no request); lowest peak RSS of ${ROUNDS}, best rows/s;`,
    `goal: the workbooks' peak RSS at the largest size <= ${GOAL_RATIO}x the smallest's`,
  ],
  async () => {
    const dir = tempDir('outreach-bench-xlsx-');
    const sbx = await startSandbox();
    const def = await (await fetch(`${sbx.baseUrl}/sequence-manager/sequence-definitions/1`, { headers: { authorization: `Bearer ${sbx.key}` } })).json();
    await sbx.close();
    const defFile = join(dir, 'def1.json');
    writeFileSync(defFile, JSON.stringify(def));
    const env = { PATH: process.env.PATH, HOME: dir, OUTREACH_CONFIG_DIR: dir, NO_COLOR: '1' };
    if (!PROC) console.log('(no /proc: peak RSS from lib.mjs, no half-way figure)');

    const kinds = [
      { key: 'xlsx-unique', label: 'xlsx, a unique text per row', write: (p, n) => writeWorkbook(p, n, true), ext: 'xlsx' },
      { key: 'xlsx-pooled', label: 'xlsx, pooled texts only    ', write: (p, n) => writeWorkbook(p, n, false), ext: 'xlsx' },
      { key: 'csv', label: 'csv (baseline)             ', write: writeCsv, ext: 'csv' },
    ];
    const peaks = Object.fromEntries(kinds.map((k) => [k.key, []]));
    const heapCapped = {};
    const speeds = Object.fromEntries(kinds.map((k) => [k.key, []]));
    for (const rows of SIZES) {
      console.log(`\n${rows.toLocaleString('en-US')} rows:`);
      for (const kind of kinds) {
        const file = join(dir, `p${rows}-${kind.key}.${kind.ext}`);
        const t = performance.now();
        await kind.write(file, rows);
        const writtenS = (performance.now() - t) / 1000;
        const runs = [];
        for (let i = 0; i < ROUNDS; i++) runs.push(await runPolled(['sequences', 'batch', file, '--dry-run', '--definition-file', defFile, '-q'], env));
        const low = runs.reduce((a, b) => (b.peakKb < a.peakKb ? b : a));
        peaks[kind.key].push(low.peakKb);
        speeds[kind.key].push(rows / (Math.min(...runs.map((x) => x.ms)) / 1000));
        const failed = runs.find((x) => x.code !== 0);
        const status = failed ? `  (exit ${failed.code}: ${failed.stderrTail.trim().split('\n').at(-1)})` : '';
        const half = low.halfKb === undefined ? '' : ` (half-way ${mb(low.halfKb)})`;
        console.log(
          `  ${kind.label} ${(statSync(file).size / 1e6).toFixed(1).padStart(5)} MB file  peak ${mb(low.peakKb).padStart(4)} MB${half}  ` +
            `[${runs.map((x) => mb(x.peakKb)).join(', ')}]  ${String(Math.round(speeds[kind.key].at(-1))).padStart(6)} rows/s${status}  (file written in ${writtenS.toFixed(0)} s)`,
        );
        if (kind.ext === 'xlsx' && rows === SIZES.at(-1)) {
          // Peaks of RSS move with the collector's timing; a heap cap does not. Rows that were kept
          // would run out of a 64 MB heap long before a million.
          const capped = await runPolled(['sequences', 'batch', file, '--dry-run', '--definition-file', defFile, '-q'], { ...env, NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}` });
          heapCapped[kind.key] = capped.code === 0;
          console.log(`      with the heap capped at ${HEAP_CAP_MB} MB: ${capped.code === 0 ? `read in full (peak RSS ${mb(capped.peakKb)} MB)` : `failed (exit ${capped.code})`}`);
        }
        if (kind.ext === 'xlsx') {
          const s = await runNode(['--expose-gc', '-e', SHARED_STRINGS, file, join(root, 'package.json')], { keepStdout: true });
          const { strings, compact, heap } = JSON.parse(s.stdout);
          console.log(`      shared strings: ${strings.toLocaleString('en-US')}, kept in ${(compact / 1e6).toFixed(1)} MB outside the heap (exceljs's own cache: ${(heap / 1e6).toFixed(1)} MB of heap)`);
        }
        rmSync(file);
      }
      const csv = speeds.csv.at(-1);
      console.log(`  rows/s, workbook/CSV: ${(speeds['xlsx-pooled'].at(-1) / csv).toFixed(2)}x (pooled texts), ${(speeds['xlsx-unique'].at(-1) / csv).toFixed(2)}x (unique texts)`);
    }
    if (SIZES.length > 1) {
      console.log(`\npeak RSS, ${SIZES.at(-1).toLocaleString('en-US')} rows / ${SIZES[0].toLocaleString('en-US')} rows:`);
      for (const kind of kinds) {
        const [first, last] = [peaks[kind.key][0], peaks[kind.key].at(-1)];
        const ratio = last / first;
        const goal = kind.ext === 'xlsx' ? `  (goal <= ${GOAL_RATIO}x) ${verdict(ratio <= GOAL_RATIO)}` : '';
        console.log(`  ${kind.label} ${mb(first).padStart(4)} → ${mb(last).padStart(4)} MB  ${ratio.toFixed(2)}x${goal}`);
      }
      for (const kind of kinds.filter((k) => k.key in heapCapped)) {
        console.log(`  ${kind.label} ${SIZES.at(-1).toLocaleString('en-US')} rows within a ${HEAP_CAP_MB} MB heap: ${verdict(heapCapped[kind.key])}`);
      }
    }
  },
);
