import type { Command } from 'commander';
import { action, examples } from '../command.js';
import type { Context } from '../context.js';
import { ApiError, AuthError, UsageError } from '../errors.js';
import { readSecret } from '../secret.js';

interface Options {
  withKey?: boolean;
}

export function register(program: Command): void {
  program
    .command('login')
    .description('Store an API key in a profile; the key is checked against the service before it is stored')
    .option('--with-key', 'read the key from stdin instead of a hidden prompt')
    .addHelpText(
      'after',
      examples(
        'outreach login',
        'echo "$OUTREACH_KEY" | outreach login --with-key --profile prod --base-url https://api.example.com/v1',
        'outreach login --profile sandbox --base-url http://127.0.0.1:4010/v1',
      ),
    )
    .action(action(run));
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const store = await ctx.store();
  const { checkBaseUrl, DEFAULT_BASE_URL } = await import('../config/settings.js');
  const { checkProfileName, maskKey } = await import('../config/profiles.js');
  const name = checkProfileName(ctx.globals.profile ?? ctx.env.OUTREACH_PROFILE ?? store.activeName ?? 'default');
  const existing = store.get(name);
  const baseUrl = ctx.globals.baseUrl
    ? checkBaseUrl(ctx.globals.baseUrl, '--base-url')
    : ctx.env.OUTREACH_BASE_URL
      ? checkBaseUrl(ctx.env.OUTREACH_BASE_URL, 'OUTREACH_BASE_URL')
      : (existing?.baseUrl ?? DEFAULT_BASE_URL);

  // Piped with --with-key, else a hidden prompt on a terminal; never a flag holding the key.
  const key = await readSecret(ctx, {
    what: 'API key',
    stdinFlag: '--with-key',
    useStdin: Boolean(opts.withKey),
    pipeExample: 'echo "$KEY" | outreach login --with-key',
    prompt: `API key for ${baseUrl}`,
    noTerminalHint: 'Pipe it in: `echo "$KEY" | outreach login --with-key`, or set OUTREACH_API_KEY for one-off runs.',
    interrupted: 'nothing was stored',
  });
  if (/\s/.test(key)) throw new UsageError('The API key contains whitespace; check what was pasted or piped.');

  // Check the key before storing it: a rejected key is never saved.
  const { HttpClient } = await import('../api/http.js');
  const { reword } = await import('../api/errors.js');
  const client = new HttpClient({
    baseUrl,
    apiKey: key,
    timeoutMs: ctx.globals.requestTimeoutSec * 1000,
    trace: ctx.globals.debug ? ctx.debug : undefined,
    signal: ctx.signal,
    env: ctx.env,
  });
  try {
    await client.get('/eligibility', { query: { limit: 1 } });
  } catch (err) {
    // The key refused is the one just given, not a stored one or OUTREACH_API_KEY: said so here.
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      throw new AuthError(`The service at ${baseUrl} refused this API key (${err.status}); nothing was stored.`, {
        status: err.status,
        hint: 'Check the key (copy it again) and that it belongs to this service.',
      });
    }
    // A base URL without /v1 (the settings main reads for this hint are not the ones login stores).
    if (err instanceof ApiError && err.status === 404) {
      const { missingV1Hint } = await import('../help/hints.js');
      const source = ctx.globals.baseUrl ? 'flag' : ctx.env.OUTREACH_BASE_URL ? 'env' : 'profile';
      const hint = missingV1Hint({ baseUrl, baseUrlSource: source, profileName: name });
      if (hint) throw reword(err, err.message, { hint });
    }
    throw err;
  } finally {
    await client.close();
  }
  store.save(name, { baseUrl, apiKey: key }, { activate: !store.activeName || store.activeName === name });
  if (ctx.globals.format === 'json') {
    ctx.io.out(`${JSON.stringify({ profile: name, base_url: baseUrl, key: maskKey(key), config_file: store.path }, null, 2)}\n`);
    return;
  }
  ctx.info(`Logged in to ${baseUrl} as profile "${name}" (key ${maskKey(key)}), stored in ${store.path}.`);
  if (store.activeName !== name) ctx.info(`The active profile is still "${store.activeName}"; switch with \`outreach profiles use ${name}\`.`);
}
