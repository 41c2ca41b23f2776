// The one HTTP core: base URL, auth header, per-request timeout, keep-alive, proxy from the
// environment, the retry policy, and every non-2xx turned into a typed error. It never prints:
// tracing goes to the `trace` callback (stderr under --debug), already redacted.
//
// Transport: Node's built-in fetch (which is undici, bundled in Node: keep-alive by default) unless a
// proxy is configured, in which case the undici package's EnvHttpProxyAgent is loaded, because
// Node 20's fetch ignores HTTP(S)_PROXY. Importing the undici package costs about 1.2× a bare node
// start on this machine against 0.4× for the built-in fetch, and most runs (cron jobs) are one
// request or a few: see bench/calls-list.mjs.
import {
  ApiError,
  AuthError,
  ExitCode,
  MalformedResponseError,
  NetworkError,
  UnknownOutcomeError,
} from '../errors.js';
import { apiErrorFrom } from './errors.js';
import {
  DEFAULT_RETRY_POLICY,
  isRetryable,
  parseRetryAfter,
  retryDelay,
  type AttemptFailure,
  type Method,
  type RetryPolicy,
} from './retry.js';

export interface HttpClientOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  trace?: (line: string) => void;
  userAgent?: string;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  signal?: AbortSignal;
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

  constructor(private readonly opts: HttpClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.host = new URL(this.baseUrl).host;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
  }

  private async getTransport(): Promise<Transport> {
    if (this.transport) return this.transport;
    const env = process.env;
    const proxied = Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
    if (proxied) {
      const undici = await import('undici');
      // EnvHttpProxyAgent honours HTTP(S)_PROXY and NO_PROXY; keep-alive is undici's default.
      const dispatcher = new undici.EnvHttpProxyAgent({ keepAliveTimeout: 10_000 });
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

    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      this.opts.trace?.(`→ ${method} ${traced}${body ? ` (${body.length} bytes body)` : ''}${attempt > 1 ? ` [attempt ${attempt}]` : ''}`);
      let failure: AttemptFailure;
      let failureError: unknown;
      let status = 0;
      try {
        const signal = this.opts.signal
          ? AbortSignal.any([this.opts.signal, AbortSignal.timeout(this.opts.timeoutMs)])
          : AbortSignal.timeout(this.opts.timeoutMs);
        const res = await transport(url, { method, headers, body, signal });
        status = res.status;
        let text: string;
        try {
          text = await res.text();
        } catch (err) {
          // Headers arrived, the body broke off: the service acted; only safe requests are repeated.
          failure = { kind: 'lost', code: errorCode(err) };
          failureError = err;
          this.opts.trace?.(`← ${status} body broke off after ${ms(started)} (${failure.code})`);
          if (attempt <= maxRetries && isRetryable(method, failure, opts.idempotent)) {
            opts.onRetry?.(failure, attempt);
            await this.backoff(attempt, maxRetries);
            continue;
          }
          throw new MalformedResponseError(
            `The service answered ${method} ${url.pathname} with status ${status} but the body was cut off (${failure.code}).`,
            { status, code: 'truncated_body', cause: err },
          );
        }
        this.opts.trace?.(`← ${status} ${ms(started)} ${text.length} bytes`);
        if (status >= 200 && status < 300) {
          return { status, headers: res.headers, data: parseBody<T>(text, status, method, url), text };
        }
        failure = { kind: 'status', status, retryAfter: headerValue(res.headers['retry-after']) };
        if (attempt <= maxRetries && isRetryable(method, failure, opts.idempotent)) {
          const wait = retryDelay(attempt, this.policy, this.random, parseRetryAfter(failure.retryAfter, Date.now()));
          this.opts.trace?.(`  retrying in ${wait}ms (status ${status}, attempt ${attempt + 1} of ${maxRetries + 1})`);
          opts.onRetry?.(failure, attempt);
          await this.sleep(wait);
          continue;
        }
        throw apiErrorFrom(method, url, status, text, res.headers);
      } catch (err) {
        if (err instanceof ApiError || err instanceof AuthError || err instanceof MalformedResponseError) throw err;
        if (this.opts.signal?.aborted) throw err; // Ctrl-C: let the command decide
        failureError = err;
        failure = classifyNetworkError(err);
        this.opts.trace?.(`✗ ${method} ${traced} failed after ${ms(started)}: ${failure.kind === 'status' ? failure.status : failure.code}`);
        if (attempt <= maxRetries && isRetryable(method, failure, opts.idempotent)) {
          opts.onRetry?.(failure, attempt);
          await this.backoff(attempt, maxRetries);
          continue;
        }
        throw networkErrorFrom(method, url, this.host, failure, attempt, this.opts.timeoutMs, failureError);
      }
    }
  }

  private async backoff(attempt: number, maxRetries: number) {
    const wait = retryDelay(attempt, this.policy, this.random);
    this.opts.trace?.(`  retrying in ${wait}ms (attempt ${attempt + 1} of ${maxRetries + 1})`);
    await this.sleep(wait);
  }
}

function ms(started: number): string {
  return `${Math.round(performance.now() - started)}ms`;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
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

function networkErrorFrom(
  method: Method,
  url: URL,
  host: string,
  failure: AttemptFailure,
  attempts: number,
  timeoutMs: number,
  cause: unknown,
): NetworkError {
  const code = failure.kind === 'status' ? String(failure.status) : failure.code;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const what =
    code === 'timeout'
      ? `timed out after ${timeoutMs / 1000}s`
      : code === 'ECONNREFUSED'
        ? 'refused the connection'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'could not be resolved'
          : `failed (${code})`;
  if (failure.kind === 'lost' && !['GET', 'HEAD'].includes(method)) {
    return new UnknownOutcomeError(
      `${method} ${url.pathname} to ${host} ${what}${tries}; the service may or may not have acted on it.`,
      { cause, hint: 'Check the state on the service before repeating it.' },
    );
  }
  return new NetworkError(`The service at ${host} ${what}${tries}.`, {
    cause,
    code: code === 'timeout' ? 'timeout' : 'network',
    hint: code === 'timeout' ? 'Raise --request-timeout if the service is slow.' : 'Check --base-url, the network and any proxy settings.',
  });
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
