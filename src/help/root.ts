// The root help (`outreach`, `outreach --help`), after gh's: commands grouped (core work, more, local
// tools) and short enough for a 24-row terminal. Options, environment and exit codes are help topics.
import type { Help } from 'commander';
import { COMMANDS, type CommandGroup } from '../commands/manifest.js';
import { TOPICS } from './topics.js';

/** The "more" commands, a line per theme so the root help stays short. */
const MORE_ROWS: Array<{ names: string[]; summary: string }> = [
  { names: ['assistants', 'tools'], summary: 'Voice assistants and the functions they call' },
  { names: ['phone-numbers'], summary: "The organisation's phone numbers" },
  { names: ['webhooks'], summary: 'Receive the webhooks the service sends' },
  { names: ['login', 'logout', 'auth', 'profiles'], summary: 'Store API keys; which key and service are used' },
  { names: ['health', 'api'], summary: 'Check the service answers; a raw request' },
];

function rows(group: CommandGroup): Array<[string, string]> {
  if (group === 'more') return MORE_ROWS.map((r) => [r.names.join(', '), r.summary]);
  return COMMANDS.filter((c) => c.group === group).map((c) => [c.name, c.summary]);
}

/** Every command the root help names (a test checks none is left out). */
export function commandsNamedInRootHelp(): string[] {
  return [...rows('core'), ...rows('more'), ...rows('local')].flatMap(([names]) => names.split(', '));
}

export function rootHelp(helper: Help): string {
  const groups: Array<[string, CommandGroup]> = [
    ['Core commands:', 'core'],
    ['More commands:', 'more'],
    ['Local tools:', 'local'],
  ];
  const width = helper.helpWidth ?? 80;
  const lines = ['Patient outreach and insurance eligibility from the command line.', 'Usage: outreach <command> [subcommand] [options]'];
  for (const [title, group] of groups) {
    const items = rows(group);
    const termWidth = Math.max(...items.map(([term]) => term.length));
    lines.push('', title, ...items.map(([term, summary]) => helper.formatItem(term, termWidth, summary, helper)));
  }
  lines.push(
    '',
    helper.boxWrap(`Help topics: outreach help ${TOPICS.map((t) => t.name).join(' | ')}`, width),
    helper.boxWrap('Each command: outreach <command> --help', width),
    helper.boxWrap('No account? Run `outreach sandbox` in one terminal, commands in another.', width),
  );
  return `${lines.join('\n')}\n`;
}
