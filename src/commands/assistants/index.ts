import type { Command } from 'commander';
import * as create from './create.js';
import * as patch from './patch.js';

export function register(program: Command): void {
  const assistants = program.command('assistants').alias('assistant').description('Create or update voice assistants');
  create.register(assistants);
  patch.register(assistants);
}
