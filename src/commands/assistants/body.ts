// The flags shared by `assistants create` and `assistants patch`, and how they become a request
// body: --input gives a whole body, flags win over it field by field. The webhook secret comes only
// from an environment variable or stdin, is sent, and never printed.
import type { Command } from 'commander';
import type { Assistant, AssistantInput } from '../../api/types.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, UsageError } from '../../errors.js';
import { fateOf, fateText, reword, type Fate } from '../../api/errors.js';
import { readJsonArgument, readJsonInput } from '../../input.js';
import { nestedFields, writeRecord, type Field } from '../../output/writer.js';
import { formatDuration } from '../../output/format.js';
import { terminalSafe } from '../../output/safe.js';
import { readSecret } from '../../secret.js';

export interface AssistantFlags {
  name?: string;
  firstMessage?: string;
  webhookUrl?: string;
  voicemailMessage?: string;
  maxDurationSeconds?: string;
  model?: string;
  voice?: string;
  analysisPlan?: string;
  input?: string;
  webhookSecretEnv?: string;
  webhookSecretStdin?: boolean;
  clearWebhookSecret?: boolean;
}

export function addBodyOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'assistant name')
    .option('--first-message <text>', 'what the assistant says first')
    .option('--voicemail-message <text>', 'message left on voicemail')
    .option('--max-duration-seconds <n>', 'longest call, in seconds')
    .option('--webhook-url <url>', 'receives the end-of-call report')
    .option('--model <json>', 'language model configuration: inline JSON, @file or -')
    .option('--voice <json>', 'voice configuration: inline JSON, @file or -')
    .option('--analysis-plan <json>', 'analysis plan: inline JSON, @file or -')
    .option('--input <file>', 'a whole request body as JSON (file or - for stdin); flags override its fields')
    .option('--webhook-secret-env <var>', 'read the webhook secret from this environment variable')
    .option('--webhook-secret-stdin', 'read the webhook secret from stdin');
}

const JSON_OBJECT_FLAGS = [
  ['model', '--model', 'model'],
  ['voice', '--voice', 'voice'],
  ['analysisPlan', '--analysis-plan', 'analysis_plan'],
] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describeSource(raw: string, flag: string): string {
  return raw.startsWith('@') ? `${flag} file ${raw.slice(1)}` : raw === '-' ? `${flag} (stdin)` : flag;
}

/** Builds the body; `secret` is returned apart so callers can keep it out of every output. */
export async function buildBody(flags: AssistantFlags, ctx: Context): Promise<{ body: AssistantInput; secret?: string }> {
  const stdinUsers = [
    flags.input === '-' ? '--input -' : undefined,
    flags.webhookSecretStdin ? '--webhook-secret-stdin' : undefined,
    ...JSON_OBJECT_FLAGS.map(([k, flag]) => (flags[k] === '-' ? `${flag} -` : undefined)),
  ].filter(Boolean);
  if (stdinUsers.length > 1) throw new UsageError(`Only one input can come from stdin, but ${stdinUsers.join(' and ')} both ask for it.`);
  if (flags.clearWebhookSecret && (flags.webhookSecretEnv !== undefined || flags.webhookSecretStdin)) {
    throw new UsageError('--clear-webhook-secret cannot be combined with --webhook-secret-env or --webhook-secret-stdin.');
  }

  let body: AssistantInput = {};
  if (flags.input !== undefined) {
    const input = await readJsonInput(flags.input, '--input', ctx.io);
    if (!isObject(input)) throw new UsageError(`${describeSource(flags.input === '-' ? '-' : `@${flags.input}`, '--input')} must hold a JSON object (the request body).`);
    body = { ...(input as AssistantInput) };
    if ('webhook_secret' in body && body.webhook_secret !== null) {
      throw new UsageError('--input holds webhook_secret: keep secrets out of files; use --webhook-secret-env VAR or --webhook-secret-stdin.');
    }
  }
  if (flags.name !== undefined) {
    if (flags.name.trim() === '') throw new UsageError('--name is empty.');
    body.name = flags.name;
  }
  if (flags.firstMessage !== undefined) body.first_message = flags.firstMessage;
  if (flags.voicemailMessage !== undefined) body.voicemail_message = flags.voicemailMessage;
  if (flags.webhookUrl !== undefined) body.webhook_url = checkUrl(flags.webhookUrl);
  if (flags.maxDurationSeconds !== undefined) {
    const s = flags.maxDurationSeconds.trim();
    if (!/^\d+$/.test(s) || Number(s) < 1) throw new UsageError(`Invalid --max-duration-seconds "${flags.maxDurationSeconds}": give a whole number of seconds.`);
    body.max_duration_seconds = Number(s);
  }
  for (const [key, flag, field] of JSON_OBJECT_FLAGS) {
    const raw = flags[key];
    if (raw === undefined) continue;
    const value = await readJsonArgument(raw, flag, ctx.io);
    if (!isObject(value)) throw new UsageError(`${describeSource(raw, flag)} must be a JSON object ({...}), not ${Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'null' : `a ${typeof value}`}.`);
    (body as Record<string, unknown>)[field] = value;
  }

  // Stdin has only one reader: the check above made sure nothing else asked for it.
  const secret = await readSecret(ctx, {
    what: 'webhook secret',
    envFlag: '--webhook-secret-env',
    envVar: flags.webhookSecretEnv,
    stdinFlag: '--webhook-secret-stdin',
    useStdin: Boolean(flags.webhookSecretStdin),
    pipeExample: 'printf %s "$SECRET" | outreach assistants ... --webhook-secret-stdin',
  });
  if (secret !== undefined) body.webhook_secret = secret;
  if (flags.clearWebhookSecret) body.webhook_secret = null;
  return { body, secret };
}

