// Every top-level command: its name and summary (enough for the root help and for suggestions)
// and how to load it. A command's module is loaded only when it runs or its help is asked for.
import type { Command } from 'commander';

export interface CommandEntry {
  name: string;
  summary: string;
  aliases?: string[];
  load: () => Promise<{ register(program: Command): void }>;
}

export const COMMANDS: CommandEntry[] = [
  { name: 'login', summary: 'Store an API key in a profile (checked against the service first)', load: () => import('./login.js') },
  { name: 'logout', summary: 'Remove a stored profile and its key', load: () => import('./logout.js') },
  { name: 'auth', summary: 'Show which key and service are in use', load: () => import('./auth/index.js') },
  { name: 'profiles', summary: 'List stored profiles or switch the active one', load: () => import('./profiles/index.js') },
  { name: 'health', summary: 'Check that the service answers', load: () => import('./health.js') },
  { name: 'api', summary: "Make a raw request with the profile's auth and print the body", load: () => import('./api.js') },
  { name: 'calls', summary: 'List, read and delete call records', load: () => import('./calls/index.js') },
  { name: 'assistants', summary: 'Create or update voice assistants', aliases: ['assistant'], load: () => import('./assistants/index.js') },
  { name: 'tools', summary: 'Update the tools (functions) assistants can call', aliases: ['tool'], load: () => import('./tools/index.js') },
  { name: 'phone-numbers', summary: 'List the phone numbers of the organisation', aliases: ['numbers'], load: () => import('./phone-numbers/index.js') },
  { name: 'eligibility', summary: 'Insurance eligibility checks: check (one or a CSV), list, get, watch, payers', aliases: ['elig'], load: () => import('./eligibility/index.js') },
  { name: 'sequences', summary: 'Batch-upload patients from CSV; list, show, update sequences and their metrics', load: () => import('./sequences/index.js') },
  { name: 'definitions', summary: 'Sequence definitions: list, show (the inputs a CSV needs), update', load: () => import('./definitions/index.js') },
  { name: 'webhooks', summary: 'Receive and show webhooks locally (eligibility results, call and sequence reports)', aliases: ['webhook'], load: () => import('./webhooks/index.js') },
  { name: 'sandbox', summary: 'Run the local sandbox service (the whole API, in SQLite) until Ctrl-C', load: () => import('./sandbox.js') },
  { name: 'completion', summary: 'Print a shell completion script (bash, zsh, fish)', load: () => import('./completion.js') },
];

/** Placeholders stand in for commands not loaded yet (root help, suggestions). */
export const placeholders = new WeakSet<Command>();

/** Registers every command fully (completion needs the whole tree). */
export async function registerAll(program: Command): Promise<void> {
  for (const entry of COMMANDS) {
    const existing = program.commands.find((c) => c.name() === entry.name);
    if (existing && !placeholders.has(existing)) continue;
    if (existing) (program as unknown as { commands: Command[] }).commands.splice(program.commands.indexOf(existing), 1);
    (await entry.load()).register(program);
  }
}
