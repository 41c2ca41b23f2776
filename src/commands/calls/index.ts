import type { Command } from 'commander';
import * as del from './delete.js';
import * as get from './get.js';
import * as list from './list.js';

export function register(program: Command): void {
  const calls = program.command('calls').description('List, read and delete call records');
  list.register(calls);
  get.register(calls);
  del.register(calls);
}
