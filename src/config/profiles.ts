// Stored profiles: a JSON file (mode 0600) managed by `conf`, in OUTREACH_CONFIG_DIR or the user's
// config dir. Loaded only by commands that need it, so `--help` and env-only runs never touch it.
import { chmodSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, UsageError } from '../errors.js';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  /** Supported payers learned from the service's last unsupported-payer answer (eligibility payers). */
  payersCache?: { fetchedAt: string; payers: unknown[] };
}

interface StoreShape {
  activeProfile?: string;
  profiles?: Record<string, Profile>;
}

const CONFIG_FILE_NAME = 'config';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OUTREACH_CONFIG_DIR) return env.OUTREACH_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'outreach');
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(
      `Invalid profile name "${name}": use letters, digits, ".", "_" or "-" (at most 64 characters).`,
    );
  }
  return name;
}

type ConfInstance = {
  path: string;
  store: StoreShape;
};

export class ProfileStore {
  private constructor(private readonly conf: ConfInstance) {}

  static async open(env: NodeJS.ProcessEnv = process.env): Promise<ProfileStore> {
    const dir = configDir(env);
    const file = join(dir, `${CONFIG_FILE_NAME}.json`);
    const { default: Conf } = await import('conf');
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const conf = new Conf<StoreShape>({
        projectName: 'outreach',
        projectSuffix: '',
        cwd: dir,
        configName: CONFIG_FILE_NAME,
        configFileMode: 0o600,
        clearInvalidConfig: false, // a corrupt file is reported, never silently replaced
      }) as unknown as ConfInstance;
      const store = new ProfileStore(conf);
      store.read(); // surface a corrupt file now, with its name
      return store;
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw configFileError(file, err);
    }
  }

  get path(): string {
    return this.conf.path;
  }

  private read(): StoreShape {
    let data: StoreShape;
    try {
      data = this.conf.store;
    } catch (err) {
      throw configFileError(this.conf.path, err);
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw new ConfigError(`The config file ${this.conf.path} does not hold a JSON object.`, {
        hint: 'Fix or remove the file; it was left untouched.',
      });
    }
    if (data.profiles !== undefined && (typeof data.profiles !== 'object' || data.profiles === null)) {
      throw new ConfigError(`The config file ${this.conf.path} has an invalid "profiles" entry.`, {
        hint: 'Fix or remove the file; it was left untouched.',
      });
    }
    return data;
  }

  private write(data: StoreShape): void {
    try {
      this.conf.store = data;
      chmodSync(this.conf.path, 0o600); // also tightens a file created by hand or an older version
    } catch (err) {
      throw configFileError(this.conf.path, err);
    }
  }

  get activeName(): string | undefined {
    return this.read().activeProfile;
  }

  profiles(): Record<string, Profile> {
    return { ...(this.read().profiles ?? {}) };
  }

  get(name: string): Profile | undefined {
    return this.read().profiles?.[name];
  }

  /** Creates or updates a profile; the first profile stored becomes the active one. */
  save(name: string, profile: Profile, opts: { activate?: boolean } = {}): void {
    const data = this.read();
    const profiles = { ...(data.profiles ?? {}) };
    profiles[checkProfileName(name)] = { ...profiles[name], ...profile };
    const activeProfile = opts.activate || !data.activeProfile ? name : data.activeProfile;
    this.write({ ...data, profiles, activeProfile });
  }

  update(name: string, patch: Partial<Profile>): void {
    const data = this.read();
    const current = data.profiles?.[name];
    if (!current) return;
    this.write({ ...data, profiles: { ...data.profiles, [name]: { ...current, ...patch } } });
  }

  remove(name: string): boolean {
    const data = this.read();
    if (!data.profiles?.[name]) return false;
    const profiles = { ...data.profiles };
    delete profiles[name];
    const activeProfile = data.activeProfile === name ? Object.keys(profiles)[0] : data.activeProfile;
    this.write({ profiles, ...(activeProfile ? { activeProfile } : {}) });
    return true;
  }

  removeAll(): number {
    const count = Object.keys(this.read().profiles ?? {}).length;
    this.write({ profiles: {} });
    return count;
  }

  use(name: string): void {
    const data = this.read();
    if (!data.profiles?.[name]) {
      const known = Object.keys(data.profiles ?? {});
      throw new UsageError(`No profile named "${name}".`, {
        hint: known.length
          ? `Stored profiles: ${known.join(', ')}.`
          : 'No profiles are stored yet: run `outreach login`.',
      });
    }
    this.write({ ...data, activeProfile: name });
  }
}

function configFileError(file: string, err: unknown): ConfigError {
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'SyntaxError') {
    return new ConfigError(`The config file ${file} is not valid JSON.`, {
      hint: 'Fix or remove the file; it was left untouched.',
      cause: err,
    });
  }
  if (e?.code === 'EACCES' || e?.code === 'EPERM') {
    return new ConfigError(`The config file ${file} cannot be read or written (permission denied).`, {
      cause: err,
    });
  }
  if (e?.code === 'EISDIR' || e?.code === 'ENOTDIR') {
    return new ConfigError(`The config path ${file} is not a regular file.`, { cause: err });
  }
  return new ConfigError(`The config file ${file} cannot be used: ${e?.message ?? String(err)}`, {
    cause: err,
  });
}

/** Shows only the last 4 characters of a key. */
export function maskKey(key: string): string {
  if (key.length <= 4) return '****';
  return `****${key.slice(-4)}`;
}
