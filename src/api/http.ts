// The one HTTP core: base URL, auth header, per-request timeout, keep-alive, proxy from the
// environment, the retry policy, and every non-2xx turned into a typed error. It never prints:
// tracing goes to the `trace` callback (stderr under --debug), already redacted.
//
// Transport: Node's built-in fetch (which is undici, bundled in Node: keep-alive by default) unless a
// proxy is configured, in which case the undici package's EnvHttpProxyAgent is loaded, because
// Node 20's fetch ignores HTTP(S)_PROXY. Importing the undici package costs about 1.2× a bare node
// start on this machine against 0.4× for the built-in fetch, and most runs (cron jobs) are one
// request or a few: see bench/calls-list.mjs. A bulk run (thousands of requests) asks for the undici
// package anyway (`bulk`): its request API gives about 3× the throughput of Node 20's fetch, with
// far less garbage per request, so memory stays flat over a million rows.
import { MalformedResponseError, NetworkError, UnknownOutcomeError } from '../errors.js';
import { DEFAULT_BASE_URL } from '../config/settings.js';
import { apiErrorFrom, headerValue } from './errors.js';
import {
  DEFAULT_RETRY_POLICY,
  defaultTotalTimeoutMs,
  isRetryable,
  parseRetryAfter,
  retryDelay,
  retryFits,
  type AttemptFailure,
  type Method,
  type RetryPolicy,
} from './retry.js';
import { sleep, untilAborted, withDeadline } from '../util/deadline.js';

export interface HttpClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Limit of one attempt, from sending to the last byte of the body. */
  timeoutMs: number;
  /**
   * Limit of one logical request: every attempt and every wait between them. Default: the worst case
   * of the retry schedule (`defaultTotalTimeoutMs`); `retryFits` says how it is kept.
   */
  totalTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  trace?: (line: string) => void;
  /** Told before each retry's wait, so a terminal can show that something is happening. */
  onRetryNotice?: (notice: RetryNotice) => void;
  /** Told once when a request that was retried ends (answered or failed): its status line goes. */
  onRetryEnd?: (request: object) => void;
  userAgent?: string;
  /** The wait between attempts (the context's clock); default: real time, ended early by `signal`. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Milliseconds since the epoch, for a Retry-After given as a date. */
  now?: () => number;
  /**
   * Where HTTP(S)_PROXY and NO_PROXY are read: the run's env (ctx.env). The process's only when not
   * given (login.ts's key check does not pass it yet).
   */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Thousands of requests ahead: use the undici package's request API even without a proxy. */
  bulk?: boolean;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /** No auth header (GET /health). */
  anonymous?: boolean;
  /** The request changes nothing even though it is a POST (e.g. validate_only): may be retried. */
  idempotent?: boolean;
  /** Override the retry count for this request (0 = never retry). */
  maxRetries?: number;
  /** Told how an attempt failed before it is retried (e.g. a lost DELETE that may have landed). */
  onRetry?: (failure: AttemptFailure, attempt: number) => void;
}

export interface RetryNotice {
  /** The logical request (the same object for each of its retries, and for onRetryEnd). */
  request: object;
  method: Method;
  /** The path below the base URL (e.g. `/call`), never the query: it may hold patient ids. */
  path: string;
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  maxAttempts: number;
  /** How the previous attempt failed, e.g. `timed out after 3 s`, `status 503`. */
  reason: string;
  failure: AttemptFailure;
  waitMs: number;
}

/** How one attempt ended: an answer read in full, or a failure. */
type AttemptResult =
  | { ok: true; status: number; headers: WireResponse['headers']; text: string }
  | { ok: false; failure: AttemptFailure; cause: unknown; bodyBroke?: boolean; status?: number; headers?: WireResponse['headers']; text?: string };

interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text(): Promise<string>;
}

