import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError, ValidationError } from '../../errors.js';
import type { CheckFields, FieldName } from '../../eligibility/request.js';
import { terminalSafe } from '../../output/safe.js';
import { readSecret } from '../../secret.js';

export function register(parent: Command): void {
  parent
    .command('check')
    .description('Submit an eligibility check (fields by flag, a request body, prompts on a terminal) or one per row of a CSV')
    .option('--first-name <name>', 'patient first name')
    .option('--last-name <name>', 'patient last name')
    .option('--dob <YYYY-MM-DD>', 'patient date of birth')
    .option('--member-id <id>', 'insurance member id')
    .option('--patient-id <id>', 'your own patient identifier (customer_patient_id)')
    .option('--payer <id>', 'payer id (see `outreach eligibility payers`)')
    .option('--provider-name <name>', 'provider organisation name')
    .option('--npi <npi>', 'provider NPI (10 digits)')
    .option('--input <file>', 'the whole request body as JSON (FILE or - for stdin); flags override its fields')
    .option('--webhook-url <url>', 'the service POSTs the result here when the check completes')
    .option('--webhook-secret-env <VAR>', 'read the webhook secret from this environment variable')
    .option('--webhook-secret-stdin', 'read the webhook secret from stdin')
    .option('--wait', 'wait for completion, then show the result (as `eligibility watch`)')
    .option('--interval <seconds>', 'with --wait: longest wait between polls', '10')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 124)', '300')
    .option('--fail-inactive', 'with --wait: exit 3 when coverage is not active today or the outcome is not success')
    .option('--csv <file>', 'one check per row of this CSV or Excel .xlsx file (headers matched loosely to the fields above)')
    .option('--sheet <NAME|N>', 'with --csv FILE.xlsx: the sheet to read, by name or number (default: the first)')
    .option('--concurrency <n>', 'with --csv: requests in flight at most (1 to 32, default 4)')
    .option('--out <file>', "with --csv: results, one per input row: the row's own columns, then the result (.csv, .ndjson or .xlsx)")
    .option(
      '--only <list>',
      'with --csv: keep only these rows in the results (comma-separated): active, inactive, not-supported, no-coverage-answer, other-outcome, failed, unknown-status (these need --wait), pending, submitted, accepted, already-submitted, invalid, rejected, unknown, not-sent',
    )
    .option('--map <COLUMN=field>', 'with --csv: assign a column to a field (or COLUMN=- to ignore it); repeatable', collect, [])
    .option('--resend-unknown', 'with --csv: send again the rows whose earlier fate is unknown (after checking they have no check)')
    .addHelpText(
      'after',
      examples(
        'outreach eligibility check --first-name Ana --last-name Diaz --dob 1980-04-02 --member-id W1234 --patient-id MRN-1 --payer 87726 --provider-name "Clinic" --npi 1234567893',
        'id=$(outreach eligibility check --input request.json -q)',
        'outreach eligibility check --input request.json --wait --fail-inactive',
        'outreach eligibility check --input request.json --webhook-url https://example.org/hook --webhook-secret-env HOOK_SECRET',
        'outreach eligibility check --csv patients.csv --concurrency 8 --out results.csv',
        'outreach eligibility check --csv patients.csv --wait --out to-call.xlsx --only inactive,not-supported',
        'outreach eligibility check --csv patients.csv --out fix.csv --only invalid,rejected',
        'outreach eligibility check --csv patients.csv --out results.csv --resend-unknown   # after checking the unknown rows',
        'outreach eligibility check --csv clinic.xlsx --sheet 2 --out results.csv',
      ) +
        '\nWith --csv, progress is recorded in <csv>.outreach-eligibility.ndjson as checks are accepted: running the\n' +
        'same command again skips rows already submitted (keyed by customer_patient_id). A row whose answer was\n' +
        'lost or a 5xx (a gateway\'s 502 page included) is "unknown": the service may have created its check. A\n' +
        're-run looks it up and never sends it again by itself; --resend-unknown sends it once you have checked.\n' +
        'Rows refused (429/503) are sent again by a re-run. Exit 3 when rows were invalid or rejected, 7 when some\n' +
        'rows were not sent or their fate is unknown, 1 when --wait met a status this version does not know.\n' +
        '\nThe results file (--out) gives every row back, its own columns first (a column named like one of ours\n' +
        'becomes outreach_<name>), then line, customer_patient_id, result, id, status, outcome, active_today and\n' +
        'error. --only keeps the rows to act on (in --out and on stdout); the counts and the summary still count\n' +
        'every row.\n',
    )
    .action(action(run));
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

