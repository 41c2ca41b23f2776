// Shared helpers of the benches (not a bench itself): temp dirs and child processes cleaned up on
// every way out, a sandbox in its own process, timed child runs (peak RSS, time-stamped stderr),
// a latency proxy, a CPU-profile summary, patient chunks built the way the CLI builds them, and the
// "goal met" wording. Every bench runs through main(), which prints errors and exits 0: a bench
// reports, it does not fail CI.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const bin = join(root, 'bin/outreach.js');
export const num = (name, fallback) => {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number(v);
};
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------- cleanup on every way out ----------

const children = new Set();
const dirs = new Set();
const closers = new Set();

function killGroup(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // spawned detached: its own process group (a wrapper's child too)
  } catch {
    try {
      child.kill(signal);
    } catch {}
  }
}

function cleanupSync() {
  for (const c of children) killGroup(c);
  children.clear();
  for (const close of closers) {
    try {
      close();
    } catch {}
  }
  closers.clear();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}
process.on('exit', cleanupSync);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.log(`\n(${sig}: cleaning up)`);
    cleanupSync();
    process.exit(0);
  });
}

export function tempDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(d);
  return d;
}
export function onCleanup(fn) {
  closers.add(fn);
  return () => closers.delete(fn);
}

/** Runs the bench body; any error is printed, cleanup happens, and the exit code is 0. */
export async function main(title, lines, body) {
  console.log(`== ${title}`);
  for (const l of lines) console.log(`   ${l}`);
  const t = performance.now();
  try {
    await body();
  } catch (err) {
    console.log(`\nBENCH ERROR (figures above are still valid): ${err?.stack ?? err}`);
  } finally {
    cleanupSync();
  }
  console.log(`(bench took ${((performance.now() - t) / 1000).toFixed(0)} s)`);
  process.exit(0);
}

export const verdict = (ok) => (ok ? 'goal met' : 'goal NOT met');
export const fmtMs = (ms) => `${ms.toFixed(0)} ms`;
export const best = (xs) => Math.min(...xs);

// ---------- child processes ----------

const HAVE_TIME = process.env.BENCH_RSS !== 'preload' && existsSync('/usr/bin/time');
let preloadFile;
function rssPreload() {
  // Fallback when /usr/bin/time is missing: the kernel's own peak (getrusage maxrss) at exit.
  if (!preloadFile) {
    preloadFile = join(tempDir('outreach-bench-rss-'), 'rss.mjs');
    writeFileSync(
      preloadFile,
      "import { writeFileSync } from 'node:fs';\n" +
        "process.on('exit', () => { try { writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); } catch {} });\n",
    );
  }
  return preloadFile;
}

/**
 * Spawns `node ...nodeArgs` (its own process group), times it from spawn to exit.
 * opts: env, timeoutMs, peakRss (adds peakRssKb), onStderrLine(line, msSinceSpawn), keepStdout.
 * Resolves { code, signal, ms, stdout, stderrTail, peakRssKb, timedOut, t0 } (t0: performance.now() at spawn).
 */
export function runNode(nodeArgs, opts = {}) {
  let cmd = process.execPath;
  let args = nodeArgs;
  let rssFile;
  const env = { ...(opts.env ?? process.env) };
  if (opts.peakRss) {
    rssFile = join(tempDir('outreach-bench-rss-'), 'maxrss');
    if (HAVE_TIME) {
      cmd = '/usr/bin/time';
      args = ['-f', '%M', '-o', rssFile, process.execPath, ...nodeArgs];
    } else {
      args = ['--import', rssPreload(), ...nodeArgs];
      env.BENCH_RSS_FILE = rssFile;
    }
  }
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderrTail = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s) => {
      if (opts.keepStdout) stdout += s;
    });
    const rl = createInterface({ input: child.stderr });
    rl.on('line', (line) => {
      opts.onStderrLine?.(line, performance.now() - t0);
      stderrTail = (stderrTail + line + '\n').slice(-4000);
    });
    let timedOut = false;
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          killGroup(child);
          setTimeout(() => killGroup(child, 'SIGKILL'), 10_000).unref();
        }, opts.timeoutMs)
      : undefined;
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      children.delete(child);
      let peakRssKb;
      if (rssFile) {
        try {
          // /usr/bin/time writes "Command exited with non-zero status N" before the figure.
          peakRssKb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1));
        } catch {}
      }
      resolve({ code, signal, ms, stdout, stderrTail, peakRssKb, timedOut, t0 });
    });
  });
}