type Transport = (
  url: URL,
  init: { method: Method; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<WireResponse>;

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or undefined for an empty body. */
  data: T;
  text: string;
}

/** Query keys whose values may be patient data: their values never appear in traces. */
const REDACTED_QUERY_KEYS = new Set(['customer_patient_id', 'patient', 'member_id', 'phone', 'phoneNumber']);

export class HttpClient {
  readonly baseUrl: string;
  readonly host: string;
  private readonly policy: RetryPolicy;
  private transport?: Transport;
  private closeTransport?: () => Promise<void>;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly basePath: string;

  constructor(private readonly opts: HttpClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const base = new URL(this.baseUrl);
    this.host = base.host;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    // A backoff wait ends early on Ctrl-C.
    this.sleep = opts.sleep ?? ((ms) => sleep(ms, opts.signal));
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
  }

  private async getTransport(): Promise<Transport> {
    if (this.transport) return this.transport;
    const env = this.opts.env ?? process.env;
    // The lower-case names win, as in undici.
    const httpProxy = env.http_proxy ?? env.HTTP_PROXY ?? '';
    const httpsProxy = env.https_proxy ?? env.HTTPS_PROXY ?? '';
    if (httpProxy || httpsProxy || this.opts.bulk) {
      const undici = await import('undici');
      // EnvHttpProxyAgent honours HTTP(S)_PROXY and NO_PROXY; keep-alive is undici's default. Every
      // setting is given from our env (an empty one means none), so it never reads process.env.
      const dispatcher =
        httpProxy || httpsProxy
          ? new undici.EnvHttpProxyAgent({ keepAliveTimeout: 10_000, httpProxy, httpsProxy, noProxy: env.no_proxy ?? env.NO_PROXY ?? '' })
          : new undici.Agent({ keepAliveTimeout: 10_000 });
      this.closeTransport = () => dispatcher.close();
      this.transport = async (url, init) => {
        const res = await undici.request(url, { ...init, dispatcher });
        return { status: res.statusCode, headers: res.headers, text: () => res.body.text() };
      };
    } else {
      this.transport = async (url, init) => {
        const res = await fetch(url, { ...init, redirect: 'manual' });
        const headers: WireResponse['headers'] = {};
        res.headers.forEach((value, key) => (headers[key] = value));
        return { status: res.status, headers, text: () => res.text() };
      };
    }
    return this.transport;
  }

  async close(): Promise<void> {
    await this.closeTransport?.().catch(() => undefined);
  }

  url(path: string, query?: RequestOptions['query']): URL {
    // Accept paths given with or without the /v1 prefix the base URL already carries.
    let p = path.startsWith('/') ? path : `/${path}`;
    if (this.baseUrl.endsWith('/v1') && (p === '/v1' || p.startsWith('/v1/'))) p = p.slice(3) || '/';
    const url = new URL(this.baseUrl + p);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null && v !== '') url.searchParams.append(k, String(v));
    }
    return url;
  }

  private traceUrl(url: URL): string {
    const copy = new URL(url);
    for (const key of [...copy.searchParams.keys()]) {
      if (REDACTED_QUERY_KEYS.has(key)) copy.searchParams.set(key, 'REDACTED');
    }
    return copy.toString();
  }

  get<T = unknown>(path: string, opts: RequestOptions = {}) {
    return this.request<T>('GET', path, opts);
  }
  post<T = unknown>(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...opts, body });
  }
  put<T = unknown>(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request<T>('PUT', path, { ...opts, body });
  }
  patch<T = unknown>(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...opts, body });
  }
  delete<T = unknown>(path: string, opts: RequestOptions = {}) {
    return this.request<T>('DELETE', path, opts);
  }

  async request<T = unknown>(method: Method, path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
    // The request's identity for the retry hooks: its notices, then one end once it was retried.
    const request = { retried: false };
    try {
      return await this.send<T>(method, path, opts, request);
    } finally {
      if (request.retried) this.opts.onRetryEnd?.(request);
    }
  }

  private async send<T>(method: Method, path: string, opts: RequestOptions, request: { retried: boolean }): Promise<HttpResponse<T>> {
    const url = this.url(path, opts.query);
    const traced = this.traceUrl(url);
    const maxRetries = opts.maxRetries ?? this.policy.maxRetries;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'outreach-cli',
    };
    if (!opts.anonymous && this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const transport = await this.getTransport();
    const timeoutMs = this.opts.timeoutMs;
    const budgetMs = this.opts.totalTimeoutMs ?? defaultTotalTimeoutMs(timeoutMs, { ...this.policy, maxRetries });
    const begun = performance.now();
    const shownPath = this.shownPath(url);
    // Time counted against the budget: attempts at most their timeout, waits their length (retryFits).
    let countedMs = 0;

    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      this.opts.trace?.(`→ ${method} ${traced}${body ? ` (${body.length} bytes body)` : ''}${attempt > 1 ? ` [attempt ${attempt}]` : ''}`);
      const result = await this.attempt(transport, url, { method, headers, body }, timeoutMs, traced);
      countedMs += Math.min(timeoutMs, performance.now() - started);
      if (result.ok) {
        const { status, headers: resHeaders, text } = result;
        return { status, headers: resHeaders, data: parseBody<T>(text, status, method, url), text };
      }
      const { failure } = result;

      let giveUp: string | undefined; // why a retryable failure is not retried: the time ran out
      if (attempt <= maxRetries && isRetryable(method, failure, opts.idempotent)) {
        const asked = failure.kind === 'status' ? parseRetryAfter(failure.retryAfter, this.now()) : undefined;
        const wait = retryDelay(attempt, this.policy, this.random, asked);
        if (retryFits(countedMs, wait, timeoutMs, budgetMs)) {
          const next = attempt + 1;
          const reason = describeFailure(failure, timeoutMs, result.bodyBroke);
          this.opts.trace?.(`  retrying in ${wait}ms (${failure.kind === 'status' ? `status ${failure.status}, ` : ''}attempt ${next} of ${maxRetries + 1})`);
          request.retried = true;
          this.opts.onRetryNotice?.({ request, method, path: shownPath, attempt: next, maxAttempts: maxRetries + 1, reason, failure, waitMs: wait });
          opts.onRetry?.(failure, attempt);
          await this.sleep(wait);
          countedMs += wait;
          continue;
        }
        const allowed = `the ${formatDuration(budgetMs)} allowed for this request`;
        giveUp =
          asked !== undefined
            ? `the service asked to wait ${formatDuration(asked)}; with another attempt (up to ${formatDuration(timeoutMs)}) that would exceed ${allowed}`
            : `no time left for another attempt within ${allowed}`;
        this.opts.trace?.(`  not retrying: ${giveUp}`);
      }

      const spent: Spent = { attempts: attempt, elapsedMs: performance.now() - begun, timeoutMs, giveUp };
      if (failure.kind === 'status') {
        const err = apiErrorFrom(method, url, result.status!, result.text ?? '', result.headers);
        if (giveUp) err.message += `; ${giveUp}`;
        throw err;
      }
      if (result.bodyBroke && failure.code !== 'timeout') {
        throw new MalformedResponseError(
          `The service answered ${method} ${url.pathname} with status ${result.status} but the body was cut off (${failure.code}).`,
          { status: result.status, code: 'truncated_body', cause: result.cause },
        );
      }
      throw networkErrorFrom(method, url, this.host, failure, spent, result.cause);
    }
  }

  /** One attempt, limited to `limitMs` from sending the request to the last byte of the answer. */
  private async attempt(
    transport: Transport,
    url: URL,
    init: { method: Method; headers: Record<string, string>; body?: string },
    limitMs: number,
    traced: string,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const deadline = withDeadline(limitMs, this.opts.signal);
    let status: number | undefined;
    try {
      const res = await transport(url, { ...init, signal: deadline.signal });
      status = res.status;
      let text: string;
      try {
        text = await untilAborted(res.text(), deadline.signal);
      } catch (err) {
        if (this.opts.signal?.aborted) throw err;
        // Headers arrived, the body did not: the service acted; only safe requests are repeated.
        const failure: AttemptFailure = { kind: 'lost', code: deadline.timedOut ? 'timeout' : errorCode(err) };
        this.opts.trace?.(`← ${status} body ${deadline.timedOut ? 'timed out' : 'broke off'} after ${ms(started)} (${failure.code})`);
        return { ok: false, failure, cause: err, bodyBroke: true, status };
      }
      this.opts.trace?.(`← ${status} ${ms(started)} ${text.length} bytes`);
      if (status >= 200 && status < 300) return { ok: true, status, headers: res.headers, text };
      const failure: AttemptFailure = { kind: 'status', status, retryAfter: headerValue(res.headers['retry-after']) };
      return { ok: false, failure, cause: undefined, status, headers: res.headers, text };
    } catch (err) {
      if (this.opts.signal?.aborted) throw err; // Ctrl-C: let the command decide
      const failure = deadline.timedOut ? ({ kind: 'lost', code: 'timeout' } as const) : classifyNetworkError(err);
      this.opts.trace?.(`✗ ${init.method} ${traced} failed after ${ms(started)}: ${failure.kind === 'status' ? failure.status : failure.code}`);
      return { ok: false, failure, cause: err };
    } finally {
      deadline.clear();
    }
  }

  /** The path as the API documents it (below the base URL's /v1), without the query. */
  private shownPath(url: URL): string {
    const p = url.pathname;
    return this.basePath && p.startsWith(`${this.basePath}/`) ? p.slice(this.basePath.length) : p;
  }
}

