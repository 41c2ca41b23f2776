import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { createTestIo } from '../../src/io.js';
import type { Prompter } from '../../src/prompt.js';
import { readSecret, type SecretSource } from '../../src/secret.js';

const SECRET = 's3cret-VALUE_42';

/** A context with the given environment, stdin and terminal; records what the prompt was asked. */
function ctxWith(opts: { env?: NodeJS.ProcessEnv; stdin?: string; tty?: boolean; canPrompt?: boolean; answer?: string } = {}) {
  const { io } = createTestIo({ stdin: opts.stdin, tty: opts.tty, canPrompt: opts.canPrompt });
  const asked: string[] = [];
  const prompter = {
    secret: async (message: string) => {
      asked.push(message);
      return opts.answer ?? '';
    },
  } as Prompter;
  return { ctx: { env: opts.env ?? {}, io, prompter: async () => prompter }, asked };
}

const ENV: SecretSource = { what: 'webhook secret', envFlag: '--secret-env' };
const STDIN: SecretSource = { what: 'webhook secret', stdinFlag: '--secret-stdin', useStdin: true };

/** The usage error (exit 2) a read throws. */
async function usageError(p: Promise<unknown>): Promise<UsageError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  expect((err as UsageError).exitCode).toBe(2);
  return err as UsageError;
}

describe('readSecret from an environment variable', () => {
  it('returns the value with surrounding whitespace and the trailing newline trimmed, nothing else changed', async () => {
    const { ctx } = ctxWith({ env: { HOOK: `  ${SECRET} x\n` } });
    expect(await readSecret(ctx, { ...ENV, envVar: 'HOOK' })).toBe(`${SECRET} x`);
  });

  it.each([
    ['unset', {}],
    ['empty', { HOOK: '' }],
    ['only whitespace', { HOOK: ' \n\t' }],
  ])('%s → usage error naming the flag and the variable', async (_what, env) => {
    const { ctx } = ctxWith({ env });
    const err = await usageError(readSecret(ctx, { ...ENV, envVar: 'HOOK' }));
    expect(err.message).toBe('--secret-env HOOK: the environment variable HOOK is not set or is empty.');
  });

  it('a name not in the usual upper case is not repeated when unset: it may be the secret itself', async () => {
    const { ctx } = ctxWith({ env: { HOOK: SECRET } });
    const err = await usageError(readSecret(ctx, { ...ENV, envVar: 'mySecretValue9' }));
    expect(err.message).toBe(
      '--secret-env: the environment variable it names is not set or is empty (the name is not repeated: it may be the webhook secret itself).',
    );
    const { ctx: set } = ctxWith({ env: { lower_case: SECRET } });
    expect(await readSecret(set, { ...ENV, envVar: 'lower_case' })).toBe(SECRET);
  });

  it('a value that is not a variable name (the secret pasted in its place) is refused and not repeated', async () => {
    const { ctx } = ctxWith();
    const pasted = 'abc-123:def';
    const err = await usageError(readSecret(ctx, { ...ENV, envVar: pasted }));
    expect(err.message).toContain('--secret-env takes the name of an environment variable');
    expect(`${err.message} ${err.hint}`).not.toContain(pasted);
  });
});

describe('readSecret from stdin', () => {
  it('trims the trailing newline and surrounding whitespace', async () => {
    const { ctx } = ctxWith({ stdin: `\t${SECRET}  \r\n` });
    expect(await readSecret(ctx, STDIN)).toBe(SECRET);
  });

  it('empty stdin → usage error naming the flag and saying how to pipe it', async () => {
    const { ctx } = ctxWith({ stdin: '\n' });
    const err = await usageError(readSecret(ctx, { ...STDIN, pipeExample: 'echo "$S" | outreach x --secret-stdin' }));
    expect(err.message).toBe('--secret-stdin: stdin was empty; pipe the webhook secret in, e.g. `echo "$S" | outreach x --secret-stdin`.');
  });

  it('a terminal on stdin → usage error saying how to pipe it, without waiting for input', async () => {
    const { ctx, asked } = ctxWith({ tty: true, canPrompt: true });
    const err = await usageError(readSecret(ctx, { ...STDIN, pipeExample: 'echo "$S" | outreach x --secret-stdin' }));
    expect(err.message).toBe('--secret-stdin reads the webhook secret from stdin, which is a terminal here: pipe it in, e.g. `echo "$S" | outreach x --secret-stdin`.');
    expect(asked).toEqual([]);
  });

  it('another input already reading stdin → usage error naming both', async () => {
    const { ctx } = ctxWith({ stdin: SECRET });
    const err = await usageError(readSecret(ctx, { ...STDIN, stdinTakenBy: '--input -' }));
    expect(err.message).toBe('Only one input can come from stdin, but --input - and --secret-stdin both ask for it.');
  });

  it('a line break inside (two lines piped) → usage error that does not show either line', async () => {
    const { ctx } = ctxWith({ stdin: `${SECRET}\nsecond-line\n` });
    const err = await usageError(readSecret(ctx, STDIN));
    expect(err.message).toBe('--secret-stdin: the webhook secret holds a line break or control character; give it on one line.');
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain('second-line');
  });
});

