// `calls delete <id...>`: asks once on a terminal (listing what will be deleted); without one,
// --yes is required. Every id is tried and reported; the exit code says whether any failed. A
// failure's fate is read by fateOf: after a 5xx or a lost answer the call may be gone, and the
// result says "unknown", never "not deleted".
import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import type { Call } from '../../api/types.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { fateOf, fateText, type Fate } from '../../api/errors.js';
import { scriptValue, shownValue } from '../../output/format.js';
import { writeList, type Column } from '../../output/writer.js';
import { plural } from '../../output/plural.js';
import { parseCallId } from './shared.js';

interface Options {
  yes?: boolean;
  args: string[];
}

export function register(calls: Command): void {
  calls
    .command('delete')
    .alias('rm')
    .description('Delete call records (asks first on a terminal; --yes required otherwise)')
    .argument('<id...>', 'call ids')
    .option('-y, --yes', 'do not ask; required when there is no terminal')
    .addHelpText(
      'after',
      examples('outreach calls delete 17', 'outreach calls delete 17 18 19 --yes', 'outreach calls list -q --until 30d | xargs -r outreach calls delete --yes'),
    )
    .action(action(run));
}

export type DeleteStatus = 'deleted' | 'not-found' | 'failed' | 'unknown';

export interface DeleteRow {
  id: number;
  result: DeleteStatus;
  message: string | null;
  /** Exit code of the failure (0 when deleted). */
  exit_code: number;
}

const COLUMNS: Column<DeleteRow>[] = [
  { header: 'ID', key: 'id', value: (r) => r.id },
  { header: 'RESULT', key: 'result', value: (r) => r.result, style: (t, r, c) => (r.result === 'deleted' ? c.green(t) : r.result === 'not-found' ? c.yellow(t) : c.red(t)) },
  { header: 'DETAIL', key: 'message', value: (r) => r.message, shrink: true },
];

/** Severity of a failure's exit code, for choosing the exit code of the whole run. */
const SEVERITY: Record<number, number> = {
  [ExitCode.network]: 50, // includes unknown outcomes: someone must look
  [ExitCode.auth]: 40,
  [ExitCode.service]: 30,
  [ExitCode.validation]: 20,
  [ExitCode.usage]: 15,
  [ExitCode.notFound]: 10,
};

/** 0 when all were deleted; 5 when every failure was a 404; otherwise the most severe failure's code. */
export function exitCodeFor(rows: DeleteRow[]): number {
  let worst = 0;
  for (const r of rows) {
    if (r.exit_code === 0) continue;
    if (worst === 0 || (SEVERITY[r.exit_code] ?? 35) > (SEVERITY[worst] ?? 35)) worst = r.exit_code;
  }
  return worst;
}

/** One id's failure, its fate read by fateOf: a 5xx or a lost answer may have deleted it. */
function rowFromError(id: number, err: unknown, fate: Fate): DeleteRow {
  const exit = err instanceof CliError ? err.exitCode : ExitCode.service;
  const message = (err as Error)?.message ?? String(err);
  if (err instanceof CliError && err.status === 404) return { id, result: 'not-found', message: `call ${id} not found`, exit_code: exit };
  if (fate === 'unknown') return { id, result: 'unknown', message: `the service may or may not have deleted it: ${message}`, exit_code: exit };
  if (fate === 'refused') return { id, result: 'failed', message: `${message} — ${fateText(fate)}`, exit_code: exit };
  return { id, result: 'failed', message, exit_code: exit };
}

