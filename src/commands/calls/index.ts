import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as del from './delete.js';
import * as get from './get.js';
import * as list from './list.js';

export function register(program: Command): void {
  const calls = program.command('calls').description('List, read and delete call records')
    .addHelpText(
      'after',
      examples(
        'outreach calls list --since 7d',
        'outreach calls get 17 --transcript',
        'outreach calls delete 17 18 --yes',
      ),
    );
  list.register(calls);
  get.register(calls);
  del.register(calls);
}
