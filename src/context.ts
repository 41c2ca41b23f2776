// What every command is given: io, the parsed global options, and lazily created settings, client
// and prompter. Nothing heavy is loaded until a command asks for it.
import type { HttpClient, HttpClientOptions } from './api/http.js';
import type { ProfileStore } from './config/profiles.js';
import type { Settings } from './config/settings.js';
import type { Io } from './io.js';
import type { Format } from './output/format.js';
import type { Prompter } from './prompt.js';
import { terminalSafe } from './output/safe.js';
import { realClock, type Clock } from './util/clock.js';

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  format: Format;
  /** -o/--json was given explicitly (otherwise table is the default). */
  formatExplicit: boolean;
  quiet: boolean;
  debug: boolean;
  requestTimeoutSec: number;
  noInput: boolean;
}

export interface Context {
  io: Io;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Time and waiting (virtual in tests): every backoff, quiet period and poll interval sleeps here. */
  clock: Clock;
  now(): Date;
  /** Writes a --debug line to stderr (already redacted by the caller). */
  debug(line: string): void;
  /** Progress and notes on stderr; silent with --quiet. */
  info(text: string): void;
  warn(text: string): Promise<void>;
  store(): Promise<ProfileStore>;
  settings(): Promise<Settings>;
  /** A client for the resolved base URL; throws AuthError (exit 4) when no key is known, unless anonymous. */
  client(opts?: { anonymous?: boolean; bulk?: boolean }): Promise<HttpClient>;
  prompter(): Promise<Prompter>;
  /** Set by long-running commands that handle Ctrl-C themselves (e.g. to write a journal). */
  handlesInterrupt: boolean;
  /**
   * What a Ctrl-C now leaves behind, said after "Interrupted." when the interrupt ends the run: set
   * by a command while it waits on work that goes on without it ("The check goes on in the service;
   * follow it with: outreach eligibility watch 2"), cleared when that wait ends.
   */
  interruptNote?: string;
}

export interface ContextDeps {
  io: Io;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  signal: AbortSignal;
  clock?: Clock;
}

export function createContext(deps: ContextDeps): Context {
  const { io, env, globals, signal } = deps;
  let storePromise: Promise<ProfileStore> | undefined;
  let settingsPromise: Promise<Settings> | undefined;
  const clients: HttpClient[] = [];
  const clock = deps.clock ?? realClock;
  // Ctrl-C: the progress or retry line makes way before "Interrupted." is written (main.ts).
  signal.addEventListener('abort', () => io.clearLine(), { once: true });
  const ctx: Context = {
    io,
    env,
    globals,
    signal,
    handlesInterrupt: false,
    clock,
    now: () => new Date(clock.now()),
    debug: (line) => {
      if (globals.debug) io.err(`[debug] ${line}\n`);
    },
    // Notes name outside text (a definition's name, a CSV's columns, the service's words): inert on
    // stderr, line breaks of our multi-line notes kept.
    info: (text) => {
      const safe = terminalSafe(text, { multiline: true });
      if (!globals.quiet) io.err(safe.endsWith('\n') ? safe : `${safe}\n`);
    },
    warn: async (text) => {
      const chalk = await io.chalkErr();
      io.err(`${chalk.yellow('warning:')} ${terminalSafe(text, { multiline: true })}\n`);
    },
    store: () => {
      storePromise ??= import('./config/profiles.js').then((m) => m.ProfileStore.open(env));
      return storePromise;
    },
    settings: () => {
      settingsPromise ??= import('./config/settings.js').then((m) =>
        m.resolveSettings({ profile: globals.profile, baseUrl: globals.baseUrl }, env, ctx.store),
      );
      return settingsPromise;
    },
    client: async (opts = {}) => {
      const settings = await ctx.settings();
      const { requireKey } = await import('./config/settings.js');
      const apiKey = opts.anonymous ? settings.apiKey : requireKey(settings);
      const { HttpClient } = await import('./api/http.js');
      const retryHooks = await retryStatusHooks(io, clock);
      const retryBase = Number(env.OUTREACH_RETRY_BASE_MS);
      const maxRetries = env.OUTREACH_MAX_RETRIES === undefined ? undefined : Number(env.OUTREACH_MAX_RETRIES);
      const client = new HttpClient({
        baseUrl: settings.baseUrl,
        apiKey,
        timeoutMs: globals.requestTimeoutSec * 1000,
        trace: globals.debug ? ctx.debug : undefined,
        ...retryHooks,
        signal,
        // Backoffs wait on the context's clock (virtual in tests); each attempt's timeout stays on
        // real timers, as it guards a real socket.
        sleep: (ms) => clock.sleep(ms, signal),
        random: clock.random,
        now: clock.now,
        env,
        bulk: opts.bulk,
        userAgent: `outreach-cli/${__OUTREACH_VERSION__} node/${process.versions.node}`,
        retry: {
          ...(retryBase >= 0 && Number.isFinite(retryBase) && env.OUTREACH_RETRY_BASE_MS ? { baseDelayMs: retryBase } : {}),
          ...(maxRetries !== undefined && Number.isInteger(maxRetries) && maxRetries >= 0 ? { maxRetries } : {}),
        },
      });
      clients.push(client);
      return client;
    },
    prompter: async () => {
      const { createPrompter } = await import('./prompt.js');
      return createPrompter(io, signal);
    },
  };
  // Lets main close keep-alive sockets so the process exits promptly.
  (ctx as Context & { closeClients(): Promise<void> }).closeClients = async () => {
    await Promise.all(clients.map((c) => c.close()));
  };
  return ctx;
}

/**
 * A person at a terminal sees what a request being retried is doing, on the progress line or a
 * transient line of its own, counting down to the next attempt and gone when the request ends; logs
 * and pipes get nothing per retry (--debug traces each one).
 */
async function retryStatusHooks(io: Io, clock: Clock): Promise<Pick<HttpClientOptions, 'onRetryNotice' | 'onRetryEnd'>> {
  const line = await io.statusLine();
  if (!line) return {};
  const { retryStatus } = await import('./output/retryStatus.js');
  return {
    onRetryNotice: (notice) => {
      const at = clock.now() + notice.waitMs;
      line.status(notice.request, (now) => retryStatus(notice, at - now));
    },
    onRetryEnd: (request) => line.status(request, undefined),
  };
}