function ms(started: number): string {
  return `${Math.round(performance.now() - started)}ms`;
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: string; cause?: { code?: unknown; name?: string } };
  // A timeout arrives as the AbortSignal's DOMException (whose numeric `code` means nothing here).
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return e.name;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  if (typeof e?.code === 'string') return e.code;
  return e?.cause?.name ?? e?.name ?? 'error';
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function classifyNetworkError(err: unknown): AttemptFailure {
  const code = errorCode(err);
  if (NOT_SENT_CODES.has(code)) return { kind: 'not-sent', code };
  if (code === 'TimeoutError' || code === 'AbortError') return { kind: 'lost', code: 'timeout' };
  return { kind: 'lost', code };
}

/** What one logical request cost, for a truthful message. */
interface Spent {
  attempts: number;
  elapsedMs: number;
  timeoutMs: number;
  /** Set when a retry was not made because the time allowed ran out. */
  giveUp?: string;
}

/** `300 ms`, `1.2 s`, `123.5 s`. */
export function formatDuration(msValue: number): string {
  if (msValue < 1000) return `${Math.round(msValue)} ms`;
  return `${Number((msValue / 1000).toFixed(1))} s`;
}

/** The reason a retry notice gives for the failed attempt. */
function describeFailure(failure: AttemptFailure, timeoutMs: number, bodyBroke?: boolean): string {
  if (failure.kind === 'status') return `status ${failure.status}`;
  if (failure.code === 'timeout') return `timed out after ${formatDuration(timeoutMs)}`;
  if (failure.code === 'ECONNREFUSED') return 'connection refused';
  if (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN') return 'host not found';
  if (bodyBroke) return `the answer broke off (${failure.code})`;
  return failure.kind === 'not-sent' ? `could not connect (${failure.code})` : `connection lost (${failure.code})`;
}

function networkErrorFrom(method: Method, url: URL, host: string, failure: AttemptFailure, spent: Spent, cause: unknown): NetworkError {
  const code = failure.kind === 'status' ? String(failure.status) : failure.code;
  const timedOut = code === 'timeout';
  const what = timedOut
    ? `timed out after ${formatDuration(spent.timeoutMs)}`
    : code === 'ECONNREFUSED'
      ? 'refused the connection'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'could not be resolved'
        : `failed (${code})`;
  // Say how long it really took when that is more than one attempt's limit.
  const inAll = `${formatDuration(spent.elapsedMs)} in all${spent.giveUp ? `; ${spent.giveUp}` : ''}`;
  const plural = spent.attempts === 1 ? 'attempt' : 'attempts';
  const tail =
    spent.attempts === 1 && !spent.giveUp
      ? ''
      : timedOut
        ? ` (${spent.attempts} ${plural}, ${inAll})`
        : ` after ${spent.attempts} ${plural} (${inAll})`;
  if (failure.kind === 'lost' && !['GET', 'HEAD'].includes(method)) {
    return new UnknownOutcomeError(
      `${method} ${url.pathname} to ${host} ${what}${tail}; the service may or may not have acted on it.`,
      { cause, hint: 'Check the state on the service before repeating it.' },
    );
  }
  return new NetworkError(`The service at ${host} ${what}${tail}.`, {
    cause,
    code: timedOut ? 'timeout' : 'network',
    hint: timedOut
      ? 'Raise --request-timeout if the service is slow.'
      : code === 'ECONNREFUSED' && isThisMachine(url)
        ? startSandboxHint(url)
        : 'Check --base-url, the network and any proxy settings.',
  });
}

function isThisMachine(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(url.hostname) || url.hostname.endsWith('.localhost');
}

/** Nothing listens on this machine at that port: most likely the sandbox is not running. */
function startSandboxHint(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const sandbox = port === new URL(DEFAULT_BASE_URL).port ? 'outreach sandbox' : `outreach sandbox --port ${port}`;
  return `Nothing listens there. To use the local sandbox, start it in another terminal:\n  ${sandbox}`;
}

function parseBody<T>(text: string, status: number, method: string, url: URL): T {
  if (text.trim() === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new MalformedResponseError(
      `The service answered ${method} ${url.pathname} with status ${status} and a body that is not valid JSON.`,
      { status },
    );
  }
}
