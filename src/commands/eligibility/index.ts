import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as check from './check.js';
import * as get from './get.js';
import * as list from './list.js';
import * as payers from './payers.js';
import * as watch from './watch.js';

export function register(program: Command): void {
  const eligibility = program
    .command('eligibility')
    .alias('elig')
    .description('Insurance eligibility checks: submit one or a CSV of them, list, read, watch, supported payers')
    .addHelpText(
      'after',
      examples(
        'outreach eligibility check --input request.json --wait',
        'outreach eligibility check --csv patients.csv --out results.csv',
        'outreach eligibility watch 2 3',
        'outreach eligibility list --status completed',
      ),
    );
  check.register(eligibility);
  list.register(eligibility);
  get.register(eligibility);
  watch.register(eligibility);
  payers.register(eligibility);
}
