#!/usr/bin/env node
// Sandbox benchmark. Bundles src/sandbox with esbuild into .tmp/, runs the sandbox in a child
// process, and measures with wrk when it is installed (a C load generator: on this 2-core machine
// autocannon, in JavaScript, needs as much CPU as the server and caps the big list answers), else
// autocannon (BENCH_TOOL=autocannon forces it); the cases are interleaved over BENCH_ROUNDS rounds and
// the median taken:
//   GET /v1/health (baseline), GET /v1/call?limit=100, POST batch of 100 rows (validate_only),
// printing requests/s and each ratio to health, plus the time from startSandbox() to the first answer.
// Goals: list >= 0.3x health; start to first answer < 1 s.
//   node bench/sandbox.mjs            (BENCH_SECONDS=5 BENCH_CONNECTIONS=10 BENCH_ROUNDS=3 to change)
import { execFileSync, fork, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = `${root}.tmp/bench-sandbox/sandbox.mjs`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOOL = process.env.BENCH_TOOL ?? (spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk');

if (process.argv[2] === '--serve') {
  // Child: start the sandbox, answer one request, report timings to the parent.
  const t0 = performance.now();
  const { startSandbox } = await import(pathToFileURL(outfile).href);
  const tImported = performance.now();
  const sbx = await startSandbox({ port: 0, dbPath: ':memory:', eligibilityDelayMs: 0 });
  const res = await fetch(`${sbx.baseUrl}/health`);
  await res.text();
  const tFirst = performance.now();
  process.send({
    baseUrl: sbx.baseUrl,
    apiKey: sbx.organizations[0].api_key,
    importMs: tImported - t0,
    startToFirstAnswerMs: tFirst - tImported,
  });
  process.on('message', async (m) => {
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
    if (m === 'stop') {
      await sbx.close();
      process.exit(0);
    }
  });
} else {
  const { build } = await import('esbuild');
  const autocannon = (await import('autocannon')).default;
  mkdirSync(`${root}.tmp/bench-sandbox`, { recursive: true });
  await build({
    entryPoints: [`${root}src/sandbox/index.ts`],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });

  const spawnedAt = performance.now();
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const info = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox process exited with ${code}`)));
  });
  const coldMs = performance.now() - spawnedAt;

  const auth = { authorization: `Bearer ${info.apiKey}` };
  const rows = Array.from({ length: 100 }, (_, i) => ({
    phoneNumber: `+1415555${String(1000 + i)}`,
    firstName: `First${i}`,
    lastName: `Last${i}`,
    appointmentDate: '2030-05-17',
    clinicName: 'North Clinic',
  }));
  const cases = [
    { name: 'GET /v1/health', path: '/health', method: 'GET' },
    { name: 'GET /v1/call?limit=100', path: '/call?limit=100', method: 'GET', headers: auth },
    {
      name: 'POST batch 100 rows validate_only',
      path: '/sequence-manager/sequences/batch',
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ sequence_definition_id: 1, rows, validate_only: true }),
    },
  ];

  const runAutocannon = (c, duration) =>
    new Promise((resolve, reject) => {
      autocannon(
        { url: info.baseUrl + c.path, method: c.method, headers: c.headers, body: c.body, connections: CONNECTIONS, duration },
        (err, r) =>
          err
            ? reject(err)
            : resolve({ total: r.requests.total, rps: r.requests.average, p99: r.latency.p99, bytesPerSec: r.throughput.average, bad: r.non2xx + r.errors }),
      );
    });
  const runWrk = (c, duration) => {
    const script = `${root}.tmp/bench-sandbox/${c.path.replace(/\W+/g, '_')}.lua`;
    const headers = Object.entries(c.headers ?? {}).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
    writeFileSync(script, [`wrk.method = "${c.method}"`, ...(c.body ? [`wrk.body = ${JSON.stringify(c.body)}`] : []), ...headers].join('\n'));
    const out = execFileSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${duration}s`, '--latency', '-s', script, info.baseUrl + c.path], { encoding: 'utf8' });
    const num = (re) => Number((re.exec(out) ?? [])[1] ?? 0);
    const unit = (re) => {
      const m = re.exec(out);
      if (!m) return 0;
      const scale = { us: 0.001, ms: 1, s: 1000, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[m[2]] ?? 1;
      return Number(m[1]) * scale;
    };
    return {
      total: num(/(\d+) requests in/),
      rps: num(/Requests\/sec:\s+([\d.]+)/),
      p99: unit(/99%\s+([\d.]+)(us|ms|s)/),
      bytesPerSec: unit(/Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/),
      bad: num(/Non-2xx or 3xx responses: (\d+)/) + num(/Socket errors: connect (\d+)/),
    };
  };
  const run = (c, duration) => (TOOL === 'wrk' ? Promise.resolve(runWrk(c, duration)) : runAutocannon(c, duration));

  // Server CPU per request: a second view that does not depend on how busy the machine is
  // (autocannon shares the cores with the server).
  const serverCpu = () =>
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m.cpu.user + m.cpu.system));
      child.send('cpu');
    });
  const samples = cases.map(() => []);
  for (const c of cases) await run(c, 1); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, c] of cases.entries()) {
      const cpuBefore = await serverCpu();
      const r = await run(c, SECONDS);
      const cpuUs = ((await serverCpu()) - cpuBefore) / r.total;
      if (r.bad > 0) throw new Error(`${c.name}: ${r.bad} non-2xx answers or errors`);
      samples[i].push({ rps: r.rps, p99: r.p99, kbPerReq: r.bytesPerSec / r.rps / 1024, cpuUs });
    }
  }
  const median = (xs, f) => [...xs].sort((a, b) => f(a) - f(b))[Math.floor(xs.length / 2)];
  const results = cases.map((c, i) => ({ name: c.name, ...median(samples[i], (x) => x.rps) }));
  child.send('stop');

  const base = results[0].rps;
  console.log(`sandbox benchmark with ${TOOL} (${SECONDS}s per case, ${CONNECTIONS} connections, median of ${ROUNDS} interleaved rounds, node ${process.version})`);
  for (const r of results) {
    console.log(
      `  ${r.name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${String(Math.round(r.p99)).padStart(4)} ms  ` +
        `${r.kbPerReq.toFixed(1).padStart(6)} KiB/answer  server ${r.cpuUs.toFixed(0).padStart(4)} µs CPU/req  ` +
        `ratio to health ${(r.rps / base).toFixed(2)} (by CPU ${(results[0].cpuUs / r.cpuUs).toFixed(2)})`,
    );
  }
  console.log(`  import of the sandbox module           ${info.importMs.toFixed(0)} ms`);
  console.log(`  startSandbox() call to first answer    ${info.startToFirstAnswerMs.toFixed(0)} ms   (goal < 1000)`);
  console.log(`  process spawn to first answer          ${coldMs.toFixed(0)} ms`);
  const listRatio = results[1].rps / base;
  console.log(`  list/health ratio ${listRatio.toFixed(2)} (goal >= 0.30): ${listRatio >= 0.3 ? 'ok' : 'BELOW GOAL'}`);
  process.exitCode = listRatio >= 0.3 && info.startToFirstAnswerMs < 1000 ? 0 : 1;
}
