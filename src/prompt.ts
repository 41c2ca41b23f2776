// Prompts (@inquirer/prompts) bound to stdin/stderr so stdout stays clean for pipes. Callers decide
// with io.canPrompt first; without a terminal a missing answer is a usage error naming the flag.
import { InterruptedError, UsageError } from './errors.js';
import type { Io } from './io.js';
import { terminalSafe } from './output/safe.js';

/**
 * What a Ctrl-C at a question leaves behind, said after "Interrupted at the question:" (default:
 * "nothing was sent"). A question asked after something was done says what (calls delete: "nothing
 * was deleted").
 */
export interface Interruptible {
  interrupted?: string;
}

export interface Prompter {
  text(message: string, opts?: { default?: string; validate?: (v: string) => true | string } & Interruptible): Promise<string>;
  /** A hidden answer (an API key): nothing is echoed, not even one `*` per character. */
  secret(message: string, opts?: Interruptible): Promise<string>;
  confirm(message: string, opts?: { default?: boolean } & Interruptible): Promise<boolean>;
  select<T extends string>(message: string, choices: Array<{ value: T; name?: string; description?: string }>, opts?: Interruptible): Promise<T>;
}

/** The end of a run the user stopped at a question (exit 130, no "error:"). */
export function interruptedAtQuestion(left = 'nothing was sent'): InterruptedError {
  return new InterruptedError(`Interrupted at the question: ${left}.`);
}

export async function createPrompter(io: Io, signal: AbortSignal): Promise<Prompter> {
  if (!io.canPrompt) {
    throw new UsageError('Cannot prompt: no terminal (or --no-input / CI is set).');
  }
  const prompts = await import('@inquirer/prompts');
  const context = { input: io.stdin, output: io.stderr, signal };
  // Ctrl-C inside a prompt must exit 130, not 0 (see DESIGN.md's pitfalls).
  const guard = async <T>(p: Promise<T>, opts: Interruptible = {}): Promise<T> => {
    try {
      return await p;
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'AbortError') {
        throw interruptedAtQuestion(opts.interrupted);
      }
      throw err;
    }
  };
  // Questions and choices name outside text (a definition's name, a CSV's columns, the service's
  // payers): shown inert. A choice's value is returned as it was given, untouched.
  const safe = (s: string) => terminalSafe(s, { multiline: true });
  return {
    text: (message, opts = {}) =>
      guard(prompts.input({ message: safe(message), default: opts.default, validate: opts.validate }, context), opts),
    // No mask: a `*` per character would show the key's length to anyone looking at the screen. The
    // question says so itself, in place of inquirer's "[input is masked]" tip.
    secret: (message, opts = {}) =>
      guard(
        prompts.password(
          { message: `${safe(message)} (input hidden)`, validate: (v) => (v.trim() ? true : 'Required'), theme: { style: { help: () => '' } } },
          context,
        ),
        opts,
      ),
    confirm: (message, opts = {}) => guard(prompts.confirm({ message: safe(message), default: opts.default ?? false }, context), opts),
    select: (message, choices, opts = {}) =>
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
        opts,
      ),
  };
}
