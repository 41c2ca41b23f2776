// Every top-level command: its name and summary (enough for the root help and for suggestions)
// and how to load it. A command's module is loaded only when it runs or its help is asked for.
import type { Command } from 'commander';

/** Where the root help lists a command: core work, everything else, tools that run locally. */
export type CommandGroup = 'core' | 'more' | 'local';

export interface CommandEntry {
  name: string;
  summary: string;
  group: CommandGroup;
  aliases?: string[];
  load: () => Promise<{ register(program: Command): void }>;
}

export const COMMANDS: CommandEntry[] = [
  { name: 'login', group: 'more', summary: 'Store an API key in a profile (checked against the service first)', load: () => import('./login.js') },
  { name: 'logout', group: 'more', summary: 'Remove a stored profile and its key', load: () => import('./logout.js') },
  { name: 'auth', group: 'more', summary: 'Show which key and service are in use', load: () => import('./auth/index.js') },
  { name: 'profiles', group: 'more', summary: 'List stored profiles or switch the active one', load: () => import('./profiles/index.js') },
  { name: 'health', group: 'more', summary: 'Check that the service answers', load: () => import('./health.js') },
  { name: 'api', group: 'more', summary: "Make a raw request with the profile's auth and print the body", load: () => import('./api.js') },
  { name: 'assistants', group: 'more', summary: 'Create or update voice assistants', aliases: ['assistant'], load: () => import('./assistants/index.js') },
  { name: 'tools', group: 'more', summary: 'Update the tools (functions) assistants can call', aliases: ['tool'], load: () => import('./tools/index.js') },
  { name: 'phone-numbers', group: 'more', summary: 'List the phone numbers of the organisation', aliases: ['numbers'], load: () => import('./phone-numbers/index.js') },
  { name: 'eligibility', group: 'core', summary: 'Check insurance eligibility, one patient or a CSV; list, watch', aliases: ['elig'], load: () => import('./eligibility/index.js') },
  { name: 'sequences', group: 'core', summary: 'Upload patients from a CSV into sequences; list, get, update', load: () => import('./sequences/index.js') },
  { name: 'definitions', group: 'core', summary: 'Sequence definitions: the inputs a patient CSV needs', load: () => import('./definitions/index.js') },
  { name: 'calls', group: 'core', summary: 'List, read and delete call records', load: () => import('./calls/index.js') },
  { name: 'webhooks', group: 'more', summary: 'Receive and show webhooks locally (eligibility results, call and sequence reports)', aliases: ['webhook'], load: () => import('./webhooks/index.js') },
  { name: 'sandbox', group: 'local', summary: 'Run the local service (the whole API) until Ctrl-C', load: () => import('./sandbox.js') },
  { name: 'completion', group: 'local', summary: 'Print a shell completion script (bash, zsh, fish)', load: () => import('./completion.js') },
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
