import type { Command } from 'commander';
import * as listen from './listen.js';

export function register(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .alias('webhook')
    .description('See the webhooks the service sends (eligibility results, end-of-call and end-of-sequence reports)');
  listen.register(webhooks);
}
