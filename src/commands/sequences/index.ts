import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as batch from './batch.js';
import * as get from './get.js';
import * as list from './list.js';
import * as metrics from './metrics.js';
import * as outcomes from './outcomes.js';
import * as update from './update.js';

export function register(program: Command): void {
  const seq = program.command('sequences').description('Outreach sequences: batch upload from CSV, outcomes back to the spreadsheet, list, get, update, metrics')
    .addHelpText(
      'after',
      examples(
        'outreach sequences batch patients.csv --definition 1 --validate-only',
        'outreach sequences batch patients.csv --definition 1 --out results.csv',
        'outreach sequences outcomes patients.csv --from results.csv --out followup.csv',
        'outreach sequences list --status in-progress',
        'outreach sequences get 12 --metrics',
      ),
    );
  batch.register(seq);
  outcomes.register(seq);
  list.register(seq);
  get.register(seq);
  update.register(seq);
  metrics.register(seq);
}
