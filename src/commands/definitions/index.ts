import type { Command } from 'commander';
import * as get from './get.js';
import * as list from './list.js';
import * as update from './update.js';

export function register(program: Command): void {
  const defs = program.command('definitions').description('Sequence definitions: list, get (the inputs a CSV needs), update');
  list.register(defs);
  get.register(defs);
  update.register(defs);
}
