import type { Command } from 'commander';
import * as list from './list.js';
import * as use from './use.js';

export function register(program: Command): void {
  const profiles = program.command('profiles').description('List stored profiles or switch the active one');
  list.register(profiles);
  use.register(profiles);
}