/** Runs the built CLI. */
export const runCli = (cliArgs, opts = {}) => runNode([bin, ...cliArgs], opts);

/** Best-of-N time of `outreach --help` (a process start with the CLI's own startup). */
export async function helpTime(rounds) {
  const xs = [];
  for (let i = 0; i < Math.max(3, rounds); i++) xs.push((await runCli(['--help'])).ms);
  return best(xs);
}

// ---------- the sandbox ----------

/** A sandbox in its own process (in-memory database). Resolves { baseUrl, key, close }. */
export async function startSandbox(extraArgs = []) {
  const dir = tempDir('outreach-bench-sbx-');
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--memory', '-o', 'json', '--no-profile', ...extraArgs], {
    env: { ...process.env, OUTREACH_CONFIG_DIR: dir },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
  const first = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (c) => reject(new Error(`sandbox exited ${c}: ${err}`)));
  });
  const { base_url: baseUrl, organizations } = JSON.parse(first);
  return {
    baseUrl,
    key: organizations[0].api_key,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const done = new Promise((r) => child.once('close', r));
        killGroup(child);
        await done;
      }
      children.delete(child);
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
    },
  };
}

// ---------- the latency proxy ----------

/**
 * An HTTP proxy (keep-alive on both sides) that holds every request until `latencyMs` after its
 * headers arrived (and its body is complete), then forwards it to the current target. Records a
 * timeline of every request: { method, path, kind, rows, arrived, forwarded, upstream (ms the
 * target took), done } in performance.now() ms, and the most requests in flight at once.
 */
export async function startLatencyProxy(latencyMs) {
  let target;
  let agent;
  let log = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const arrived = performance.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(parts);
      const entry = { method: req.method, path: req.url, kind: 'other', rows: 0, arrived };
      if (req.method === 'POST' && req.url.includes('/sequences/batch')) {
        try {
          const j = JSON.parse(body.toString('utf8'));
          entry.kind = j.validate_only ? 'validate' : 'create';
          entry.rows = j.rows?.length ?? 0;
        } catch {}
      } else if (req.method === 'GET' && req.url.includes('/sequence-definitions')) entry.kind = 'definition';
      const wait = arrived + latencyMs - performance.now();
      if (wait > 0) await sleep(wait);
      entry.forwarded = performance.now();
      const t = new URL(target);
      const headers = { ...req.headers, host: t.host };
      delete headers.connection;
      delete headers['keep-alive'];
      const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers, agent }, (upRes) => {
        const chunks = [];
        upRes.on('data', (c) => chunks.push(c));
        upRes.on('end', () => {
          entry.upstream = performance.now() - entry.forwarded;
          const out = Buffer.concat(chunks);
          const h = { ...upRes.headers };
          for (const k of ['connection', 'keep-alive', 'transfer-encoding', 'content-length']) delete h[k];
          h['content-length'] = String(out.length);
          res.writeHead(upRes.statusCode ?? 502, h);
          res.end(out);
          entry.status = upRes.statusCode;
          entry.done = performance.now();
          inFlight--;
          log.push(entry);
        });
      });
      up.on('error', (e) => {
        inFlight--;
        entry.done = performance.now();
        entry.status = `error ${e.code}`;
        log.push(entry);
        res.destroy();
      });
      up.end(body);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const close = () => {
    server.closeAllConnections();
    server.close();
    agent?.destroy();
  };
  onCleanup(close);
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    /** Points the proxy at a new upstream (`…/v1` base URL) and clears the log. */
    setTarget(baseUrl) {
      agent?.destroy();
      agent = new Agent({ keepAlive: true });
      target = baseUrl;
      log = [];
      maxInFlight = 0;
      server.closeIdleConnections();
    },
    take() {
      const r = { log, maxInFlight };
      log = [];
      maxInFlight = 0;
      return r;
    },
    close,
  };
}