function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`Invalid --webhook-url "${raw}": give a full http(s) URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`Invalid --webhook-url "${raw}": only http and https URLs are accepted.`);
  return raw;
}

/** Replaces every occurrence of the secret in a text. */
function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('***') : text;
}

/** A copy of a JSON value with the secret replaced in every string (keys included). */
function scrubValue(value: unknown, secret: string | undefined): unknown {
  if (!secret) return value;
  if (typeof value === 'string') return scrub(value, secret);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secret));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k, secret), scrubValue(v, secret)]));
  }
  return value;
}

/** What is being sent, for the messages of a failure. */
export type AssistantWrite = { verb: 'create' } | { verb: 'patch'; id: number };

/** The failure's message, by its fate (fateOf): never "not created" when the service may have acted. */
function failureMessage(w: AssistantWrite, fate: Fate, detail: string): { message: string; hint?: string } {
  if (fate === 'unknown') {
    return w.verb === 'create'
      ? {
          message: `The assistant may have been created: ${detail}.`,
          hint:
            'API.md has no way to list assistants: check with the service (its dashboard or support, with the time of this ' +
            'request) before running create again, or there may be two.',
        }
      : {
          message: `Assistant ${w.id}: the change may or may not have been applied: ${detail}.`,
          hint: 'Running the same command again is safe: it sets the same fields to the same values.',
        };
  }
  const what = w.verb === 'create' ? 'Assistant not created' : `Assistant ${w.id} not updated`;
  return { message: `${what}: ${detail}${fate === 'refused' ? ` (${fateText(fate)})` : ''}.` };
}

/**
 * Runs the request and turns a failure into a plain message chosen by its fate (fateOf): the
 * service's own words for an error body ({error: <status>, message}), "may have been created" when
 * the service may have acted (a 5xx, a gateway's page, a lost answer). The secret is scrubbed from
 * anything the service echoed.
 */
export async function sendAssistant<T>(w: AssistantWrite, secret: string | undefined, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    // Already says what happened (created, but without an id): no second wrapping.
    if (!(err instanceof CliError) || err.code === 'created_without_id') throw err;
    const fate = fateOf(err);
    if (err instanceof ApiError) {
      const body = err.body as { message?: unknown; field?: unknown } | undefined;
      // The service's own words (made inert: they end up in the error message on a terminal).
      const message = typeof body?.message === 'string' && body.message ? terminalSafe(body.message) : err.message;
      const field = typeof body?.field === 'string' && !message.includes(terminalSafe(body.field)) ? ` (field ${terminalSafe(body.field)})` : '';
      const f = failureMessage(w, fate, `${message}${field} — the service answered ${err.status}`);
      throw reword(err, scrub(f.message, secret), {
        details: scrubValue(err.details, secret),
        body: scrubValue(err.body, secret),
        hint: [f.hint, err.hint].filter(Boolean).join('\n') || undefined,
      });
    }
    if (fate === 'unknown') {
      const f = failureMessage(w, fate, err.message.replace(/\.$/, ''));
      throw reword(err, scrub(f.message, secret), { hint: [f.hint, err.hint].filter(Boolean).join('\n') });
    }
    if (secret && err.message.includes(secret)) {
      throw reword(err, scrub(err.message, secret));
    }
    throw err;
  }
}

const FIELDS: Field<Assistant>[] = [
  { label: 'id', key: 'id', value: (a) => a.id },
  { label: 'name', key: 'name', value: (a) => a.name },
  { label: 'first message', key: 'first_message', value: (a) => a.first_message },
  { label: 'voicemail message', key: 'voicemail_message', value: (a) => a.voicemail_message },
  // Seconds, as the service has them, for scripts; `5m 00s` on a terminal.
  {
    label: 'max duration',
    key: 'max_duration_seconds',
    value: (a) => a.max_duration_seconds,
    display: (a) => (typeof a.max_duration_seconds === 'number' ? formatDuration(a.max_duration_seconds * 1000) : a.max_duration_seconds),
  },
  { label: 'webhook url', key: 'webhook_url', value: (a) => a.webhook_url },
  { label: 'webhook secret set', key: 'is_webhook_secret_set', value: (a) => a.is_webhook_secret_set, kind: 'bool' },
  { label: 'organization', key: 'organization_id', value: (a) => a.organization_id },
  { label: 'created', key: 'created_at', value: (a) => a.created_at, kind: 'datetime' },
  { label: 'updated', key: 'updated_at', value: (a) => a.updated_at, kind: 'datetime' },
];

/**
 * Prints the assistant. -o json is the service's body, except that a `webhook_secret` field (which
 * the service never returns) would be dropped rather than printed.
 */
export async function writeAssistant(ctx: Context, assistant: Assistant, raw: unknown, secret: string | undefined): Promise<void> {
  let shown = raw;
  if (isObject(raw) && 'webhook_secret' in raw) {
    const { webhook_secret: _dropped, ...rest } = raw;
    shown = rest;
  }
  shown = scrubValue(shown, secret);
  const record = scrubValue(assistant, secret) as Assistant;
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    ctx.io.out(`${terminalSafe(record.id)}\n`);
    return;
  }
  // The model, voice and analysis plan are objects: one line per field inside them, after the rest.
  const nested = [
    ...nestedFields<Assistant>('model', 'model', record.model),
    ...nestedFields<Assistant>('voice', 'voice', record.voice),
    ...nestedFields<Assistant>('analysis plan', 'analysis_plan', record.analysis_plan),
  ];
  await writeRecord(ctx, record, [...FIELDS, ...nested], shown);
}
