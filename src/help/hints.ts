// Hints where people get stuck, for errors whose fix depends on where a setting came from (a flag,
// the environment, a stored profile): main asks here before printing an error. Hints that need only
// the request (a refused connection to this machine: start the sandbox) are given by the http core.
import type { Context } from '../context.js';
import { ApiError, type CliError } from '../errors.js';
import type { Settings } from '../config/settings.js';

/** A better hint for `err` given the run's settings, or undefined to keep the error's own. */
export async function settingsHint(err: CliError, ctx: Context | undefined): Promise<string | undefined> {
  if (!(err instanceof ApiError) || !ctx) return undefined;
  let settings: Settings;
  try {
    settings = await ctx.settings();
  } catch {
    return undefined; // the settings are what failed: their error already says why
  }
  if (err.status === 404) return missingV1Hint(settings);
  if (err.status === 401 || err.status === 403) return keyHint(err.status, settings, ctx);
  return undefined;
}

/** A 404 from a base URL without /v1: every path misses, whatever the command. */
export function missingV1Hint(s: Pick<Settings, 'baseUrl' | 'baseUrlSource' | 'profileName'>): string | undefined {
  const url = new URL(s.baseUrl);
  if (url.pathname.replace(/\/+$/, '').endsWith('/v1')) return undefined;
  const fixed = `${s.baseUrl.replace(/\/+$/, '')}/v1`;
  const lacks = `The base URL ${s.baseUrl} has no /v1.`;
  switch (s.baseUrlSource) {
    case 'flag':
      return `${lacks} Did you mean --base-url ${fixed}?`;
    case 'env':
      return `${lacks} Did you mean OUTREACH_BASE_URL=${fixed}?`;
    case 'profile':
      return `${lacks} It is stored in profile "${s.profileName}": fix it with \`outreach login --profile ${s.profileName} --base-url ${fixed}\`.`;
    default:
      return undefined;
  }
}

/** A refused key: where it came from and how to replace it there. */
async function keyHint(status: number, s: Settings, ctx: Context): Promise<string | undefined> {
  const refused = status === 401 ? 'was refused' : 'is known to the service but may not do this';
  if (s.apiKeySource === 'env') {
    return (
      `The key ${refused}; it came from OUTREACH_API_KEY. ` +
      (status === 401 ? 'Set OUTREACH_API_KEY to a valid key, or unset it to use a stored profile.' : 'Use a key of the organisation that owns this record.')
    );
  }
  if (s.apiKeySource === 'profile') {
    const where = await ctx
      .store()
      .then((store) => ` (${store.path})`)
      .catch(() => '');
    return (
      `The key ${refused}; it is stored in profile "${s.profileName}"${where}. ` +
      (status === 401
        ? `Store a valid one with \`outreach login --profile ${s.profileName}\`, or set OUTREACH_API_KEY.`
        : 'Use a key of the organisation that owns this record.')
    );
  }
  return undefined;
}
