import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, InterruptedError, UsageError, WaitTimeoutError, ValidationError } from '../../errors.js';
import type { EligibilityCheck } from '../../api/types.js';
import type { HttpClient } from '../../api/http.js';
import { terminalSafe } from '../../output/safe.js';

export function register(parent: Command): void {
  parent
    .command('watch')
    .argument('<id...>', 'one or more check ids')
    .description('Poll checks with backoff until completed (or a status this version does not know); a progress line on a terminal, only the result when piped')
    .option('--interval <seconds>', 'longest wait between polls (they start at about 1 s and grow)', '10')
    .option('--timeout <seconds>', 'give up after this long (exit 124)', '300')
    .option('--fail-inactive', 'exit 3 when coverage is not active today or the outcome is not success')
    .addHelpText(
      'after',
      examples(
        'outreach eligibility watch 42',
        'outreach eligibility watch 42 43 44 --timeout 120 --fail-inactive',
        // -o json is what the service sent: an array holding the check (API.md), or the check itself.
        'outreach eligibility watch 42 -o json | jq \'.[0]? // . | .coverage.is_active_today\'',
      ) +
        '\nWaiting statuses are queued and in-progress; completed ends the watch. Any other status (failed,\n' +
        'cancelled, one added to the service later) also ends it at once: the record is printed and the exit is 1.\n' +
        'Exit: 0 completed, 1 a status this version does not know, 3 --fail-inactive and not active/success,\n' +
        '5 unknown id, 124 timed out, 130 Ctrl-C; several ids give the worst (highest) of them.\n',
    )
    .action(action(run));
}

export interface WatchFlags {
  interval?: string;
  timeout?: string;
  failInactive?: boolean;
}

export function parseSeconds(raw: string | undefined, flag: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 86_400) {
    throw new UsageError(`Invalid ${flag} "${raw}": give a number of seconds above 0 (at most 86400).`);
  }
  return n;
}

export async function run(opts: WatchFlags & { args: string[] }, ctx: Context): Promise<void> {
  const { parseId } = await import('./get.js');
  const ids = [...new Set(opts.args.map((a) => parseId(a)))];
  if (ids.length === 0) throw new UsageError('Give at least one check id.');
  const flags = { intervalSec: parseSeconds(opts.interval, '--interval', 10), timeoutSec: parseSeconds(opts.timeout, '--timeout', 300), failInactive: Boolean(opts.failInactive) };
  const client = await ctx.client();
  await watchChecks(ctx, client, ids, flags);
}

export interface WatchSettings {
  intervalSec: number;
  timeoutSec: number;
  failInactive: boolean;
  /** Print only the ids (check -q --wait). */
  idsOnly?: boolean;
}