export interface CheckOptions {
  firstName?: string;
  lastName?: string;
  dob?: string;
  memberId?: string;
  patientId?: string;
  payer?: string;
  providerName?: string;
  npi?: string;
  input?: string;
  webhookUrl?: string;
  webhookSecretEnv?: string;
  webhookSecretStdin?: boolean;
  wait?: boolean;
  interval?: string;
  timeout?: string;
  failInactive?: boolean;
  csv?: string;
  sheet?: string;
  concurrency?: string;
  out?: string;
  only?: string;
  map?: string[];
  resendUnknown?: boolean;
  args: string[];
}

const FLAG_OF: Record<FieldName, keyof CheckOptions> = {
  firstName: 'firstName',
  lastName: 'lastName',
  dateOfBirth: 'dob',
  memberId: 'memberId',
  customerPatientId: 'patientId',
  payerId: 'payer',
  providerName: 'providerName',
  npi: 'npi',
};

export async function run(opts: CheckOptions, ctx: Context): Promise<void> {
  if (opts.csv !== undefined) {
    const { runBulk } = await import('./checkCsv.js');
    return runBulk(opts, ctx);
  }
  for (const f of ['concurrency', 'out', 'only', 'sheet'] as const) {
    if (opts[f] !== undefined) throw new UsageError(`--${f} only applies with --csv.`);
  }
  if (opts.map && opts.map.length > 0) throw new UsageError('--map only applies with --csv.');
  if (opts.resendUnknown) throw new UsageError('--resend-unknown only applies with --csv.');
  const { watchChecks, parseSeconds } = await import('./watch.js');
  const waitSettings = {
    intervalSec: parseSeconds(opts.interval, '--interval', 10),
    timeoutSec: parseSeconds(opts.timeout, '--timeout', 300),
    failInactive: Boolean(opts.failInactive),
  };
  if (opts.failInactive && !opts.wait) throw new UsageError('--fail-inactive needs --wait (or use `outreach eligibility watch --fail-inactive`).');
  const req = await import('../../eligibility/request.js');
  const today = ctx.now();

  // 1. The body file, if any: its values are data (a bad one is exit 3, naming the field and file).
  let fields: CheckFields = {};
  let webhookUrl = opts.webhookUrl;
  let secretFromBody: string | undefined;
  let source = '';
  if (opts.input !== undefined) {
    const { readJsonInput } = await import('../../input.js');
    const body = await readJsonInput(opts.input, '--input', ctx.io);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new UsageError(`--input ${opts.input}: the request body must be a JSON object.`);
    const got = req.fieldsFromBody(body);
    fields = got.fields;
    webhookUrl ??= got.webhookUrl;
    const s = (body as { webhook_secret?: unknown }).webhook_secret;
    if (typeof s === 'string' && s) secretFromBody = s;
    source = opts.input === '-' ? 'stdin' : opts.input;
    const problems: string[] = [];
    for (const name of req.FIELD_NAMES) {
      const v = fields[name];
      if (v === undefined || (opts[FLAG_OF[name]] as string | undefined) !== undefined) continue;
      const r = req.checkField(name, v, today);
      if (!r.ok) problems.push(`${req.FIELDS[name].path} ${r.message}`);
      else fields[name] = r.value;
    }
    if (problems.length > 0) throw new ValidationError(`The request body in ${source} is not valid: ${problems.join('; ')}.`);
  }

  // 2. Flags win over the body; a bad flag value is a usage error naming the flag.
  const flagProblems: string[] = [];
  for (const name of req.FIELD_NAMES) {
    const v = opts[FLAG_OF[name]] as string | undefined;
    if (v === undefined) continue;
    const r = req.checkField(name, v, today);
    if (r.ok) fields[name] = r.value;
    else flagProblems.push(`${req.FIELDS[name].flag}: ${r.message}`);
  }
  if (flagProblems.length > 0) throw new UsageError(`Invalid ${flagProblems.join('; ')}.`);
  if (webhookUrl !== undefined) {
    const problem = req.checkWebhookUrl(webhookUrl);
    if (problem) throw new UsageError(`Invalid --webhook-url: it ${problem}.`);
  }
  // The webhook secret from --webhook-secret-env or --webhook-secret-stdin (never a plain flag).
  const fromFlags = await readSecret(ctx, {
    what: 'webhook secret',
    envFlag: '--webhook-secret-env',
    envVar: opts.webhookSecretEnv,
    stdinFlag: '--webhook-secret-stdin',
    useStdin: Boolean(opts.webhookSecretStdin),
    stdinTakenBy: opts.input === '-' ? '--input -' : undefined,
    pipeExample: 'echo "$SECRET" | outreach eligibility check ... --webhook-secret-stdin',
  });
  const secret = fromFlags ?? secretFromBody;
  if (secret && !webhookUrl) throw new UsageError('A webhook secret was given without --webhook-url.');

  // 3. What is still missing: asked for on a terminal, an error otherwise.
  const missing = req.FIELD_NAMES.filter((n) => req.FIELDS[n].required && (fields[n] === undefined || fields[n] === ''));
  const client = await ctx.client();
  if (missing.length > 0) {
    if (!ctx.io.canPrompt) {
      throw new UsageError(`Missing ${missing.map((n) => req.FIELDS[n].flag).join(', ')}.`, {
        hint: 'Pass them as flags or in --input FILE; on a terminal they are asked for.',
      });
    }
    const prompter = await ctx.prompter();
    for (const name of missing) {
      if (name === 'payerId') {
        // The cached or documented list: asking the service would mean submitting a check.
        const { knownPayers, payerNote } = await import('./payers.js');
        const known = await knownPayers(ctx);
        ctx.info(payerNote(known));
        const OTHER = '\u0000other';
        const choice = await prompter.select('Payer', [
          ...known.rows.filter((r) => r.payer_id).map((r) => ({ value: r.payer_id, name: `${r.name}${r.parent ? ` (${r.parent})` : ''} — ${r.payer_id}` })),
          { value: OTHER, name: 'Another payer id…' },
        ]);
        if (choice !== OTHER) {
          fields.payerId = choice;
          continue;
        }
      }
      const answer = await prompter.text(req.FIELDS[name].label, {
        validate: (v) => {
          const r = req.checkField(name, v, today);
          return r.ok ? true : `${req.FIELDS[name].label} ${r.message}`;
        },
      });
      const r = req.checkField(name, answer, today);
      if (r.ok) fields[name] = r.value;
    }
  }

  // 4. Send (a refusal such as 429 is retried by the client; nothing that may have acted is).
  const body = req.buildRequest(fields, { url: webhookUrl, secret });
  const { submitEligibility, unsupportedPayerList } = await import('../../api/eligibility.js');
  let result;
  try {
    result = await submitEligibility(client, body);
  } catch (err) {
    const payers = unsupportedPayerList(err);
    if (payers && payers.length > 0) {
      const { cachePayers, payersText } = await import('./payers.js');
      await cachePayers(ctx, payers, ctx.now().toISOString());
      if (!ctx.globals.quiet && ctx.globals.format !== 'json') {
        ctx.io.err(`The service does not support payer ${fields.payerId}. Supported payers:\n${payersText(payers)}`);
      }
      const e = err as import('../../errors.js').ApiError;
      throw new ValidationError(`Payer ${fields.payerId} is not supported by the service (insurance.payer_id; ${e.method} ${e.path}: ${e.status}).`, {
        code: 'unsupported_payer',
        status: e.status,
        details: e.body,
        hint: 'Choose one of the payers above (`outreach eligibility payers`).',
      });
    }
    const { fateOf, reword } = await import('../../api/errors.js');
    const { CliError } = await import('../../errors.js');
    if (err instanceof CliError && fateOf(err, { aborted: ctx.signal.aborted }) === 'unknown') {
      // A 5xx or a lost answer: the service may have created the check; sending again could make two.
      const message = `The eligibility check may have been created: ${err.message.replace(/\.$/, '')}.`;
      const hint = [`Look for it before sending it again: outreach eligibility list${fields.customerPatientId ? ' --patient <its patient id>' : ''}`, err.hint]
        .filter(Boolean)
        .join('\n');
      throw reword(err, message, { hint });
    }
    throw err;
  }
  const { submitted, raw } = result;

  if (opts.wait) {
    ctx.info(`Submitted eligibility check ${submitted.id}; waiting for it to complete…`);
    await watchChecks(ctx, client, [submitted.id], { ...waitSettings, idsOnly: ctx.globals.quiet && !ctx.globals.formatExplicit });
    return;
  }
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    ctx.io.out(`${terminalSafe(submitted.id)}\n`);
    return;
  }
  const { writeRecord } = await import('../../output/writer.js');
  await writeRecord(
    ctx,
    submitted,
    [
      { label: 'id', key: 'id', value: (s) => s.id },
      { label: 'status', key: 'status', value: (s) => s.status },
      { label: 'created', key: 'created_at', value: (s) => s.created_at, kind: 'datetime' },
      { label: 'patient id', key: 'customer_patient_id', value: (s) => s.customer_patient_id },
    ],
    raw,
  );
  ctx.info(`Follow it with: outreach eligibility watch ${submitted.id}`);
}
