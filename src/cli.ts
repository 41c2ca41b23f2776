// The entry bin/outreach.js loads (built to dist/cli.js): runs main with the process's streams,
// environment and Ctrl-C, and is the only place that exits. Everything else is in main.ts.
import { ExitCode } from './errors.js';
import { main } from './main.js';

const ctrlC = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  // The first Ctrl-C goes to main (a batch finishes its journal); a second one ends the process.
  if (++interrupts === 1) return ctrlC.abort();
  process.stderr.write('\nInterrupted.\n');
  process.exit(ExitCode.interrupted);
});

// A reader that stops early (`outreach calls list | head`) closes the pipe: what is left to print
// is dropped, and the command still ends as it would (a batch finishes its journal), no stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
  throw err;
});

const code = await main(process.argv.slice(2), { io: process, env: process.env, signal: ctrlC.signal });
process.stdout.write('', () => process.exit(code));
