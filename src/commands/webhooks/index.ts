import type { Command } from 'commander';
import { examples } from '../../command.js';
import * as listen from './listen.js';

export function register(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .alias('webhook')
    .description('See the webhooks the service sends (eligibility results, end-of-call and end-of-sequence reports)')
    .addHelpText(
      'after',
      examples(
        'outreach webhooks listen --port 4011',
        'WEBHOOK_SECRET=s3cret outreach webhooks listen --secret-env WEBHOOK_SECRET',
      ),
    );
  listen.register(webhooks);
}
