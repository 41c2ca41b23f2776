import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as list from './list.js';

export function register(program: Command): void {
  const phoneNumbers = program.command('phone-numbers').alias('numbers').description('List the phone numbers of the organisation')
    .addHelpText(
      'after',
      examples(
        'outreach phone-numbers',
        'outreach phone-numbers list --assistant 3',
      ),
    );
  list.register(phoneNumbers);
}
