// Every failure a command can report, each carrying the exit code of CLI.md. Only src/cli.ts turns
// them into an exit; commands and the API layer just throw.

export const ExitCode = {
  ok: 0,
  service: 1,
  usage: 2,
  validation: 3,
  auth: 4,
  notFound: 5,
  network: 6,
  incomplete: 7,
  timeout: 124,
  interrupted: 130,
} as const;

/**
 * The one policy for a run that ends several ways at once (several ids watched, a bulk run with
 * rows in different states): any failure beats 0, then the highest code — an interruption (130),
 * then a wait that gave up (124), work left undone (7), and so on down to a usage error (2).
 */
export function worstExit(codes: Iterable<number>): number {
  let worst = 0;
  for (const c of codes) if (c > worst) worst = c;
  return worst;
}

export interface CliErrorOptions {
  code?: string;
  hint?: string;
  status?: number;
  details?: unknown;
  cause?: unknown;
}

export class CliError extends Error {
  readonly exitCode: number;
  readonly code: string;
  readonly hint?: string;
  readonly status?: number;
  readonly details?: unknown;

  constructor(message: string, exitCode: number, opts: CliErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = opts.code ?? 'error';
    this.hint = opts.hint;
    this.status = opts.status;
    this.details = opts.details;
  }
}

/** Bad flag, missing argument, unreadable or malformed input file (exit 2). */
export class UsageError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.usage, { code: 'usage', ...opts });
  }
}

/** Rows or fields rejected, locally or by the service (exit 3). */
export class ValidationError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.validation, { code: 'validation', ...opts });
  }
}

/** Some work done, some not; the message says how to resume (exit 7). */
export class IncompleteError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.incomplete, { code: 'incomplete', ...opts });
  }
}

/** `watch` / `--wait` gave up at --timeout (exit 124). */
export class WaitTimeoutError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.timeout, { code: 'timeout', ...opts });
  }
}

/** Ctrl-C (exit 130). */
export class InterruptedError extends CliError {
  constructor(message = 'Interrupted.', opts: CliErrorOptions = {}) {
    super(message, ExitCode.interrupted, { code: 'interrupted', ...opts });
  }
}

/** A config file that cannot be read or parsed: never replaced silently (exit 2). */
export class ConfigError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.usage, { code: 'config', ...opts });
  }
}

// --- errors from the service or the way to it (status subclasses and fateOf: src/api/errors.ts) ---------------------------------------------------

/** Any non-2xx answer, normalised from the different error bodies of API.md. */
export class ApiError extends CliError {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly requestId?: string;
  /** The service's Retry-After, in milliseconds, when it sent one (429/503). */
  readonly retryAfterMs?: number;
  /** A body that was not JSON (an HTML page from a proxy): shown only under --debug. */
  readonly rawBody?: string;

  constructor(
    message: string,
    exitCode: number,
    opts: CliErrorOptions & { method: string; path: string; body?: unknown; rawBody?: string; requestId?: string; retryAfterMs?: number },
  ) {
    super(message, exitCode, opts);
    this.method = opts.method;
    this.path = opts.path;
    this.body = opts.body;
    this.rawBody = opts.rawBody;
    this.requestId = opts.requestId;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** No key, or the service answered 401/403 (exit 4). */
export class AuthError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.auth, { code: 'auth', ...opts });
  }
}

/** Unreachable, connection failed, or timed out after the retries (exit 6). */
export class NetworkError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.network, { code: 'network', ...opts });
  }
}

/** The service answered something we cannot read (exit 1). */
export class MalformedResponseError extends CliError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, ExitCode.service, { code: 'malformed_response', ...opts });
  }
}

/** The fate of a request that may have acted is unknown (timeout or connection lost after sending). */
export class UnknownOutcomeError extends NetworkError {
  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message, { code: 'unknown_outcome', ...opts });
  }
}
