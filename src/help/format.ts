// Help text laid out at help time for the width of the run's terminal: our own paragraphs (written
// hard-wrapped in the source) are re-flowed, indented lines keep their indent, and example commands
// are broken only between arguments, with a shell line continuation so they still run when pasted.
import { eastAsianWidth } from 'get-east-asian-width';

// Help is laid out with a width table and a plain word wrap, not string-width and wrap-ansi: those
// build an Intl.Segmenter when loaded (about 40 ms, a third of a bare `outreach --help`), and help
// is our own text, without colour codes or emoji sequences. CJK still counts two columns.

/** Display width of help text: two columns for East Asian wide characters, one for the rest. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += eastAsianWidth(ch.codePointAt(0)!);
  return width;
}

/**
 * Plain text wrapped at spaces to `width` columns, as wrap-ansi's `{ hard: true, trim: true }` does:
 * runs of spaces inside a line kept (aligned columns), none at a line's ends, a word wider than a
 * line broken.
 */
function wrapWords(text: string, width: number): string {
  const lines: string[] = [];
  let line: string | undefined;
  const end = () => {
    if (line !== undefined) lines.push(line.trimEnd());
    line = undefined;
  };
  for (let word of text.split(' ')) {
    if (line === undefined && word === '') continue;
    while (displayWidth(word) > width) {
      end();
      let head = '';
      for (const ch of word) {
        if (displayWidth(head + ch) > width) break;
        head += ch;
      }
      lines.push(head);
      word = word.slice(head.length);
    }
    if (word === '' && line === undefined) continue;
    const candidate = line === undefined ? word : `${line} ${word}`;
    if (displayWidth(candidate) <= width) line = candidate;
    else {
      end();
      line = word || undefined;
    }
  }
  end();
  return lines.join('\n');
}

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
    if (paragraph !== undefined) out.push(wrapWords(paragraph, width));
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
  const wrapped = wrapWords(line.trim(), Math.max(20, width - indent.length));
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
  if (displayWidth(whole) <= width) return [whole];
  const commentAt = command.search(/\s+# /);
  if (commentAt > 0) {
    const comment = command.slice(commentAt).trim();
    return [`${indent}${comment}`, ...exampleLines(indent, command.slice(0, commentAt), width)];
  }
  const words = withValues(command.match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [command]);
  const next = `${indent}${CONTINUATION_INDENT}`;
  const fits = (line: string) => displayWidth(line) <= width;
  const lines: string[] = [];
  let current = prompt + words[0];
  for (const word of words.slice(1)) {
    // Room is kept for the ` \` that ends every line but the last.
    if (fits(`${current} ${word} \\`)) {
      current += ` ${word}`;
      continue;
    }
    const pieces = fits(next + word) ? [word] : jsonPieces(word);
    if (pieces.length > 1 && fits(`${current} ${pieces[0]}`)) current += ` ${pieces[0]}`;
    else {
      lines.push(`${current} \\`);
      current = next + pieces[0];
    }
    // Inside the quotes a plain line break is whitespace between JSON tokens: no ` \` there.
    for (const piece of pieces.slice(1)) {
      if (fits(`${current}${piece} \\`)) current += piece;
      else {
        lines.push(current);
        current = next + piece;
      }
    }
  }
  lines.push(current);
  return lines;
}

/** A flag and its value stay on one line (`--out results.csv`, `-o json`). */
function withValues(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const value = words[i + 1];
    if (/^--?[A-Za-z]/.test(word) && !word.includes('=') && value !== undefined && !/^(-|\||>|&|;)/.test(value) && value.length <= 30) {
      out.push(`${word} ${value}`);
      i++;
    } else out.push(word);
  }
  return out;
}

/**
 * A single-quoted JSON argument too long for a line, cut after each comma between JSON tokens (never
 * inside a JSON string); any other word is left whole.
 */
function jsonPieces(word: string): string[] {
  if (!/^'[[{].*[\]}]'$/s.test(word)) return [word];
  const pieces: string[] = [];
  let inString = false;
  let start = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if (inString && c === '\\') i++;
    else if (c === '"') inString = !inString;
    else if (c === ',' && !inString) {
      pieces.push(word.slice(start, i + 1));
      start = i + 1;
    }
  }
  pieces.push(word.slice(start));
  return pieces;
}
