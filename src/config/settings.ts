// Which profile, base URL and key a command uses. Precedence: flag > environment > stored profile >
// default. When the environment gives both key and URL, the config file is never opened.
import { AuthError, UsageError } from '../errors.js';
import type { ProfileStore } from './profiles.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1';

export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
}

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Settings {
  profileName: string;
  profileSource: Source;
  baseUrl: string;
  baseUrlSource: Source;
  apiKey?: string;
  apiKeySource?: 'env' | 'profile';
  /**
   * Set when the profile holds a key but the base URL (from the flag or environment) is another
   * origin: the key is not used, and requireKey says why (exit 4).
   */
  keyWithheld?: { profile: string; keyOrigin: string; urlOrigin: string };
}

export function checkBaseUrl(raw: string, from: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`Invalid base URL from ${from}: it must be an http(s) URL such as ${DEFAULT_BASE_URL}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`Invalid base URL from ${from}: only http and https are supported.`);
  }
  if (url.username || url.password) {
    throw new UsageError(`Invalid base URL from ${from}: credentials do not belong in the URL.`);
  }
  return url.toString().replace(/\/+$/, '');
}

function profileNameFrom(flags: GlobalFlags, env: NodeJS.ProcessEnv): { name?: string; source: Source } {
  if (flags.profile) return { name: flags.profile, source: 'flag' };
  if (env.OUTREACH_PROFILE) return { name: env.OUTREACH_PROFILE, source: 'env' };
  return { source: 'default' };
}

export async function resolveSettings(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  openStore: () => Promise<ProfileStore>,
): Promise<Settings> {
  const envKey = env.OUTREACH_API_KEY || undefined;
  const urlFromFlagOrEnv = flags.baseUrl
    ? { url: checkBaseUrl(flags.baseUrl, '--base-url'), source: 'flag' as const }
    : env.OUTREACH_BASE_URL
      ? { url: checkBaseUrl(env.OUTREACH_BASE_URL, 'OUTREACH_BASE_URL'), source: 'env' as const }
      : undefined;
  const named = profileNameFrom(flags, env);

  // Fast path for cron: everything from the environment, no config file work at all.
  if (envKey && urlFromFlagOrEnv) {
    return {
      profileName: named.name ?? 'default',
      profileSource: named.source,
      baseUrl: urlFromFlagOrEnv.url,
      baseUrlSource: urlFromFlagOrEnv.source,
      apiKey: envKey,
      apiKeySource: 'env',
    };
  }

  const store = await openStore();
  const profileName = named.name ?? store.activeName ?? 'default';
  const profile = store.get(profileName);
  if (named.source !== 'default' && !profile && !(envKey && urlFromFlagOrEnv)) {
    const known = Object.keys(store.profiles());
    if (!envKey) {
      throw new AuthError(`No profile named "${profileName}" is stored.`, {
        hint: known.length
          ? `Stored profiles: ${known.join(', ')}. Or run \`outreach login --profile ${profileName}\`.`
          : `Run \`outreach login --profile ${profileName}\`, or set OUTREACH_API_KEY.`,
      });
    }
  }
  const stored = profile?.baseUrl ? checkBaseUrl(profile.baseUrl, `profile "${profileName}"`) : undefined;
  const base = urlFromFlagOrEnv ?? (stored ? { url: stored, source: 'profile' as const } : { url: DEFAULT_BASE_URL, source: 'default' as const });
  // A stored key belongs to the origin its profile logged in to (CLI.md, Global options): another
  // --base-url/OUTREACH_BASE_URL never receives it. OUTREACH_API_KEY is the way to use a key anywhere.
  const keyOrigin = new URL(stored ?? DEFAULT_BASE_URL).origin;
  const urlOrigin = new URL(base.url).origin;
  const withheld = !envKey && profile?.apiKey !== undefined && urlOrigin !== keyOrigin;
  const apiKey = envKey ?? (withheld ? undefined : profile?.apiKey);
  return {
    profileName,
    profileSource: named.source === 'default' && store.activeName ? 'profile' : named.source,
    baseUrl: base.url,
    baseUrlSource: base.source,
    apiKey,
    apiKeySource: envKey ? 'env' : apiKey ? 'profile' : undefined,
    ...(withheld ? { keyWithheld: { profile: profileName, keyOrigin, urlOrigin } } : {}),
  };
}

/** The refusal to send a profile's key to another origin, as an error (exit 4). */
export function keyWithheldError(w: NonNullable<Settings['keyWithheld']>): AuthError {
  return new AuthError(
    `The key stored in profile "${w.profile}" belongs to ${w.keyOrigin}; it is not sent to ${w.urlOrigin}.`,
    {
      hint:
        `To use another service, log in to it (\`outreach login --profile NAME --base-url ${w.urlOrigin}/v1\`) ` +
        'or give its key in OUTREACH_API_KEY.',
    },
  );
}

export function requireKey(settings: Settings): string {
  if (!settings.apiKey && settings.keyWithheld) throw keyWithheldError(settings.keyWithheld);
  if (!settings.apiKey) {
    throw new AuthError('No API key found.', {
      hint: 'Run `outreach login` (or `echo "$KEY" | outreach login --with-key`), or set OUTREACH_API_KEY.',
    });
  }
  return settings.apiKey;
}
