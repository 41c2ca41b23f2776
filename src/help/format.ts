// Help text laid out at help time for the width of the run's terminal: our own paragraphs (written
// hard-wrapped in the source) are re-flowed, indented lines keep their indent, and example commands
// are broken only between arguments, with a shell line continuation so they still run when pasted.
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

/** Help's width: the terminal's columns, else COLUMNS, else 80 (a file or a pager). */
export function helpWidthOf(stream: unknown, env: NodeJS.ProcessEnv): number {
  const s = stream as { isTTY?: boolean; columns?: number };
  const cols = s.isTTY && s.columns ? s.columns : Number(env.COLUMNS) || 80;
  // Below about 40 columns nothing reads well; wrapping narrower only scatters words.
  return Math.max(40, cols);
}

const EXAMPLE = /^(\s*)\$ (.*)$/;
const CONTINUATION_INDENT = '      ';

/**
 * Lays out a block of help text for `width` columns. Lines of one paragraph are joined and wrapped
 * again; a line starts a new paragraph after a blank line, after an indented line, or when it opens
 * a new sentence (the line before ends with `.`, `:` or `)`, and it starts with a capital).
 */
export function reflowHelpText(text: string, width: number): string {
  const out: string[] = [];
  let paragraph: string | undefined;
  const flush = () => {
    if (paragraph !== undefined) out.push(wrapAnsi(paragraph, width, { hard: true, trim: true }));
    paragraph = undefined;
  };
  for (const line of text.split('\n')) {
    const example = EXAMPLE.exec(line);
    if (line.trim() === '') {
      flush();
      out.push('');
    } else if (example) {
      flush();
      out.push(...exampleLines(example[1]!, example[2]!, width));
    } else if (/^\s/.test(line)) {
      flush();
      out.push(indented(line, width));
    } else if (paragraph !== undefined && !opensSentence(paragraph, line)) {
      paragraph += ` ${line}`;
    } else {
      flush();
      paragraph = line;
    }
  }
  flush();
  return out.join('\n');
}

function opensSentence(before: string, line: string): boolean {
  return /[.:)]$/.test(before) && /^[A-Z]/.test(line);
}

/** An indented line wrapped within the width, its continuation lines under its first word. */
function indented(line: string, width: number): string {
  const indent = /^\s*/.exec(line)![0];
  const wrapped = wrapAnsi(line.trim(), Math.max(20, width - indent.length), { hard: true, trim: true });
  return wrapped
    .split('\n')
    .map((l) => indent + l)
    .join('\n');
}

/**
 * An example command (`  $ outreach ...  # comment`) within the width when its arguments allow:
 * broken between arguments (never inside a quoted one), each line but the last ending in ` \`. A
 * trailing comment that does not fit goes on its own line above the command.
 */
export function exampleLines(indent: string, command: string, width: number): string[] {
  const prompt = `${indent}$ `;
  const whole = `${prompt}${command}`;
  if (stringWidth(whole) <= width) return [whole];
  const commentAt = command.search(/\s+# /);
  if (commentAt > 0) {
    const comment = command.slice(commentAt).trim();
    return [`${indent}${comment}`, ...exampleLines(indent, command.slice(0, commentAt), width)];
  }
  const words = command.match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [command];
  const lines: string[] = [];
  let current = prompt + words[0];
  for (const word of words.slice(1)) {
    // Room is kept for the ` \` that ends every line but the last.
    if (stringWidth(`${current} ${word} \\`) <= width) current += ` ${word}`;
    else {
      lines.push(`${current} \\`);
      current = `${indent}${CONTINUATION_INDENT}${word}`;
    }
  }
  lines.push(current);
  return lines;
}

/** Display width of help text (CJK and emoji count as two columns), colour codes ignored. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}
