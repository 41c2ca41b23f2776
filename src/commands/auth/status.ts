import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { AuthError, CliError } from '../../errors.js';
import { writeRecord } from '../../output/writer.js';

export function register(auth: Command): void {
  auth
    .command('status')
    .description('Profile, base URL, where the key comes from (masked), and whether the service accepts it')
    .addHelpText('after', examples('outreach auth status', 'OUTREACH_API_KEY=... outreach auth status -o json'))
    .action(action(run));
}

interface Status {
  profile: string;
  base_url: string;
  base_url_source: string;
  key: string | null;
  key_source: string | null;
  service_reachable: boolean;
  key_accepted: boolean | null;
  problem: string | null;
}

export async function run(_opts: object, ctx: Context): Promise<void> {
  const settings = await ctx.settings();
  const { maskKey } = await import('../../config/profiles.js');
  const client = await ctx.client({ anonymous: true });
  const status: Status = {
    profile: settings.profileName,
    base_url: settings.baseUrl,
    base_url_source: settings.baseUrlSource,
    key: settings.apiKey ? maskKey(settings.apiKey) : null,
    key_source: settings.apiKeySource === 'env' ? 'env OUTREACH_API_KEY' : settings.apiKeySource === 'profile' ? 'config file' : null,
    service_reachable: false,
    key_accepted: null,
    problem: null,
  };
  let failure: CliError | undefined;
  try {
    await client.get('/health', { anonymous: true, maxRetries: 1 });
    status.service_reachable = true;
    if (settings.apiKey) {
      await client.get('/eligibility', { query: { limit: 1 } });
      status.key_accepted = true;
    } else if (settings.keyWithheld) {
      const { keyWithheldError } = await import('../../config/settings.js');
      failure = keyWithheldError(settings.keyWithheld);
    } else {
      failure = new AuthError('No API key found.', {
        hint: 'Run `outreach login`, or set OUTREACH_API_KEY.',
      });
    }
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    failure = err;
    if (status.service_reachable && err.exitCode === 4) status.key_accepted = false;
  }
  status.problem = failure?.message ?? null;
  await writeRecord(ctx, status, [
    // On a terminal in words; piped and in csv each field on its own, as -o json has them.
    { label: 'profile', key: 'profile', value: (s) => s.profile },
    { label: 'base URL', key: 'base_url', value: (s) => s.base_url, display: (s) => `${s.base_url} (${s.base_url_source})` },
    { label: 'base URL from', key: 'base_url_source', value: (s) => s.base_url_source, scriptOnly: true },
    { label: 'key', key: 'key', value: (s) => s.key, display: (s) => (s.key ? `${s.key} (from ${s.key_source})` : 'none') },
    { label: 'key from', key: 'key_source', value: (s) => s.key_source, scriptOnly: true },
    {
      label: 'service',
      key: 'service_reachable',
      value: (s) => s.service_reachable,
      display: (s) => (s.service_reachable ? 'reachable' : 'unreachable'),
      style: (t, _r, c) => (t === 'reachable' ? c.green(t) : c.red(t)),
    },
    {
      label: 'key accepted',
      key: 'key_accepted',
      value: (s) => s.key_accepted,
      display: (s) => (s.key_accepted === null ? 'unknown' : s.key_accepted ? 'yes' : 'no'),
      style: (t, _r, c) => (t === 'yes' ? c.green(t) : c.red(t)),
    },
  ]);
  if (failure) throw failure;
}
