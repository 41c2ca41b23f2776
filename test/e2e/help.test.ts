// Help as a person at an 80-column terminal reads it: every command's help fits, the root help fits
// 24 rows, required options are marked, no empty defaults, topics, examples on every group command,
// and a chosen set of help examples runs as printed against the sandbox.
import { execFile } from 'node:child_process';
import type { Command } from 'commander';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBufferStreams } from '../../src/io.js';
import { buildProgram } from '../../src/main.js';
import { COMMANDS, registerAll } from '../../src/commands/manifest.js';
import { commandsNamedInRootHelp } from '../../src/help/root.js';
import { BIN, baseEnv, runCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const tmp = tempDir('outreach-help-');
afterAll(() => tmp.cleanup());
const env = { ...baseEnv(tmp.dir), COLUMNS: '80' };

/** Every command path of the program (`calls list`, `eligibility watch`...), groups included. */
async function commandPaths(): Promise<string[][]> {
  const program = buildProgram('0.0.0', createBufferStreams().streams);
  await registerAll(program);
  const paths: string[][] = [];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      if (sub.name() === 'help') continue;
      paths.push([...path, sub.name()]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return paths;
}

const tooWide = (text: string, width: number) => text.split('\n').filter((l) => stringWidth(l) > width);

describe('help at 80 columns', () => {
  it('every command and group: no line wider than 80, no empty default, an example, the global options named', async () => {
    const paths = await commandPaths();
    expect(paths.length).toBeGreaterThan(35);
    for (const path of paths) {
      const r = await runCli([...path, '--help'], { env });
      const name = path.join(' ');
      expect(r.code, name).toBe(0);
      expect(tooWide(r.stdout, 80), name).toEqual([]);
      expect(r.stdout, name).not.toMatch(/\(default: (\[\]|""|\{\}|false)\)/);
      expect(r.stdout, name).toContain('\nExamples:\n  $ outreach');
      expect(r.stdout, name).toContain('Options every command takes: outreach help options');
    }
  });

  it('narrower and wider terminals: help follows the width (COLUMNS or the terminal)', async () => {
    const narrow = await runCli(['sequences', 'batch', '--help'], { env: { ...env, COLUMNS: '60' } });
    expect(tooWide(narrow.stdout, 60)).toEqual([]);
    const wide = await runCli(['sequences', 'batch', '--help'], { env: { ...env, COLUMNS: '160' } });
    // The notes, written hard-wrapped in the source, use the whole width.
    expect(tooWide(wide.stdout, 160)).toEqual([]);
    expect(tooWide(wide.stdout, 120).some((l) => l.startsWith('unknown (sent, but the service neither confirmed nor named it'))).toBe(true);
  });

  it('the root help is grouped, names every command and fits 24 rows', async () => {
    for (const argv of [['--help'], ['help'], []]) {
      const r = await runCli(argv, { env });
      const out = r.stdout || r.stderr;
      expect(out.trimEnd().split('\n').length, argv.join(' ')).toBeLessThanOrEqual(24);
      expect(tooWide(out, 80)).toEqual([]);
      expect(out).toMatch(/Core commands:\n {2}eligibility .*\n {2}sequences .*\n {2}definitions .*\n {2}calls /);
      expect(out).toContain('More commands:');
      expect(out).toMatch(/Local tools:\n {2}sandbox .*\n {2}completion /);
      expect(out).toContain('outreach help environment | exit-codes | formats | options');
      expect(out).not.toContain('Exit codes:');
    }
    expect(commandsNamedInRootHelp().sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });

  it('required options are marked: requiredOption, and --definition of batch (enforced in code)', async () => {
    const batch = await runCli(['sequences', 'batch', '--help'], { env });
    expect(batch.stdout.replace(/\s+/g, ' ')).toMatch(/--definition <id> sequence definition the rows are for \(outreach definitions list\) \(required unless --definition-file\)/);
    expect(batch.stdout).not.toContain('(default: [])');
    expect(batch.stdout).toContain('(default: US)');
    const update = await runCli(['definitions', 'update', '--help'], { env });
    expect(update.stdout).toMatch(/--input <file> +JSON body: FILE or - for stdin \(required\)/);
  });
});

describe('help topics', () => {
  it('outreach help exit-codes | environment | formats | options', async () => {
    const codes = await runCli(['help', 'exit-codes'], { env });
    expect(codes.code).toBe(0);
    expect(codes.stdout).toMatch(/^ {4}0 {2}success$/m);
    expect(codes.stdout).toMatch(/^ {2}130 {2}interrupted/m);
    const envTopic = await runCli(['help', 'environment'], { env });
    expect(envTopic.stdout).toMatch(/OUTREACH_API_KEY +API key/);
    expect(envTopic.stdout).toContain('OUTREACH_CONFIG_DIR');
    const formats = await runCli(['help', 'formats'], { env });
    expect(formats.stdout).toMatch(/ndjson +one JSON record per line/);
    const options = await runCli(['help', 'options'], { env });
    expect(options.stdout).toMatch(/--base-url <url> +service address including \/v1/);
    expect(options.stdout).toMatch(/--no-input +never prompt/);
    for (const r of [codes, envTopic, formats, options]) expect(tooWide(r.stdout, 80)).toEqual([]);
  });

  it('help for a command still works through `help`; an unknown name is a usage error listing the topics', async () => {
    const calls = await runCli(['help', 'calls'], { env });
    expect(calls.code).toBe(0);
    expect(calls.stdout).toContain('Usage: outreach calls');
    const bad = await runCli(['help', 'exitcodes'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('No help topic or command named "exitcodes"');
    expect(bad.stderr).toContain('Topics: environment, exit-codes, formats, options');
  });
});

describe('help examples run as printed (sandbox)', () => {
  let sbx: TestSandbox;
  beforeAll(async () => {
    sbx = await startTestSandbox();
  });
  afterAll(() => sbx.close());

  /** The examples of a help text, continuation lines joined as the shell joins them. */
  function examplesOf(help: string): string[] {
    const block = help.split('\nExamples:\n')[1]!.split('\n\n')[0]!;
    return block
      .replace(/ \\\n\s+/g, ' ')
      .split('\n')
      .filter((l) => l.startsWith('  $ '))
      .map((l) => l.slice(4));
  }

  // Asynchronous: the sandbox answers from this process.
  function shell(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const outreach = `${process.execPath} ${BIN}`;
    const script = command.replace(/\boutreach\b(?= )/g, outreach);
    return new Promise((resolve) => {
      execFile('bash', ['-o', 'pipefail', '-c', script], { env: sbx.env(tmp.dir), cwd: tmp.dir, encoding: 'utf8' }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  it("eligibility watch's jq example reads the output it documents", async () => {
    const submit = await runCli(['eligibility', 'check', '--input', 'fixtures/eligibility-request.json', '-q'], { env: sbx.env(tmp.dir) });
    expect(submit.code, submit.stderr).toBe(0);
    const id = submit.stdout.trim();
    const help = await runCli(['eligibility', 'watch', '--help'], { env });
    const jq = examplesOf(help.stdout).find((e) => e.includes('| jq'))!;
    expect(jq).toBeDefined();
    const r = await shell(jq.replace('watch 42', `watch ${id}`));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^(true|false)$/);
  });

  it('calls delete pipes xargs -r: nothing to delete runs nothing and exits 0', async () => {
    const help = await runCli(['calls', 'delete', '--help'], { env });
    const pipe = examplesOf(help.stdout).find((e) => e.includes('xargs'))!;
    expect(pipe).toContain('xargs -r ');
    // No call is that old: the list is empty and delete must not run (without -r it would, exit 2).
    const r = await shell(pipe.replace('--until 30d', '--until 2000-01-01'));
    expect(r.code, r.stderr).toBe(0);
  });

  it('the examples of the topics and of read-only commands run against the sandbox', async () => {
    const helps = [['help', 'formats'], ['calls', 'list', '--help'], ['definitions', '--help'], ['phone-numbers', 'list', '--help'], ['profiles', '--help']];
    let ran = 0;
    for (const argv of helps) {
      const help = await runCli(argv, { env });
      for (const example of examplesOf(help.stdout)) {
        if (/request\.json|profiles use|--assistant/.test(example)) continue; // need a file or another profile
        const r = await shell(example);
        expect(r.code, `${example}\n${r.stderr}`).toBe(0);
        ran++;
      }
    }
    expect(ran).toBeGreaterThanOrEqual(10);
  });
});

describe('a reader that stops early', () => {
  it('`outreach sequences batch --help | head -1`: no EPIPE stack trace, exit 0', async () => {
    const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
      execFile('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" sequences batch --help | head -1`], (err, out, errText) =>
        resolve({ stdout: out, stderr: errText, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
      );
    });
    expect(stdout).toMatch(/^Usage: outreach sequences batch/);
    expect(stderr).not.toMatch(/EPIPE|at .*\.js/);
    expect(code).toBe(0);
  });
});