export async function run(opts: Options, ctx: Context): Promise<void> {
  const ids = [...new Set(opts.args.map(parseCallId))];
  if (ids.length === 0) throw new UsageError('Give at least one call id.');
  const what = ids.length === 1 ? `call ${ids[0]}` : `${ids.length} calls`;
  if (!opts.yes && !ctx.io.canPrompt) {
    throw new UsageError(`Refusing to delete ${what} without confirmation: there is no terminal to ask on (or --no-input is set). Pass --yes to delete.`);
  }
  const client = await ctx.client();
  const api = await import('../../api/calls.js');
  const rows: DeleteRow[] = [];
  let toDelete = ids;

  if (!opts.yes) {
    // Show what will go, read fresh from the service; ids it does not know are reported, not asked about.
    const found: Array<{ id: number; call: Call }> = [];
    for (const id of ids) {
      try {
        found.push({ id, call: (await api.getCall(client, id)).call });
      } catch (err) {
        if (err instanceof CliError && err.status === 404) rows.push(rowFromError(id, err, 'rejected'));
        else throw err;
      }
    }
    toDelete = found.map((f) => f.id);
    if (found.length > 0) {
      const chalk = await ctx.io.chalkErr();
      const lines = found.map(
        ({ call }) =>
          `  ${shownValue(call.id).padEnd(6)} ${shownValue(call.started_at, 'datetime').padEnd(16)}  ${shownValue(call.duration_ms, 'duration').padStart(7)}  ${shownValue(call.outcome)}`,
      );
      ctx.io.err(`${chalk.bold(found.length === 1 ? 'This call will be deleted permanently:' : `These ${plural(found.length, 'call')} will be deleted permanently:`)}\n${lines.join('\n')}\n`);
      if (rows.length) ctx.io.err(`Not found (skipped): ${rows.map((r) => r.id).join(', ')}\n`);
      const prompter = await ctx.prompter();
      const ok = await prompter.confirm(`Delete ${found.length === 1 ? `call ${found[0]!.id}` : `these ${found.length} calls`}?`, {
        default: false,
        interrupted: 'nothing was deleted',
      });
      if (!ok) {
        ctx.info('Nothing deleted.');
        if (rows.length) await report(ctx, rows);
        return;
      }
    }
  }

  const stream = streaming(ctx);
  for (const row of rows) stream?.(row);
  for (const id of toDelete) {
    let row: DeleteRow;
    try {
      const r = await api.deleteCall(client, id);
      row = {
        id,
        result: 'deleted',
        message: r.outcome === 'deleted-on-retry' ? 'the first attempt got no answer; the retry found it already gone' : null,
        exit_code: 0,
      };
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      row = rowFromError(id, err, fateOf(err));
    }
    rows.push(row);
    stream?.(row);
  }
  if (!stream) await writeList(ctx, rows, COLUMNS, rows);
  const code = exitCodeFor(rows);
  if (code !== 0) {
    const failed = rows.filter((r) => r.exit_code !== 0);
    const unknown = failed.filter((r) => r.result === 'unknown');
    const notDeleted = failed.filter((r) => r.result !== 'unknown');
    const deleted = rows.length - failed.length;
    const noun = rows.length === 1 ? 'call' : 'calls';
    const deletedNote = deleted ? ` (${deleted} deleted)` : '';
    const parts: string[] = [];
    if (notDeleted.length) parts.push(`${notDeleted.length} of ${rows.length} ${noun} not deleted${deletedNote}: ${notDeleted.map((r) => `${r.id} ${r.result}`).join(', ')}`);
    if (unknown.length) {
      parts.push(`${unknown.length} of ${rows.length} ${noun} may or may not have been deleted${notDeleted.length ? '' : deletedNote}: ${unknown.map((r) => r.id).join(', ')}`);
    }
    throw new CliError(`${parts.join('; ')}.`, code, {
      code: failed.every((r) => r.result === 'not-found') ? 'not_found' : unknown.length === failed.length ? 'unknown_outcome' : 'partial_failure',
      details: rows,
      hint: unknown.length
        ? `Check with \`outreach calls get ${unknown[0]!.id}\`: a 404 means it is gone. Deleting again is safe.`
        : undefined,
    });
  }
}

/** Prints the per-id results that were gathered when nothing is being deleted. */
async function report(ctx: Context, rows: DeleteRow[]): Promise<void> {
  await writeList(ctx, rows, COLUMNS, rows);
  const code = exitCodeFor(rows);
  if (code) throw new CliError(`${rows.length} of the given calls not found: ${rows.map((r) => r.id).join(', ')}.`, code, { code: 'not_found', details: rows });
}

/**
 * Table and ndjson output is written as each id is done (so an interrupted run still shows what
 * happened); json, csv and tsv are written once at the end.
 */
function streaming(ctx: Context): ((row: DeleteRow) => void) | undefined {
  const { format } = ctx.globals;
  if (format === 'ndjson') return (row) => ctx.io.out(`${JSON.stringify(row)}\n`);
  if (format !== 'table') return undefined;
  if (!ctx.io.isStdoutTTY) {
    return (row) => ctx.io.out(`${[row.id, row.result, row.message ?? ''].map((v) => scriptValue(v)).join('\t')}\n`);
  }
  const symbols: Record<DeleteStatus, string> = { deleted: '✓', 'not-found': '?', failed: '✗', unknown: '!' };
  return (row) =>
    ctx.io.out(`${symbols[row.result]} call ${row.id} ${row.result === 'not-found' ? 'not found' : row.result}${row.message && row.result !== 'not-found' ? `: ${shownValue(row.message)}` : ''}\n`);
}
