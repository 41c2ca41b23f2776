import type { Command } from 'commander';
import * as patch from './patch.js';

export function register(program: Command): void {
  const tools = program.command('tools').alias('tool').description('Update the tools (functions) assistants can call');
  patch.register(tools);
}
