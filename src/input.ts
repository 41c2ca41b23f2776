// Reading user-supplied JSON and stdin: inline JSON, @file or - for stdin, with errors that give
// the file and the position of a syntax error.
import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { jsonErrorOffset, lineAndColumn } from './jsonPosition.js';

export async function readStdin(io: Io): Promise<string> {
  if (io.isStdinTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** "Unexpected token } at line 3, column 8": where the JSON first goes wrong. */
export function describeJsonError(text: string, err: unknown): string {
  const offset = jsonErrorOffset(text);
  const msg = ((err as Error).message ?? String(err)).replace(/,\s*".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  if (offset < 0) return msg;
  const { line, column } = lineAndColumn(text, offset);
  const what = offset >= text.length ? 'unexpected end of input' : msg;
  return `${what} at line ${line}, column ${column}`;
}

export function parseJsonText(text: string, source: string): unknown {
  if (text.trim() === '') throw new UsageError(`${source} is empty: expected JSON.`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON: ${describeJsonError(text, err)}.`);
  }
}

/** A flag value that is inline JSON, @file, or - (stdin). */
export async function readJsonArgument(value: string, flag: string, io: Io): Promise<unknown> {
  if (value === '-') return parseJsonText(await readStdin(io), `${flag} (stdin)`);
  if (value.startsWith('@')) return readJsonFile(value.slice(1), flag);
  return parseJsonText(value, flag);
}

/** --input FILE|- : a whole request body. */
export async function readJsonInput(pathOrDash: string, flag: string, io: Io): Promise<unknown> {
  if (pathOrDash === '-') return parseJsonText(await readStdin(io), `${flag} (stdin)`);
  return readJsonFile(pathOrDash, flag);
}

export async function readJsonFile(path: string, flag: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${flag}: file ${path} does not exist.` : `${flag}: cannot read ${path} (${code ?? 'error'}).`,
    );
  }
  return parseJsonText(text, `${flag} file ${path}`);
}
