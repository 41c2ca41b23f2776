import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as patch from './patch.js';

export function register(program: Command): void {
  const tools = program.command('tools').alias('tool').description('Update the tools (functions) assistants can call')
    .addHelpText(
      'after',
      examples(
        'outreach tools patch 0b7d5c1e-... --async',
        'outreach tools patch 0b7d5c1e-... --function @fixtures/tool-function.json',
      ),
    );
  patch.register(tools);
}
