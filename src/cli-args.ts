// Finding the command in argv before commander parses it (for lazy registration).

const GLOBAL_VALUE_OPTIONS = new Set(['--profile', '--base-url', '-o', '--output', '--request-timeout']);

/** The first argument that is not a global option: the command to load. */
export function findCommandName(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1];
    if (GLOBAL_VALUE_OPTIONS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return a;
  }
  return undefined;
}