describe('readSecret: choosing the source', () => {
  it('an environment variable and stdin both asked for → usage error, nothing read', async () => {
    const { ctx } = ctxWith({ env: { HOOK: SECRET }, stdin: SECRET });
    const err = await usageError(readSecret(ctx, { ...ENV, ...STDIN, envVar: 'HOOK' }));
    expect(err.message).toBe('Give the webhook secret one way: --secret-env or --secret-stdin, not both.');
  });

  it('neither asked for and no prompt offered → undefined (no secret)', async () => {
    const { ctx, asked } = ctxWith({ tty: true, canPrompt: true, env: { HOOK: SECRET } });
    expect(await readSecret(ctx, { what: 'webhook secret', envFlag: '--secret-env', stdinFlag: '--secret-stdin' })).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('a prompt is offered: asked hidden on a terminal, the answer trimmed', async () => {
    const { ctx, asked } = ctxWith({ tty: true, canPrompt: true, answer: ` ${SECRET}\n` });
    expect(await readSecret(ctx, { what: 'API key', stdinFlag: '--with-key', prompt: 'API key for http://x' })).toBe(SECRET);
    expect(asked).toEqual(['API key for http://x']);
  });

  it('a prompt is offered but there is no terminal → usage error with the hint, nothing asked', async () => {
    const { ctx, asked } = ctxWith({ stdin: '' });
    const err = await usageError(
      readSecret(ctx, { what: 'API key', stdinFlag: '--with-key', prompt: 'API key', pipeExample: 'echo "$KEY" | outreach login --with-key' }),
    );
    expect(err.message).toBe('No terminal to prompt for the API key.');
    expect(err.hint).toBe('Pipe it in: `echo "$KEY" | outreach login --with-key`.');
    expect(asked).toEqual([]);
    const custom = await usageError(readSecret(ctx, { what: 'API key', prompt: 'API key', noTerminalHint: 'Use --with-key.' }));
    expect(custom.hint).toBe('Use --with-key.');
  });

  it('a flag given wins over the prompt', async () => {
    const { ctx, asked } = ctxWith({ tty: false, canPrompt: true, stdin: `${SECRET}\n` });
    expect(await readSecret(ctx, { what: 'API key', stdinFlag: '--with-key', useStdin: true, prompt: 'API key' })).toBe(SECRET);
    expect(asked).toEqual([]);
  });
});

describe('readSecret never shows the secret in a message', () => {
  it.each([
    ['control character in the variable', { env: { HOOK: `${SECRET}\u001b[2J` } }, { ...ENV, envVar: 'HOOK' }],
    ['line break on stdin', { stdin: `${SECRET}\r\nmore` }, STDIN],
    ['both sources', { env: { HOOK: SECRET }, stdin: SECRET }, { ...ENV, ...STDIN, envVar: 'HOOK' }],
    ['the secret given as the variable name', {}, { ...ENV, envVar: SECRET.replace(/-/g, '_') }],
  ] as const)('%s', async (_what, opts, src) => {
    const { ctx } = ctxWith(opts);
    const err = await usageError(readSecret(ctx, src));
    const text = `${err.message}\n${err.hint ?? ''}`;
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.replace(/-/g, '_'));
  });
});
