// `eligibility check --csv FILE`: the bulk run (see src/eligibility/bulk.ts for the journal, the
// lock and the pacing). Reads and checks every row first, reports bad rows by line, submits the
// rest, optionally waits for them, and writes one result per input row.
import type { Context } from '../../context.js';
import { CliError, IncompleteError, InterruptedError, UsageError, ValidationError, WaitTimeoutError } from '../../errors.js';
import type { BulkRow } from '../../eligibility/bulk.js';
import type { CheckOptions } from './check.js';

const SINGLE_ONLY: Array<keyof CheckOptions> = ['firstName', 'lastName', 'dob', 'memberId', 'patientId', 'payer', 'providerName', 'npi', 'input'];

export async function runBulk(opts: CheckOptions, ctx: Context): Promise<void> {
  for (const k of SINGLE_ONLY) {
    if (opts[k] !== undefined) throw new UsageError(`--csv takes every field from the file; drop --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.`);
  }
  const { parseConcurrency } = await import('../../util/concurrency.js');
  const concurrency = parseConcurrency(opts.concurrency, 4);
  const { parseSeconds } = await import('./watch.js');
  const intervalSec = parseSeconds(opts.interval, '--interval', 10);
  const timeoutSec = parseSeconds(opts.timeout, '--timeout', 300);
  if (opts.failInactive && !opts.wait) throw new UsageError('--fail-inactive needs --wait.');
  const csvPath = opts.csv!;

  const [{ openCsv, CsvFormatError }, headers, bulk, results] = await Promise.all([
    import('../../csv/reader.js'),
    import('../../csv/headers.js'),
    import('../../eligibility/bulk.js'),
    import('../../csv/results.js'),
  ]);
  if (opts.out !== undefined) {
    try {
      results.resultsFormatFor(opts.out);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }

  // Webhook settings apply to every row.
  let webhook: { url?: string; secret?: string } | undefined;
  if (opts.webhookUrl || opts.webhookSecretEnv || opts.webhookSecretStdin) {
    const { checkWebhookUrl } = await import('../../eligibility/request.js');
    if (!opts.webhookUrl) throw new UsageError('A webhook secret was given without --webhook-url.');
    const problem = checkWebhookUrl(opts.webhookUrl);
    if (problem) throw new UsageError(`Invalid --webhook-url: it ${problem}.`);
    let secret: string | undefined;
    if (opts.webhookSecretEnv) {
      secret = ctx.env[opts.webhookSecretEnv]?.trim();
      if (!secret) throw new UsageError(`--webhook-secret-env: the environment variable ${opts.webhookSecretEnv} is not set or empty.`);
    } else if (opts.webhookSecretStdin) {
      const { readStdin } = await import('../../input.js');
      secret = (await readStdin(ctx.io)).trim();
      if (!secret) throw new UsageError('--webhook-secret-stdin: stdin was empty.');
    }
    webhook = { url: opts.webhookUrl, secret };
  }

  // 1. Headers.
  let file;
  try {
    file = await openCsv(csvPath);
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
  let match;
  try {
    match = headers.matchHeaders(file.headers, headers.ELIGIBILITY_TARGETS, headers.parseMapOptions(opts.map ?? []));
  } catch (err) {
    if (err instanceof headers.MapOptionError) throw new UsageError(err.message);
    throw err;
  }
  const { FIELDS } = await import('../../eligibility/request.js');
  const headerProblems: string[] = [];
  for (const f of match.missingRequired) headerProblems.push(`no column for ${f} (${FIELDS[f as keyof typeof FIELDS]?.path ?? f})`);
  for (const d of match.duplicates) headerProblems.push(`columns ${d.columns.map((c) => `"${c}"`).join(' and ')} both match ${d.field}`);
  for (const a of match.ambiguous) headerProblems.push(`column "${a.column}" could be ${a.fields.join(' or ')}`);
  if (headerProblems.length > 0) {
    throw new UsageError(`${csvPath}, line ${file.headerLine}: ${headerProblems.join('; ')}.`, {
      hint: 'Rename the columns or use --map "COLUMN=field" (fields: firstName, lastName, dateOfBirth, memberId, customerPatientId, payerId, providerName, npi).',
    });
  }

  // 2. The lock, then the journal: two runs on the same file cannot both submit.
  const { acquireLock, LockedError } = await import('../../journal/lock.js');
  let lock;
  try {
    lock = await acquireLock(bulk.lockPath(csvPath));
  } catch (err) {
    if (err instanceof LockedError) throw new CliError(`${csvPath} is in use: ${err.message}.`, 2, { code: 'locked' });
    throw err;
  }
  ctx.handlesInterrupt = true;
  let journal: import('../../eligibility/bulk.js').Journal | undefined;
  let progressTimer: NodeJS.Timeout | undefined;
  // The results file is opened first (a temporary file beside --out, renamed at the end): a symlink
  // or an unwritable --out stops the run before anything is sent. Once every row has been through
  // the submission (`settled`), the results are truthful and are written on every way out — an
  // error, Ctrl-C, a timeout; before that, the run is abandoned and an earlier file is kept.
  let out: import('../../csv/results.js').ResultsWriter | undefined;
  let settled: BulkRow[] | undefined;
  const finishResults = async () => {
    const w = out;
    out = undefined;
    if (!w) return;
    if (!settled) return w.abort();
    try {
      for (const r of settled) await w.write(bulk.resultRecord(r));
      await w.close();
    } catch (err) {
      await w.abort();
      throw err;
    }
  };
  try {
    if (lock.staleRecovered) await ctx.warn(`took over a stale lock left by a run that is no longer running (${bulk.lockPath(csvPath)}).`);
    if (opts.out !== undefined) out = await results.openResults(opts.out, bulk.RESULT_COLUMNS);
    // The journal is read before it is opened for appending: refuse a symlink or a FIFO now (a
    // FIFO would block the read), not after the rows are checked.
    const { checkWritablePath } = await import('../../util/files.js');
    await checkWritablePath(bulk.journalPath(csvPath));
    const state = await bulk.readJournal(bulk.journalPath(csvPath));

    // 3. Every row checked locally first.
    const rows: BulkRow[] = [];
    const seen = new Map<string, number>();
    const today = ctx.now();
    try {
      for await (const r of file.rows) rows.push(bulk.checkRow(r.line, r.values, match.mapping, today, seen));
    } catch (err) {
      if (err instanceof CsvFormatError) throw new UsageError(err.message);
      throw err;
    }
    const invalid = rows.filter((r) => r.result === 'invalid');
    if (invalid.length > 0 && !ctx.globals.quiet) {
      const lines = invalid.slice(0, 50).flatMap((r) => r.problems.map((p) => `  ${String(r.line).padEnd(11)} ${FIELDS[p.field].path.padEnd(28)} ${p.message}`));
      ctx.io.err(`${invalid.length} of ${rows.length} rows are not valid and will not be sent:\n  ${'LINE'.padEnd(11)} ${'FIELD'.padEnd(28)} PROBLEM\n${lines.join('\n')}\n${invalid.length > 50 ? `  … and ${invalid.length - 50} more (see --out)\n` : ''}`);
    }

    // 4. Submit.
    const client = await ctx.client();
    const api = await import('../../api/eligibility.js');
    journal = await bulk.Journal.open(bulk.journalPath(csvPath));
    const progress = makeProgress(ctx, rows.length);
    progressTimer = progress.timer;
    for (const r of rows) if (r.result === 'invalid') progress.settled(r);
    const deps = {
      submit: async (body: import('../../api/types.js').EligibilityRequest) => (await api.submitEligibility(client, body, { maxRetries: 0 })).submitted,
      lookup: async (key: string) => (await api.listEligibility(client, { patient: key, limit: 1000 })).checks,
      clock: ctx.clock,
      signal: ctx.signal,
      journal,
      state,
      concurrency,
      webhook,
      onSettled: progress.settled,
      resendUnknown: Boolean(opts.resendUnknown),
    };
    const unknownBefore = rows.filter((r) => r.result !== 'invalid' && state.unknown.has(r.key));
    if (unknownBefore.length > 0) {
      ctx.info(`Looking up ${unknownBefore.length} row(s) whose earlier submission's fate is unknown…`);
      await bulk.resolveUnknown(unknownBefore, deps);
    }
    const summary = await bulk.submitRows(rows, deps);
    settled = rows;
    progress.done();

    // 5. Optionally wait for the submitted checks.
    let timedOut = false;
    const waitCodes: number[] = [];
    let unknownStatus = 0;
    if (opts.wait && !summary.interrupted && !summary.fatal) {
      const ids = rows.filter((r) => r.id !== undefined).map((r) => r.id!);
      if (ids.length > 0) {
        const { watchAll, DEFAULT_BACKOFF } = await import('../../eligibility/backoff.js');
        const { verdictFor, pollResultFor } = await import('../../eligibility/verdict.js');
        const { fateOf } = await import('../../api/errors.js');
        if (!ctx.globals.quiet) ctx.info(`Waiting for ${ids.length} check(s) to complete…`);
        const outcome = await watchAll<import('../../api/types.js').EligibilityCheck>({
          ids,
          clock: ctx.clock,
          signal: ctx.signal,
          timeoutMs: timeoutSec * 1000,
          backoff: { ...DEFAULT_BACKOFF, maxMs: intervalSec * 1000 },
          concurrency,
          poll: async (id) => {
            try {
              const { check } = await api.getEligibility(client, id);
              return pollResultFor(check);
            } catch (error) {
              if (ctx.signal.aborted) throw error;
              // Refused (429/503): wait as the service asked and poll again; other failures end that id.
              if (fateOf(error) === 'refused') return { refused: true, retryAfterMs: (error as { retryAfterMs?: number }).retryAfterMs };
              return { failed: true, error };
            }
          },
        }).catch((err) => {
          if (ctx.signal.aborted) return undefined;
          throw err;
        });
        if (!outcome) summary.interrupted = true;
        else {
          timedOut = outcome.timedOut;
          for (const row of rows) {
            if (row.id === undefined) continue;
            const st = outcome.states.get(row.id);
            if (st?.kind === 'done') {
              row.status = st.value.status;
              row.outcome = st.value.outcome;
              row.active_today = st.value.coverage?.is_active_today;
              const v = verdictFor(st.value, Boolean(opts.failInactive));
              if (v.code === 1) {
                unknownStatus++;
                row.error = v.reason;
              } else waitCodes.push(v.code);
            } else if (st?.kind === 'pending') row.status = st.status;
            else if (st?.kind === 'failed') row.error = (st.error as Error)?.message;
          }
        }
      }
    }

    // 6. Results, one per input row.
    const records = rows.map(bulk.resultRecord);
    if (opts.out !== undefined) {
      await finishResults();
    } else if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
      for (const r of rows) if (r.id !== undefined) ctx.io.out(`${r.id}\n`);
    } else {
      const { writeList } = await import('../../output/writer.js');
      await writeList(
        ctx,
        records,
        bulk.RESULT_COLUMNS.map((c) => ({ header: c.toUpperCase().replace('_', ' '), value: (r: Record<string, unknown>) => r[c], kind: c === 'active_today' ? ('bool' as const) : undefined })),
        records,
      );
    }

    const count = (k: string) => rows.filter((r) => r.result === k).length;
    const parts = [
      `${count('accepted')} submitted`,
      count('already-submitted') ? `${count('already-submitted')} already submitted earlier` : '',
      count('invalid') ? `${count('invalid')} invalid` : '',
      count('rejected') ? `${count('rejected')} rejected by the service` : '',
      count('unknown') ? `${count('unknown')} unknown` : '',
      count('not-sent') ? `${count('not-sent')} not sent` : '',
      summary.throttled ? `(the service asked to slow down ${summary.throttled} time(s))` : '',
    ].filter(Boolean);
    ctx.info(`${rows.length} rows: ${parts.join(', ')}.${opts.out ? ` Results in ${opts.out}.` : ''}`);

    const rerun =
      'Run the same command again to continue: rows already submitted are skipped; rows whose fate is unknown are looked up ' +
      'on the service and never sent again automatically.';
    const unknownRows = rows.filter((r) => r.result === 'unknown');
    const unknownNote =
      unknownRows.length > 0
        ? ` ${unknownRows.length} row(s) may or may not have created a check (line${unknownRows.length === 1 ? '' : 's'} ${listLines(unknownRows)}): ` +
          'check them on the service (outreach eligibility list --patient ID), then run again with --resend-unknown to send those still missing.'
        : '';
    if (summary.interrupted) throw new InterruptedError(`Interrupted. ${rerun}${unknownNote}`);
    if (summary.fatal) {
      const f = summary.fatal as CliError;
      throw new CliError(`${f.message} ${rerun}${unknownNote}`, f.exitCode ?? 7, { code: f.code, hint: f.hint });
    }
    if (count('unknown') + count('not-sent') > 0) {
      const notSent = count('not-sent') > 0 ? `${count('not-sent')} row(s) were not sent; running again sends them.` : '';
      throw new IncompleteError(`${[notSent, unknownNote.trim()].filter(Boolean).join(' ')} ${count('not-sent') > 0 ? rerun : ''}`.trim());
    }
    if (timedOut) throw new WaitTimeoutError(`Gave up waiting after ${timeoutSec}s; some checks are not completed yet (see the status column).`);
    if (count('invalid') + count('rejected') > 0) {
      throw new ValidationError(`${count('invalid')} invalid and ${count('rejected')} rejected row(s) were not submitted (see the lines above${opts.out ? ` and ${opts.out}` : ''}).`);
    }
    if (waitCodes.some((c) => c !== 0)) {
      const also = unknownStatus > 0 ? ` Also, ${unknownStatus} check(s) have a status this version does not know.` : '';
      throw new ValidationError(`Some checks are not active today or not successful (--fail-inactive).${also}`);
    }
    if (unknownStatus > 0) {
      throw new CliError(`${unknownStatus} check(s) have a status this version does not know; it is not waiting for them any more (see the status and error columns).`, 1, {
        code: 'unknown_status',
      });
    }
  } finally {
    if (progressTimer) clearInterval(progressTimer);
    if (out) {
      // Leaving early with an error: still write what is known (or drop the temporary file).
      await finishResults().catch((err: unknown) => ctx.warn(`could not write ${opts.out}: ${(err as Error).message}`));
    }
    await journal?.close().catch(() => undefined);
    await lock.release().catch(() => undefined);
  }
}

/** A progress bar on stderr when it is a terminal (and not -q); nothing otherwise. */
function makeProgress(ctx: Context, total: number) {
  const live = ctx.io.isStderrTTY && !ctx.globals.quiet && total > 0;
  let settled = 0;
  let ok = 0;
  let bad = 0;
  let dirty = false;
  const draw = () => {
    if (!dirty) return;
    dirty = false;
    const width = 30;
    const filled = Math.round((settled / total) * width);
    ctx.io.err(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${settled}/${total} rows · ${ok} submitted · ${bad} not submitted`);
  };
  const timer = live ? setInterval(draw, 100) : undefined;
  timer?.unref();
  return {
    timer,
    settled: (row: BulkRow) => {
      settled++;
      if (row.result === 'accepted' || row.result === 'already-submitted') ok++;
      else bad++;
      dirty = true;
    },
    done: () => {
      if (!live) return;
      dirty = true;
      draw();
      ctx.io.err('\n');
    },
  };
}

/** Line numbers for a message: the first 20, then how many more. */
function listLines(rows: BulkRow[]): string {
  const shown = rows.slice(0, 20).map((r) => r.line).join(', ');
  return rows.length > 20 ? `${shown} and ${rows.length - 20} more` : shown;
}
