import type { Command } from 'commander';
import * as list from './list.js';

export function register(program: Command): void {
  const phoneNumbers = program.command('phone-numbers').alias('numbers').description('List the phone numbers of the organisation');
  list.register(phoneNumbers);
}
