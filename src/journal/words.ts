// The words every resumable run uses to say how to continue: the exact command, quoted for a POSIX
// shell, after "To continue:".

export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./=:,+@%-]+$/.test(s)) return s;
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** A command line from its arguments, each quoted as needed. */
export function commandLine(args: readonly string[]): string {
  return args.map(shellQuote).join(' ');
}

export function toContinue(command: string): string {
  return `To continue: ${command}`;
}

/** "2-5, 9, 12-14": consecutive lines as ranges, at most `max` items, then "and N more lines". */
export function lineList(lines: Iterable<number>, max = 12): string {
  const all = [...new Set(lines)].sort((a, b) => a - b);
  const ranges: Array<[number, number]> = [];
  for (const l of all) {
    const last = ranges[ranges.length - 1];
    if (last && l === last[1] + 1) last[1] = l;
    else ranges.push([l, l]);
  }
  const shown = ranges.slice(0, max).map(([a, b]) => (a === b ? String(a) : `${a}-${b}`));
  const rest = ranges.slice(max).reduce((n, [a, b]) => n + b - a + 1, 0);
  return shown.join(', ') + (rest ? ` and ${rest} more line${rest === 1 ? '' : 's'}` : '');
}
