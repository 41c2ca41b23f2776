import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as get from './get.js';
import * as list from './list.js';
import * as update from './update.js';

export function register(program: Command): void {
  const defs = program.command('definitions').description('Sequence definitions: list, get (the inputs a CSV needs), update')
    .addHelpText(
      'after',
      examples(
        'outreach definitions list',
        'outreach definitions get 1',
        'outreach definitions get 1 -o json > def1.json',
      ),
    );
  list.register(defs);
  get.register(defs);
  update.register(defs);
}
