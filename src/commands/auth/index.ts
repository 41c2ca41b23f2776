import type { Command } from 'commander';
import * as status from './status.js';

export function register(program: Command): void {
  const auth = program.command('auth').description('Show which key and service are in use');
  status.register(auth);
}
