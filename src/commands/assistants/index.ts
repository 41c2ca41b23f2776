import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as create from './create.js';
import * as patch from './patch.js';

export function register(program: Command): void {
  const assistants = program.command('assistants').alias('assistant').description('Create or update voice assistants')
    .addHelpText(
      'after',
      examples(
        'outreach assistants create --name "Reminder line"',
        'outreach assistants patch 3 --first-message "Hi, this is the clinic."',
      ),
    );
  create.register(assistants);
  patch.register(assistants);
}
