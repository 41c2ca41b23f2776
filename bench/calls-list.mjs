// `outreach calls list --limit 1000 -o json` against a sandbox holding ≥1000 calls, against a
// minimal node script that makes the same request with the built-in fetch and prints the body.
// Median of N runs each, interleaved, in one run; goal: ratio ≤ 1.5×. Key and URL come from the
// environment (OUTREACH_API_KEY, OUTREACH_BASE_URL), so the CLI does no config file work.
// Usage: npm run build && node bench/calls-list.mjs [runs=21]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const runs = Math.max(15, Number(process.argv[2] ?? 21));
const bin = fileURLToPath(new URL('../bin/outreach.js', import.meta.url));
const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'outreach-bench-calls-'));
const dbPath = join(dir, 'sandbox.db');

/** Starts the sandbox on `dbPath`; resolves with the child and its first stdout line (JSON). */
function startSandbox() {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--db', dbPath, '--no-profile', '-o', 'json'], {
    stdio: ['ignore', 'pipe', 'pipe'], // its request log is not wanted here

    env: { ...process.env, OUTREACH_CONFIG_DIR: dir, HOME: dir },
  });
  let log = '';
  child.stderr.on('data', (d) => (log += d).length > 100_000 && (log = log.slice(-10_000)));
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (line) => resolve({ child, info: JSON.parse(line) }));
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code} before it printed its address:\n${log}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

// 1. A seeded database, then enough copies of organisation 1's calls to fill a 1000-call page.
{
  const { child } = await startSandbox();
  await stop(child);
  const Database = require('libsql');
  const db = new Database(dbPath);
  const calls = db.prepare('SELECT created_at, doc FROM calls WHERE organization_id = 1').all();
  const insert = db.prepare('INSERT INTO calls (organization_id, created_at, doc) VALUES (1, ?, ?)');
  const setDoc = db.prepare('UPDATE calls SET doc = ? WHERE id = ?');
  db.exec('BEGIN');
  for (let copy = 1; calls.length * (copy + 1) <= 1100; copy++) {
    for (const c of calls) {
      const created = new Date(Date.parse(c.created_at) - copy * 5 * 86_400_000).toISOString();
      const doc = JSON.parse(c.doc);
      const id = Number(insert.run(created, '{}').lastInsertRowid);
      setDoc.run(JSON.stringify({ ...doc, id, created_at: created }), id);
    }
  }
  db.exec('COMMIT');
  db.close();
}

const { child: sandbox, info } = await startSandbox();
const baseUrl = info.base_url;
const key = info.organizations[0].api_key;

try {
  const baselineScript = join(dir, 'fetch-baseline.mjs');
  writeFileSync(
    baselineScript,
    `const res = await fetch(process.env.OUTREACH_BASE_URL + '/call?limit=1000', { headers: { authorization: 'Bearer ' + process.env.OUTREACH_API_KEY, accept: 'application/json' } });\n` +
      `if (!res.ok) process.exit(1);\nprocess.stdout.write(await res.text());\n`,
  );
  const env = { PATH: process.env.PATH, HOME: dir, OUTREACH_CONFIG_DIR: dir, OUTREACH_API_KEY: key, OUTREACH_BASE_URL: baseUrl, NO_COLOR: '1' };
  const cases = [
    ['node + built-in fetch', [baselineScript]],
    ['outreach calls list --limit 1000 -o json', [bin, 'calls', 'list', '--limit', '1000', '-o', 'json']],
  ];

  const time = (args) => {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
    const elapsed = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { elapsed, stdout: r.stdout };
  };

  // Both print the same 1000 calls.
  const base = JSON.parse(time(cases[0][1]).stdout);
  const cli = JSON.parse(time(cases[1][1]).stdout);
  if (base.length !== 1000 || JSON.stringify(cli) !== JSON.stringify(base)) {
    throw new Error(`outputs differ or are not 1000 calls (baseline ${base.length}, cli ${cli.length})`);
  }

  const samples = cases.map(() => []);
  for (let i = 0; i < 3; i++) cases.forEach(([, a]) => time(a)); // warm caches
  for (let i = 0; i < runs; i++) cases.forEach(([, a], j) => samples[j].push(time(a).elapsed));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const baseMs = median(samples[0]);
  console.log(`calls list, 1000 calls, median of ${runs} interleaved runs (goal ≤ 1.50×)`);
  for (const [i, [name]] of cases.entries()) {
    const m = median(samples[i]);
    console.log(`${name.padEnd(44)} ${m.toFixed(1).padStart(7)} ms  ${(m / baseMs).toFixed(2)}×`);
  }
  const ratio = median(samples[1]) / baseMs;
  console.log(ratio <= 1.5 ? `ok: ${ratio.toFixed(2)}×` : `over the goal: ${ratio.toFixed(2)}×`);
} finally {
  await stop(sandbox);
  rmSync(dir, { recursive: true, force: true });
}
