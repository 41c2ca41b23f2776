// The command that continues (or checks) a `sequences batch` run, as the messages print it.
import { commandLine } from '../journal/words.js';
import type { BatchOptions } from './types.js';

export function resumeCommand(o: BatchOptions, change: { resume?: boolean; validateOnly?: boolean; resendUnknown?: boolean }): string {
  const args = ['outreach', 'sequences', 'batch', o.file];
  if (o.definition !== undefined) args.push('--definition', String(o.definition));
  if (change.validateOnly) args.push('--validate-only');
  for (const m of o.map) args.push('--map', m);
  if (o.country.toUpperCase() !== 'US') args.push('--country', o.country);
  if (o.delimiter) args.push('--delimiter', o.delimiter === '\t' ? 'tab' : o.delimiter);
  if (o.sheet !== undefined) args.push('--sheet', o.sheet);
  if (o.nextActivity && !change.validateOnly) args.push('--next-activity', o.nextActivity);
  if (o.out) args.push('--out', o.out);
  if (o.rejects) args.push('--rejects', o.rejects);
  if (o.journal) args.push('--journal', o.journal);
  if (!change.validateOnly) {
    if (o.skipInvalid) args.push('--skip-invalid');
    if (change.resume) args.push('--resume');
    if (change.resendUnknown) args.push('--resend-unknown');
    if (o.yes) args.push('--yes');
  }
  return commandLine(args);
}
