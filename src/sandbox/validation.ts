// JSON-schema validation for the routes. Two Ajv instances: bodies are checked strictly (no type
// coercion: "5" is not an integer, 123 is not a string), while query strings and path parameters
// are coerced because they only ever arrive as text.
import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchemaValidationError } from 'fastify';

export const PHONE_E164 = /^\+[1-9]\d{7,14}$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A real calendar date written YYYY-MM-DD. */
export function isIsoDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

/** An ISO 8601 date-time (or a bare date, read as midnight UTC) that Date can read. */
function isIsoDateTime(s: string): boolean {
  if (isIsoDate(s)) return true;
  return DATE_TIME_RE.test(s) && isIsoDate(s.slice(0, 10)) && !Number.isNaN(Date.parse(s));
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    verbose: true, // gives parentSchema to the error formatter (for x-hint)
    strictSchema: false, // allow our x-hint annotation
  });
  ajv.addFormat('date', isIsoDate);
  ajv.addFormat('date-time', isIsoDateTime);
  ajv.addFormat('http-url', isHttpUrl);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; maximum?: number; minimum?: number; [k: string]: unknown };
const hasType = (s: Schema, t: string) => s.type === t || (Array.isArray(s.type) && s.type.includes(t));

/**
 * A copy of the schema in which every integer without bounds is bounded by ±2^53-1: a larger number
 * cannot be an id or a count, and past it JavaScript and SQLite no longer agree on its value.
 */
function withSafeIntegers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withSafeIntegers) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = withSafeIntegers(v);
  if (hasType(out, 'integer')) {
    out.maximum ??= Number.MAX_SAFE_INTEGER;
    out.minimum ??= -Number.MAX_SAFE_INTEGER;
  }
  return out as T;
}

// Query strings and path parameters arrive as text, and Ajv's coercion reads text as JavaScript
// does: "1e3" is 1000, "0x10" 16, " 5" and "+5" 5, "Infinity" passes an integer check. Before Ajv
// converts anything, an integer must be written in decimal digits (an optional minus for the range
// message), and no parameter may be given twice (the parser turns limit=1&limit=2 into an array).
const DECIMAL = /^-?\d+$/;

interface TextError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

function textChecks(schema: Schema): ((data: unknown) => TextError | undefined) | undefined {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return undefined;
  return (data) => {
    if (data === null || typeof data !== 'object') return undefined;
    const values = data as Record<string, unknown>;
    for (const [name, prop] of props) {
      if (!Object.prototype.hasOwnProperty.call(values, name)) continue;
      const v = values[name];
      const err = (keyword: string, message: string) => ({ keyword, instancePath: `/${name}`, schemaPath: `#/properties/${name}`, params: {}, message });
      if (Array.isArray(v) && !hasType(prop, 'array')) return err('x-repeated', 'is given more than once');
      if (typeof v === 'string' && hasType(prop, 'integer') && !DECIMAL.test(v)) {
        return err('x-decimal', 'must be a whole number written in digits (like 100)');
      }
    }
    return undefined;
  };
}

type Validate = ((data: unknown, ctx?: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null; schemaEnv?: unknown };

export function validatorCompiler({ schema, httpPart }: { schema: object; httpPart?: string }): Validate {
  const safe = withSafeIntegers(schema);
  if (httpPart === 'body') return bodyAjv.compile(safe) as Validate;
  const validate = textAjv.compile(safe) as Validate;
  const check = textChecks(safe as Schema);
  if (!check) return validate;
  const strict: Validate = (data, ctx) => {
    const e = check(data);
    if (e) {
      strict.errors = [e as unknown as FastifySchemaValidationError];
      return false;
    }
    const ok = validate(data, ctx);
    strict.errors = validate.errors;
    return ok;
  };
  strict.schemaEnv = validate.schemaEnv;
  return strict;
}

const FORMAT_TEXT: Record<string, string> = {
  date: 'a real date written YYYY-MM-DD',
  'date-time': 'an ISO 8601 date-time',
  'http-url': 'an http(s) URL',
};

/** Field path ("patient.npi", "rows[3]") of an Ajv error. */
export function errorField(e: ErrorObject | FastifySchemaValidationError): string {
  const parts = (e.instancePath ?? '').split('/').filter(Boolean);
  let path = '';
  for (const p of parts) path += /^\d+$/.test(p) ? `[${p}]` : path ? `.${p}` : p;
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty?: string }).missingProperty ?? '';
    path = path ? `${path}.${missing}` : missing;
  }
  return path;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const hint = (e.parentSchema as { 'x-hint'?: string } | undefined)?.['x-hint'];
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${String(p.type).replace(',', ' or ')}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `must be ${FORMAT_TEXT[String(p.format)] ?? String(p.format)}`;
    case 'pattern':
      return hint ?? `must match ${String(p.pattern)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
    case 'maxLength':
      return `must be at most ${p.limit} characters`;
    case 'maxItems':
      return `must have at most ${p.limit} items`;
    case 'minItems':
      return `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'minProperties':
      return 'must not be empty';
    case 'additionalProperties':
      return `has unknown property "${String(p.additionalProperty)}"`;
    default:
      return e.message ?? 'is invalid';
  }
}

const PART_TEXT: Record<string, string> = { body: 'body', querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/** Fastify schemaErrorFormatter: one message that names the field, e.g. "body field patient.npi must be 10 digits". */
export function schemaErrorFormatter(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const e = errors[0] as unknown as ErrorObject;
  const field = errorField(e);
  const part = PART_TEXT[dataVar] ?? dataVar;
  const msg = field
    ? `${part === 'body' ? 'body field' : part} ${field} ${describe(e)}`
    : `${part === 'body' ? 'request body' : part} ${describe(e)}`;
  return new Error(msg);
}

// Reusable schema pieces.
export const nonEmptyString = { type: 'string', minLength: 1, maxLength: 1000 } as const;
export const idParam = (name: string) =>
  ({
    type: 'object',
    required: [name],
    properties: { [name]: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
  }) as const;
export const limitQuery = { type: 'integer', minimum: 1, maximum: 1000, default: 100 } as const;
