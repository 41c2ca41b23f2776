// Runs README.md's shell commands, exactly as written, from a fresh copy of the repository, and
// fails when one exits otherwise than the README says. Part of `npm test` (scripts/checks.mjs).
//
// What it does:
// - copies the files git tracks into a temporary directory (a clone without the history), links
//   node_modules from this checkout (`npm ci` needs the registry; the demo and the tests prove the
//   install works), builds, and runs `npm link` into a temporary npm prefix, as README says, so that
//   `outreach` is on PATH;
// - isolates HOME, OUTREACH_CONFIG_DIR and the data directory; starts `outreach sandbox --memory
//   --port 0` (random port): the `sandbox` profile it stores is the one the README commands use;
// - runs every ```sh block in order, in one bash from the copy's root (variables carry over);
//   a command ending in a comment `# exits N` must exit N, every other command 0;
// - a command that serves until stopped (`outreach sandbox`, `outreach webhooks listen`) is started
//   with `--port 0` added (and `--no-profile` for the sandbox, so the profile keeps pointing at the
//   check's own), must print that it is listening, and must stop with exit 0 on SIGTERM;
// - `npm ci` (node_modules is linked) and `npm test` (it runs this check) are not run again;
// - a block after `<!-- readme-check: skip (why) -->` is not run: the reason says what covers it.
// Usage: node scripts/readme-check.mjs [README.md]   (--keep leaves the temporary directory)
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? join(ROOT, 'README.md'));
const KEEP = process.argv.includes('--keep');
// A hang, not a slow machine: alone the check takes about 20 s, under a loaded `npm test` about 70.
const TIME_LIMIT_MS = 180_000;