/** Phases of a proxy log relative to a spawn time t0: one line per kind of request. */
export function describeTimeline(log, t0, totalMs) {
  const lines = [];
  if (log.length === 0) return ['no request reached the proxy'];
  const first = Math.min(...log.map((e) => e.arrived)) - t0;
  const last = Math.max(...log.map((e) => e.done)) - t0;
  lines.push(`spawn → first request at the proxy      ${fmtMs(first)}  (process start, reading, local checks)`);
  const kinds = [...new Set(log.map((e) => e.kind))];
  const order = ['definition', 'validate', 'create', 'other'];
  kinds.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  for (const k of kinds) {
    const es = log.filter((e) => e.kind === k);
    const a = Math.min(...es.map((e) => e.arrived)) - t0;
    const d = Math.max(...es.map((e) => e.done)) - t0;
    const up = es.reduce((s, e) => s + (e.upstream ?? 0), 0);
    // Wall time with at least one of them at the service (forwarded, not yet answered).
    let busy = 0;
    let end = -Infinity;
    for (const e of [...es].sort((x, y) => x.forwarded - y.forwarded)) {
      const answered = e.forwarded + (e.upstream ?? 0);
      if (answered > end) {
        busy += answered - Math.max(e.forwarded, end);
        end = answered;
      }
    }
    // Most of this kind in flight at once (sweep over arrival/done).
    const ev = es.flatMap((e) => [[e.arrived, 1], [e.done, -1]]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let cur = 0;
    let peak = 0;
    for (const [, dlt] of ev) peak = Math.max(peak, (cur += dlt));
    const bad = es.filter((e) => typeof e.status !== 'number' || e.status >= 300).length;
    lines.push(
      `${`${k} requests`.padEnd(20)} ${String(es.length).padStart(4)}  ${fmtMs(a).padStart(8)} → ${fmtMs(d).padStart(8)} (span ${fmtMs(d - a)}), ` +
        `at most ${peak} in flight, at the service ${fmtMs(busy)} of wall time (sum ${fmtMs(up)})${bad ? `, ${bad} not 2xx` : ''}`,
    );
  }
  // Gaps: time with no request in flight after the first one (the CLI working, or waiting on itself).
  const ev = log.flatMap((e) => [[e.arrived, 1], [e.done, -1]]).sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  let cur = 0;
  let idleSince = null;
  let idle = 0;
  for (const [t, dlt] of ev) {
    if (cur === 0 && idleSince !== null) idle += t - idleSince;
    cur += dlt;
    if (cur === 0) idleSince = t;
  }
  lines.push(`no request in flight between first and last request: ${fmtMs(idle)}`);
  lines.push(`last answer → process exit              ${fmtMs(totalMs - last)}  (results file, journal, exit)`);
  return lines;
}

// ---------- patient data as the CLI sends it ----------

/** Splits one line of a generated CSV (RFC 4180 quoting, no line breaks inside fields). */
function splitCsvLine(line) {
  const out = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        v += line.slice(i, q);
        if (line[q + 1] === '"') {
          v += '"';
          i = q + 2;
        } else {
          i = q + 2;
          break;
        }
      }
      out.push(v);
    } else {
      const c = line.indexOf(',', i);
      const end = c === -1 ? line.length : c;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

/**
 * The rows of a scripts/make-patients.mjs file as the CLI sends them (camelCase keys, E.164 phones,
 * YYYY-MM-DD dates), in bodies of 100 rows for definition `definitionId`.
 */
export function patientChunks(csvPath, definitionId, validateOnly) {
  const [head, ...lines] = readFileSync(csvPath, 'utf8').trimEnd().split('\n');
  if (head !== 'First Name,Last Name,Phone,Appointment Date,Appointment Time,Clinic Name,Provider Name') throw new Error(`unexpected header in ${csvPath}`);
  const rows = lines.map((l) => {
    const [firstName, lastName, phone, date, appointmentTime, clinicName, providerName] = splitCsvLine(l);
    const digits = phone.replace(/\D/g, '').slice(-10);
    const mdy = date.match(/^(\d+)\/(\d+)\/(\d{4})$/);
    const appointmentDate = mdy ? `${mdy[3]}-${mdy[1].padStart(2, '0')}-${mdy[2].padStart(2, '0')}` : date;
    return { firstName, lastName, phoneNumber: `+1${digits}`, appointmentDate, appointmentTime, clinicName, providerName };
  });
  const chunks = [];
  for (let i = 0; i < rows.length; i += 100) {
    const body = { sequence_definition_id: definitionId, rows: rows.slice(i, i + 100) };
    if (validateOnly) body.validate_only = true;
    chunks.push(JSON.stringify(body));
  }
  return chunks;
}

export function makePatients(rows, file) {
  const r = spawnSync(process.execPath, [join(root, 'scripts/make-patients.mjs'), String(rows), file], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`make-patients exited ${r.status}`);
  return file;
}

/**
 * The raw poster: its own Node process (as the CLI is) that POSTs the pre-built bodies in
 * `chunksFile` (a JSON array of strings) to {url}/sequence-manager/sequences/batch one after
 * another with fetch, and checks each answer (valid, or created_count = rows).
 */
export const RAW_POSTER = `
const [url, key, file] = process.argv.slice(1);
const chunks = JSON.parse(require('fs').readFileSync(file, 'utf8'));
(async () => {
  for (const body of chunks) {
    const res = await fetch(url + '/sequence-manager/sequences/batch', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body });
    const j = await res.json();
    const b = JSON.parse(body);
    if (res.status !== 200) throw new Error('status ' + res.status);
    if (b.validate_only ? !j.valid : j.created_count !== b.rows.length) throw new Error('chunk not accepted: ' + JSON.stringify(j).slice(0, 300));
  }
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;

// ---------- CPU profile ----------

const sourceMaps = new Map();
function mapPosition(url, line, column) {
  if (!url.startsWith('file://')) return undefined;
  const file = fileURLToPath(url);
  if (!sourceMaps.has(file)) {
    let sm = null;
    try {
      sm = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {}
    sourceMaps.set(file, sm);
  }
  const sm = sourceMaps.get(file);
  const e = sm?.findEntry(line, column);
  if (!e?.originalSource) return undefined;
  const src = e.originalSource.startsWith('file://') ? fileURLToPath(e.originalSource) : e.originalSource;
  return `${relative(root, join(dirname(file), src)).replace(/^(\.\.\/)+/, '')}:${e.originalLine + 1}`;
}
const dirname = (p) => p.slice(0, p.lastIndexOf('/'));

/**
 * Runs `node --cpu-prof <nodeArgs>` and prints the top `n` functions by self time (mapped to src/
 * through dist's source maps when it can), plus the profile's total.
 */
export async function printCpuProfile(label, nodeArgs, opts = {}, n = 15) {
  const dir = tempDir('outreach-bench-prof-');
  const r = await runNode(['--cpu-prof', '--cpu-prof-dir', dir, ...nodeArgs], opts);
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) {
    console.log(`CPU profile of ${label}: no profile written (exit ${r.code})`);
    return;
  }
  const prof = JSON.parse(readFileSync(join(dir, files[0]), 'utf8'));
  const nodes = new Map(prof.nodes.map((x) => [x.id, x]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i + 1] ?? 0; // the time until the next sample belongs to this one
    const node = nodes.get(prof.samples[i]);
    const cf = node.callFrame;
    let where = cf.url ? (mapPosition(cf.url, cf.lineNumber, cf.columnNumber) ?? `${cf.url.startsWith('file://') ? relative(root, fileURLToPath(cf.url)) : basename(cf.url)}:${cf.lineNumber + 1}`) : '';
    const key = `${cf.functionName || '(anonymous)'}  ${where}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log(`CPU profile of ${label} (exit ${r.code}, ${(r.ms / 1000).toFixed(2)} s wall, ${(total / 1000).toFixed(0)} ms sampled), top ${n} by self time:`);
  for (const [k, us] of top) console.log(`  ${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
}
