import type { Command } from 'commander';
import * as check from './check.js';
import * as get from './get.js';
import * as list from './list.js';
import * as payers from './payers.js';
import * as watch from './watch.js';

export function register(program: Command): void {
  const eligibility = program
    .command('eligibility')
    .alias('elig')
    .description('Insurance eligibility checks: submit one or a CSV of them, list, read, watch, supported payers');
  check.register(eligibility);
  list.register(eligibility);
  get.register(eligibility);
  watch.register(eligibility);
  payers.register(eligibility);
}