/** The ```sh blocks of a README, each with its line number and whether a skip marker precedes it. */
export function shellBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let skip;
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!--\s*readme-check:\s*skip\s*(?:\((.*)\))?\s*-->/.exec(lines[i]);
    if (marker) {
      skip = marker[1]?.trim() || 'marked';
      continue;
    }
    if (/^```(sh|bash|shell)\s*$/.test(lines[i])) {
      const start = i + 1;
      const body = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
      blocks.push({ line: start + 1, body, skip });
    }
    if (lines[i].trim() !== '') skip = undefined;
  }
  return blocks;
}

/** A block's commands: continuation lines joined, comment-only and blank lines dropped. */
export function commands(block) {
  const out = [];
  let current;
  block.body.forEach((text, k) => {
    const line = block.line + k;
    if (current) {
      current.text += `\n${text}`;
    } else {
      if (text.trim() === '' || text.trim().startsWith('#')) return;
      current = { line, text };
    }
    if (!/\\\s*$/.test(text)) {
      out.push(current);
      current = undefined;
    }
  });
  return out;
}

/** The exit a command's trailing comment promises ("# exits 3 ..."), 0 otherwise. */
export function expectedExit(text) {
  const m = /#[^\n]*\bexits? (\d+)\b[^\n]*$/.exec(text);
  return m ? Number(m[1]) : 0;
}

const SERVER = /^(?:\w+=\S+\s+)*outreach\s+(sandbox|webhooks\s+listen)\b/;

const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The bash that runs one command and checks its exit. */
function step(cmd) {
  const where = `README.md:${cmd.line}`;
  let text = cmd.text.replace(/^npm ci(?= |$)/, ': npm ci').replace(/^npm test(?= |$)/, ': npm test');
  const server = SERVER.exec(text);
  const say = `echo ${q(`+ ${where}: ${cmd.text.split('\n')[0]}`)}`;
  if (server) {
    // Comments end the command: the added flags go before one.
    const hash = text.search(/\s#/);
    const run = hash < 0 ? text : text.slice(0, hash);
    const extra = server[1] === 'sandbox' ? ' --port 0 --no-profile' : ' --port 0';
    text = `${run.trimEnd()}${extra}`;
    return `${say}
(${text}) > "$CHECK_TMP/server.log" 2>&1 &
server=$!
for _ in $(seq 150); do grep -qi 'listening' "$CHECK_TMP/server.log" && break; sleep 0.1; done
grep -qi 'listening' "$CHECK_TMP/server.log" || { cat "$CHECK_TMP/server.log"; echo ${q(`${where}: never said it was listening`)} >&2; kill -KILL $server; exit 1; }
kill -TERM $server; wait $server; rc=$?
[ $rc -eq 0 ] || { cat "$CHECK_TMP/server.log"; echo ${q(`${where}: exited `)}"$rc"${q(' on SIGTERM, expected 0')} >&2; exit 1; }
`;
  }
  const want = expectedExit(text);
  return `${say}
${text}
rc=$?
[ $rc -eq ${want} ] || { echo ${q(`${where}: exited `)}"$rc"${q(`, the README says ${want}`)} >&2; exit 1; }
`;
}

export function script(markdown) {
  const parts = ['set -u', 'cd "$CHECK_REPO"'];
  const skipped = [];
  for (const block of shellBlocks(markdown)) {
    if (block.skip) {
      skipped.push(`README.md:${block.line} (${block.skip})`);
      continue;
    }
    for (const cmd of commands(block)) parts.push(step(cmd));
  }
  return { text: `${parts.join('\n')}\necho 'readme-check: every command exited as documented'\n`, skipped };
}

async function main() {
  const started = Date.now();
  const tmp = mkdtempSync(join(tmpdir(), 'outreach-readme-'));
  const repo = join(tmp, 'repo');
  const home = join(tmp, 'home');
  const prefix = join(tmp, 'npm-prefix');
  mkdirSync(home);
  mkdirSync(join(tmp, 'tmp'));
  let sandbox;
  try {
    // A fresh copy of what a clone holds (the tracked files, as they are in the working tree).
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT }).toString().split('\0').filter(Boolean);
    for (const f of tracked) cpSync(join(ROOT, f), join(repo, f), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'));
    const env = {
      PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      OUTREACH_CONFIG_DIR: join(home, '.config', 'outreach'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      // What the commands leave in the temporary directory (the demo keeps its results there) goes with the check's.
      TMPDIR: join(tmp, 'tmp'),
      TZ: 'UTC',
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
      npm_config_prefix: prefix,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_loglevel: 'error',
      CHECK_TMP: tmp,
      CHECK_REPO: repo,
    };
    const npm = (args) => execFileSync('npm', args, { cwd: repo, env, stdio: 'pipe' });
    npm(['run', 'build']);
    npm(['link', '--ignore-scripts']); // as README says; the build just ran

    // Checks complete in 0.1 s instead of 2, and a day of outreach takes a second (as README's
    // `sandbox --speed 86400` says): the README's --wait examples do not idle.
    sandbox = spawn('outreach', ['sandbox', '--memory', '--port', '0', '--eligibility-delay', '100', '--speed', '86400', '-o', 'json'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    await new Promise((resolveStarted, reject) => {
      sandbox.stdout.on('data', (d) => {
        log += d;
        if (log.includes('\n')) resolveStarted();
      });
      sandbox.stderr.on('data', (d) => (log += d));
      sandbox.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it started:\n${log}`)));
    });

    const { text, skipped } = script(readFileSync(README, 'utf8'));
    writeFileSync(join(tmp, 'readme.sh'), text);
    const bash = spawn('bash', [join(tmp, 'readme.sh')], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    bash.stdout.on('data', (d) => (out += d));
    bash.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => bash.kill('SIGKILL'), TIME_LIMIT_MS);
    const code = await new Promise((r) => bash.on('close', (c) => r(c)));
    clearTimeout(timer);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (code !== 0) {
      process.stdout.write(`${out}\nreadme-check: FAILED after ${seconds} s${code === null ? ` (over ${TIME_LIMIT_MS / 1000} s)` : ''}; ${KEEP ? `the script and the copy are in ${tmp}` : 'run it with --keep to keep the script and the copy'}\n`);
      process.exitCode = 1;
    } else {
      const ran = out.split('\n').filter((l) => l.startsWith('+ ')).length;
      process.stdout.write(`readme-check: ${ran} commands ran as documented in ${seconds} s; not run: ${skipped.join(', ') || 'none'}\n`);
    }
  } finally {
    sandbox?.kill('SIGTERM');
    if (sandbox && sandbox.exitCode === null) await new Promise((r) => sandbox.once('exit', r));
    if (!KEEP) rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main().catch((err) => {
    process.stderr.write(`readme-check: ${err.message}\n`);
    process.exitCode = 1;
  });
}
