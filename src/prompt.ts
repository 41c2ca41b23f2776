// Prompts (@inquirer/prompts) bound to stdin/stderr so stdout stays clean for pipes. Callers decide
// with io.canPrompt first; without a terminal a missing answer is a usage error naming the flag.
import { InterruptedError, UsageError } from './errors.js';
import type { Io } from './io.js';
import { terminalSafe } from './output/safe.js';

export interface Prompter {
  text(message: string, opts?: { default?: string; validate?: (v: string) => true | string }): Promise<string>;
  secret(message: string): Promise<string>;
  confirm(message: string, opts?: { default?: boolean }): Promise<boolean>;
  select<T extends string>(message: string, choices: Array<{ value: T; name?: string; description?: string }>): Promise<T>;
}

export async function createPrompter(io: Io, signal: AbortSignal): Promise<Prompter> {
  if (!io.canPrompt) {
    throw new UsageError('Cannot prompt: no terminal (or --no-input / CI is set).');
  }
  const prompts = await import('@inquirer/prompts');
  const context = { input: io.stdin, output: io.stderr, signal };
  // Ctrl-C inside a prompt must exit 130, not 0 (see DESIGN.md's pitfalls).
  const guard = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'AbortError') {
        throw new InterruptedError();
      }
      throw err;
    }
  };
  // Questions and choices name outside text (a definition's name, a CSV's columns, the service's
  // payers): shown inert. A choice's value is returned as it was given, untouched.
  const safe = (s: string) => terminalSafe(s, { multiline: true });
  return {
    text: (message, opts = {}) =>
      guard(prompts.input({ message: safe(message), default: opts.default, validate: opts.validate }, context)),
    secret: (message) =>
      guard(prompts.password({ message: safe(message), mask: '*', validate: (v) => (v.trim() ? true : 'Required') }, context)),
    confirm: (message, opts = {}) => guard(prompts.confirm({ message: safe(message), default: opts.default ?? false }, context)),
    select: (message, choices) =>
      guard(
        prompts.select(
          {
            message: safe(message),
            choices: choices.map((c) => ({
              ...c,
              name: terminalSafe(c.name ?? c.value),
              ...(c.description === undefined ? {} : { description: safe(c.description) }),
            })),
            pageSize: 12,
          },
          context,
        ),
      ),
  };
}
