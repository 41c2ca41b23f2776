// Help text laid out at help time (src/help/format.ts): paragraphs re-flowed to the width, example
// commands broken only between arguments with a shell continuation, JSON arguments only between
// tokens.
import { execFileSync } from 'node:child_process';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { exampleLines, reflowHelpText } from '../../src/help/format.js';

const widest = (text: string) => Math.max(...text.split('\n').map((l) => stringWidth(l)));

describe('reflowHelpText', () => {
  it('joins the lines of a hard-wrapped paragraph and wraps them to the width', () => {
    const text = 'Row statuses in --out: created (the service confirmed it), invalid (a local\ncheck names it), skipped.\n';
    const out = reflowHelpText(text, 40);
    expect(widest(out)).toBeLessThanOrEqual(40);
    expect(out.replace(/\s+/g, ' ').trim()).toBe(text.replace(/\s+/g, ' ').trim());
  });

  it('keeps a new sentence on a new line and blank lines between paragraphs', () => {
    const out = reflowHelpText('The record is printed.\nExit: 0 completed.\n\nNext paragraph.', 80);
    expect(out).toBe('The record is printed.\nExit: 0 completed.\n\nNext paragraph.');
  });

  it('wraps an indented line under its own indent, and never breaks a word at a width it fits', () => {
    const out = reflowHelpText('  ignored: "Column One", "Column Two", "Column Three", "Column Four"', 40);
    for (const line of out.split('\n')) expect(line.startsWith('  ')).toBe(true);
    expect(widest(out)).toBeLessThanOrEqual(40);
    expect(out).toContain('"Column Three"');
  });

  it('measures display width: CJK text wraps at half the characters', () => {
    const out = reflowHelpText('患者 '.repeat(30), 40);
    expect(widest(out)).toBeLessThanOrEqual(40);
    expect(out.split('\n').length).toBeGreaterThan(2);
  });
});

describe('exampleLines', () => {
  it('leaves an example that fits alone', () => {
    expect(exampleLines('  ', 'outreach calls list', 80)).toEqual(['  $ outreach calls list']);
  });

  it('breaks a long example between arguments, a flag with its value, never inside quotes', () => {
    const cmd = 'outreach sequences batch export.csv --definition 2 --map "Cell Phone=phoneNumber" --map "Visit Date=visitDate" --validate-only';
    const lines = exampleLines('  ', cmd, 60);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    for (const line of lines.slice(0, -1)) expect(line.endsWith(' \\')).toBe(true);
    expect(lines.some((l) => l.includes('--map "Cell Phone=phoneNumber"'))).toBe(true);
    expect(lines.some((l) => l.includes('--definition 2'))).toBe(true);
  });

  it('puts a trailing comment that does not fit on its own line above the command', () => {
    const lines = exampleLines('  ', 'outreach sequences batch patients.csv --definition 1 --yes --out results.csv   # cron: no prompt', 80);
    expect(lines[0]).toBe('  # cron: no prompt');
    expect(lines[1]).toBe('  $ outreach sequences batch patients.csv --definition 1 --yes --out results.csv');
  });

  it('the broken example still runs in a shell, a long JSON argument cut between its tokens', () => {
    const json = '{"steps":[{"order":1,"type":"voice","config":{"scheduled_at":"2030-05-17T16:00:00Z","note":"a, b"}}]}';
    const lines = exampleLines('  ', `printf %s '${json}' | cat`, 64);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(64);
    const script = lines.join('\n').replace(/^\s*\$ /, '');
    const out = execFileSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(JSON.parse(json));
  });
});
