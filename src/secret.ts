// Reading a secret (an API key, a webhook secret): from an environment variable named by a flag,
// from stdin, or, where a command offers it, a hidden prompt. Never from a flag holding the secret
// itself (it would sit in shell history and `ps`). One rule set for every command:
// - surrounding whitespace (the newline `echo` adds) is trimmed; nothing else is changed;
// - empty, or holding a line break or control character (it could not go in an Authorization
//   header) → usage error (exit 2) naming the flag or variable;
// - no message ever shows the secret, nor a value given where a variable name was expected unless
//   it reads as one (HOOK_SECRET): anything else may be the secret, pasted in the wrong place;
// - stdin asked for but a terminal → usage error saying how to pipe it in;
// - an environment variable and stdin both asked for, or stdin already taken by another input →
//   usage error.
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { readStdin } from './input.js';

export interface SecretSource {
  /** What the secret is, for messages: "API key", "webhook secret". */
  what: string;
  /** The flag that names an environment variable (e.g. "--secret-env")... */
  envFlag?: string;
  /** ...and the variable name it was given (undefined: the flag was not given). */
  envVar?: string;
  /** The flag that reads the secret from stdin (e.g. "--webhook-secret-stdin")... */
  stdinFlag?: string;
  /** ...and whether it was given. */
  useStdin?: boolean;
  /** Another input already read from stdin (e.g. "--input -"): stdin can be read only once. */
  stdinTakenBy?: string;
  /** A pipeline shown in "pipe it in" messages, e.g. 'echo "$KEY" | outreach login --with-key'. */
  pipeExample?: string;
  /**
   * When neither the variable nor stdin is asked for: the question of a hidden prompt on a terminal.
   * Without a terminal (or with --no-input) that is a usage error naming the stdin flag.
   */
  prompt?: string;
  /** The hint given when there is no terminal to prompt on (default: how to pipe it in). */
  noTerminalHint?: string;
  /** What a Ctrl-C at the prompt leaves behind (default: "nothing was sent"), e.g. "nothing was stored". */
  interrupted?: string;
}

type SecretContext = Pick<Context, 'env' | 'io' | 'prompter'>;

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CONVENTIONAL_NAME = /^[A-Z_][A-Z0-9_]*$/;
// C0 controls (line breaks and tabs included), DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The secret, or undefined when no source was asked for (and no prompt offered). With `prompt`,
 * a secret is always returned (or a usage error thrown).
 */
export async function readSecret(ctx: SecretContext, src: SecretSource & { prompt: string }): Promise<string>;
export async function readSecret(ctx: SecretContext, src: SecretSource): Promise<string | undefined>;
export async function readSecret(ctx: SecretContext, src: SecretSource): Promise<string | undefined> {
  const { what, envFlag = '--secret-env', envVar, stdinFlag = '--secret-stdin', useStdin = false } = src;
  const example = src.pipeExample ?? `printf '%s\\n' "$SECRET" | outreach ... ${stdinFlag}`;
  if (envVar !== undefined && useStdin) {
    throw new UsageError(`Give the ${what} one way: ${envFlag} or ${stdinFlag}, not both.`);
  }

  if (envVar !== undefined) {
    // The value is not repeated: a secret pasted where its variable's name belongs would be shown.
    if (!VARIABLE_NAME.test(envVar)) {
      throw new UsageError(`${envFlag} takes the name of an environment variable holding the ${what}, not the ${what} itself.`, {
        hint: `e.g. ${envFlag} HOOK_SECRET, with HOOK_SECRET set in the environment.`,
      });
    }
    // A conventional name (HOOK_SECRET) is named; any other may be the secret itself and is not.
    if (CONVENTIONAL_NAME.test(envVar)) {
      return checked(ctx.env[envVar], `${envFlag} ${envVar}`, `the environment variable ${envVar} is not set or is empty`, what);
    }
    return checked(
      ctx.env[envVar],
      envFlag,
      `the environment variable it names is not set or is empty (the name is not repeated: it may be the ${what} itself)`,
      what,
    );
  }

  if (useStdin) {
    if (src.stdinTakenBy) {
      throw new UsageError(`Only one input can come from stdin, but ${src.stdinTakenBy} and ${stdinFlag} both ask for it.`, {
        hint: `Give ${src.stdinTakenBy.replace(/ -$/, '')} a file instead.`,
      });
    }
    if (ctx.io.isStdinTTY) {
      throw new UsageError(`${stdinFlag} reads the ${what} from stdin, which is a terminal here: pipe it in, e.g. \`${example}\`.`);
    }
    return checked(await readStdin(ctx.io), stdinFlag, `stdin was empty; pipe the ${what} in, e.g. \`${example}\``, what);
  }

  if (src.prompt === undefined) return undefined;
  if (!ctx.io.canPrompt) {
    throw new UsageError(`No terminal to prompt for the ${what}.`, { hint: src.noTerminalHint ?? `Pipe it in: \`${example}\`.` });
  }
  const answer = await (await ctx.prompter()).secret(src.prompt, { interrupted: src.interrupted });
  return checked(answer, 'the prompt', 'nothing was entered', what);
}

function checked(raw: string | undefined, source: string, emptyText: string, what: string): string {
  const value = (raw ?? '').trim();
  if (value === '') throw new UsageError(`${source}: ${emptyText}.`);
  if (CONTROL.test(value)) {
    throw new UsageError(`${source}: the ${what} holds a line break or control character; give it on one line.`);
  }
  return value;
}
