import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as status from './status.js';

export function register(program: Command): void {
  const auth = program.command('auth').description('Show which key and service are in use')
    .addHelpText(
      'after',
      examples(
        'outreach auth status',
        'OUTREACH_API_KEY=... outreach auth status -o json',
      ),
    );
  status.register(auth);
}
