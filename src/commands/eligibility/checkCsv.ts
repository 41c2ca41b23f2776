// `eligibility check --csv FILE`: the flags of the bulk run, checked before anything is read; the
// run itself is src/eligibility/bulkRun.ts (streamed rows, the journal engine, the summary).
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readSecret } from '../../secret.js';
import type { CheckOptions } from './check.js';

const SINGLE_ONLY: Array<keyof CheckOptions> = ['firstName', 'lastName', 'dob', 'memberId', 'patientId', 'payer', 'providerName', 'npi', 'input'];

export async function runBulk(opts: CheckOptions, ctx: Context): Promise<void> {
  for (const k of SINGLE_ONLY) {
    if (opts[k] !== undefined) throw new UsageError(`--csv takes every field from the file; drop --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.`);
  }
  const { patientFileOptionProblem } = await import('../../csv/open.js');
  const fileProblem = patientFileOptionProblem(opts.csv!, { sheet: opts.sheet });
  if (fileProblem) throw new UsageError(fileProblem);
  const { parseConcurrency } = await import('../../util/concurrency.js');
  const concurrency = parseConcurrency(opts.concurrency);
  const { parseSeconds } = await import('./watch.js');
  const intervalSec = parseSeconds(opts.interval, '--interval', 10);
  const timeoutSec = parseSeconds(opts.timeout, '--timeout', 300);
  if (opts.failInactive && !opts.wait) throw new UsageError('--fail-inactive needs --wait.');
  let only: Set<string> | undefined;
  if (opts.only !== undefined) {
    const { parseOnly, OnlyOptionError } = await import('../../eligibility/bulkOnly.js');
    try {
      only = parseOnly(opts.only, Boolean(opts.wait));
    } catch (err) {
      if (err instanceof OnlyOptionError) throw new UsageError(err.message);
      throw err;
    }
  }

  // Webhook settings apply to every row; the secret never comes from a plain flag.
  let webhook: { url?: string; secret?: string } | undefined;
  const secretFlag = opts.webhookSecretEnv ? ['--webhook-secret-env', opts.webhookSecretEnv] : opts.webhookSecretStdin ? ['--webhook-secret-stdin'] : [];
  if (opts.webhookUrl || secretFlag.length) {
    const { checkWebhookUrl } = await import('../../eligibility/request.js');
    if (!opts.webhookUrl) throw new UsageError('A webhook secret was given without --webhook-url.');
    const problem = checkWebhookUrl(opts.webhookUrl);
    if (problem) throw new UsageError(`Invalid --webhook-url: it ${problem}.`);
    const secret = await readSecret(ctx, {
      what: 'webhook secret',
      envFlag: '--webhook-secret-env',
      envVar: opts.webhookSecretEnv,
      stdinFlag: '--webhook-secret-stdin',
      useStdin: Boolean(opts.webhookSecretStdin),
      pipeExample: 'echo "$SECRET" | outreach eligibility check --csv patients.csv ... --webhook-secret-stdin',
    });
    webhook = { url: opts.webhookUrl, secret };
  }

  const { runBulkCheck } = await import('../../eligibility/bulkRun.js');
  await runBulkCheck(ctx, {
    csv: opts.csv!,
    sheet: opts.sheet,
    concurrency,
    out: opts.out,
    map: opts.map ?? [],
    webhook,
    webhookSecretFlag: secretFlag,
    resendUnknown: Boolean(opts.resendUnknown),
    wait: opts.wait ? { intervalSec, timeoutSec, failInactive: Boolean(opts.failInactive) } : undefined,
    only,
  });
}
