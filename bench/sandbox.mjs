#!/usr/bin/env node
// Sandbox benchmark. Bundles src/sandbox with esbuild into .tmp/, runs the sandbox in a child
// process (so the load generator does not steal its CPU), and measures with autocannon:
//   GET /v1/health (baseline), GET /v1/call?limit=100, POST batch of 100 rows (validate_only),
// printing requests/s and each ratio to health, plus the time from startSandbox() to the first answer.
// Goals: list >= 0.3x health; start to first answer < 1 s.
//   node bench/sandbox.mjs            (BENCH_SECONDS=5 BENCH_CONNECTIONS=10 to change)
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = `${root}.tmp/bench-sandbox/sandbox.mjs`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

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

  const run = (c, duration) =>
    new Promise((resolve, reject) => {
      autocannon(
        { url: info.baseUrl + c.path, method: c.method, headers: c.headers, body: c.body, connections: CONNECTIONS, duration },
        (err, result) => (err ? reject(err) : resolve(result)),
      );
    });

  // Server CPU per request: a second view that does not depend on how busy the machine is
  // (autocannon shares the cores with the server).
  const serverCpu = () =>
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m.cpu.user + m.cpu.system));
      child.send('cpu');
    });
  const results = [];
  for (const c of cases) {
    await run(c, 1); // warm-up
    const cpuBefore = await serverCpu();
    const r = await run(c, SECONDS);
    const cpuUs = ((await serverCpu()) - cpuBefore) / r.requests.total;
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${c.name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    results.push({ name: c.name, rps: r.requests.average, p99: r.latency.p99, kbPerReq: r.throughput.average / r.requests.average / 1024, cpuUs });
  }
  child.send('stop');

  const base = results[0].rps;
  console.log(`sandbox benchmark (${SECONDS}s per case, ${CONNECTIONS} connections, node ${process.version})`);
  for (const r of results) {
    console.log(
      `  ${r.name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${String(r.p99).padStart(4)} ms  ` +
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