/** Watches checks to completion and prints the result; throws the worst outcome's error. */
export async function watchChecks(ctx: Context, client: HttpClient, ids: number[], s: WatchSettings): Promise<void> {
  const { getEligibility } = await import('../../api/eligibility.js');
  const { watchAll, DEFAULT_BACKOFF } = await import('../../eligibility/backoff.js');
  const { verdictFor, worstExit, pollResultFor } = await import('../../eligibility/verdict.js');
  const { fateOf } = await import('../../api/errors.js');
  const raws = new Map<number, unknown>();

  // The progress line (only on a terminal and not -q): how many are complete, the statuses the
  // service gives the others, and the seconds waited on the run's clock (the one the timeout counts on).
  let statusText = '';
  const started = ctx.clock.now();
  const progress = await ctx.io.progress({
    label: ids.length === 1 ? `Waiting for check ${ids[0]}` : 'Waiting for checks',
    unit: 'check',
    verb: 'complete',
    total: ids.length,
    detail: (now) => [statusText, `${Math.round((now - started) / 1000)}s`].filter(Boolean).join(' · '),
  });
  let complete = 0;
  const clear = () => progress.done();

  // A Ctrl-C stops the watching, not the checks: main says so after "Interrupted.".
  const these = ids.length === 1 ? 'The check goes on' : 'The checks go on';
  ctx.interruptNote = `${these} in the service. Follow ${ids.length === 1 ? 'it' : 'them'} with: outreach eligibility watch ${ids.join(' ')}`;
  let outcome;
  try {
    outcome = await watchAll<EligibilityCheck>({
      ids,
      clock: ctx.clock,
      signal: ctx.signal,
      timeoutMs: s.timeoutSec * 1000,
      backoff: { ...DEFAULT_BACKOFF, maxMs: s.intervalSec * 1000 },
      poll: async (id) => {
        try {
          const { check, raw } = await getEligibility(client, id);
          raws.set(id, raw);
          return pollResultFor(check);
        } catch (error) {
          if (ctx.signal.aborted) throw new InterruptedError();
          // An unknown id ends that id's watch (exit 5); a refusal (429/503) waits as the service
          // asked; anything else ends the run.
          if (error instanceof ApiError && error.status === 404) return { failed: true, error };
          if (fateOf(error) === 'refused') return { refused: true, retryAfterMs: (error as ApiError).retryAfterMs };
          throw error;
        }
      },
      onRound: (states) => {
        const counts = new Map<string, number>();
        complete = 0;
        for (const st of states.values()) {
          if (st.kind !== 'pending') complete++;
          // The service's status words go on the live line: inert.
          const k = terminalSafe(st.kind === 'pending' ? st.status : st.kind === 'done' ? String(st.value.status) : 'not found');
          counts.set(k, (counts.get(k) ?? 0) + 1);
        }
        statusText = ids.length === 1 ? [...counts.keys()][0]! : [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
        progress.update(complete);
      },
    });
  } catch (err) {
    clear();
    if (ctx.signal.aborted) throw new InterruptedError();
    throw err;
  } finally {
    ctx.interruptNote = undefined;
  }
  clear();

  // Results: the completed (or last seen) record of every id; a status this version does not
  // know ends that id's watch like `completed` does, with exit 1.
  const records: EligibilityCheck[] = [];
  const codes: number[] = [];
  const reasons: string[] = [];
  const pendingIds: number[] = [];
  let notFound: CliError | undefined;
  for (const id of ids) {
    const st = outcome.states.get(id)!;
    if (st.kind === 'done') {
      records.push(st.value);
      const v = verdictFor(st.value, s.failInactive);
      codes.push(v.code);
      if (v.reason) reasons.push(v.reason);
    } else if (st.kind === 'failed') {
      const e = st.error as CliError;
      codes.push(e.exitCode ?? 1);
      notFound ??= e instanceof CliError ? e : undefined;
      reasons.push(`check ${id} was not found`);
    } else {
      pendingIds.push(id);
      codes.push(124);
      const raw = raws.get(id);
      const rec = Array.isArray(raw) ? raw[0] : raw;
      if (rec && typeof rec === 'object') records.push(rec as EligibilityCheck);
    }
  }

  if (s.idsOnly || (ctx.globals.quiet && !ctx.globals.formatExplicit)) {
    for (const id of ids) ctx.io.out(`${id}\n`);
  } else if (ids.length === 1 && records.length === 1) {
    const { writeCheck } = await import('../../eligibility/render.js');
    await writeCheck(ctx, records[0]!, raws.get(ids[0]!) ?? records[0]);
  } else if (records.length > 0) {
    const { writeChecks } = await import('../../eligibility/render.js');
    await writeChecks(ctx, records, records);
  }

  const worst = worstExit(codes);
  if (worst === 0) return;
  const others = reasons.length > 0 ? ` Also: ${reasons.join('; ')}.` : '';
  if (worst === 124) {
    throw new WaitTimeoutError(
      `Gave up after ${s.timeoutSec}s: ${pendingIds.length === 1 ? `check ${pendingIds[0]} is` : `checks ${pendingIds.join(', ')} are`} not completed yet.${others}`,
      { hint: `Watch again later: outreach eligibility watch ${pendingIds.join(' ')}` },
    );
  }
  if (worst === 3) throw new ValidationError(reasons.join('; ') + '.');
  // One unknown id alone keeps the service's own 404 error (its message, status and body).
  if (notFound && reasons.length === 1 && notFound.exitCode === worst) throw notFound;
  throw new CliError(reasons.join('; ') + '.', worst, { code: worst === 1 ? 'unknown_status' : 'watch_failed' });
}
