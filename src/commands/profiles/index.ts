import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as list from './list.js';
import * as use from './use.js';

export function register(program: Command): void {
  const profiles = program.command('profiles').description('List stored profiles or switch the active one')
    .addHelpText(
      'after',
      examples(
        'outreach profiles list',
        'outreach profiles use sandbox',
      ),
    );
  list.register(profiles);
  use.register(profiles);
}
