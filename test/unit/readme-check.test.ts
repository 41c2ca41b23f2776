// scripts/readme-check.mjs reads README.md's commands: blocks, continuation lines, skip markers and
// the exit each command is documented to have.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without types
import { commands, expectedExit, script, shellBlocks } from '../../scripts/readme-check.mjs';

const README = [
  'Text.',
  '```sh',
  'outreach health   # exits 0',
  '# a comment line',
  'outreach eligibility check --first-name Ana \\',
  '  --payer 87726',
  'outreach sequences batch bad.csv --definition 1 --validate-only   # exits 3: mistakes',
  '```',
  '<!-- readme-check: skip (needs the registry) -->',
  '```sh',
  'npm install -g ./outreach-cli-*.tgz',
  '```',
  '```ts',
  'not shell',
  '```',
  '```sh',
  'WEBHOOK_SECRET=s outreach webhooks listen --port 4011 --secret-env WEBHOOK_SECRET',
  '```',
].join('\n');

describe('readme-check', () => {
  it('finds the sh blocks, their lines and skip markers', () => {
    const blocks = shellBlocks(README);
    expect(blocks.map((b: { line: number; skip?: string }) => [b.line, b.skip])).toEqual([
      [3, undefined],
      [11, 'needs the registry'],
      [17, undefined],
    ]);
    expect(commands(blocks[0]).map((c: { line: number; text: string }) => [c.line, c.text])).toEqual([
      [3, 'outreach health   # exits 0'],
      [5, 'outreach eligibility check --first-name Ana \\\n  --payer 87726'],
      [7, 'outreach sequences batch bad.csv --definition 1 --validate-only   # exits 3: mistakes'],
    ]);
  });

  it('expects exit 0 unless a trailing comment says otherwise', () => {
    expect(expectedExit('outreach health')).toBe(0);
    expect(expectedExit('outreach x --validate-only   # exits 3: mistakes')).toBe(3);
    expect(expectedExit('outreach x   # exit 124 at the timeout')).toBe(124);
  });

  it('runs servers with --port 0 until they say they listen, then stops them; skips marked blocks', () => {
    const { text, skipped } = script(README);
    expect(skipped).toEqual(['README.md:11 (needs the registry)']);
    expect(text).not.toContain('npm install -g');
    expect(text).toContain('(WEBHOOK_SECRET=s outreach webhooks listen --port 4011 --secret-env WEBHOOK_SECRET --port 0) > "$CHECK_TMP/server.log"');
    expect(text).toContain('kill -TERM $server');
    expect(text).toContain("[ $rc -eq 3 ] || { echo 'README.md:7: exited ");
  });
});
