import type { Command } from 'commander';
import { action, examples } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function register(parent: Command): void {
  parent
    .command('outcomes')
    .description(
      'Outreach results back to the spreadsheet: every row of an uploaded file with the state of its sequence\n' +
        '(status, outcome, contact reached, last call) and one result word; the list of whom to call by hand',
    )
    .argument('<file>', 'the patient file that was uploaded with `sequences batch` (.csv or .xlsx), unchanged')
    .option('--from <file>', "the batch's results file (its --out) or journal; default: <file>.journal.ndjson")
    .option('--out <file>', 'write every row, its own columns first, then the outcome columns (.csv, .ndjson or .xlsx; 0600)')
    .option('--only <results>', 'keep the rows with these results, comma-separated (e.g. not-reached,declined)')
    .option('--wait', 'read again the sequences not yet ended until all have ended (or --timeout)')
    .option('--interval <seconds>', 'with --wait: longest pause between reads (they start at about 1 s and grow; default 30)')
    .option('--timeout <seconds>', 'with --wait: give up after this long, write what was read, exit 124 (default 3600)')
    .option('--concurrency <n>', 'sequences read at once (1 to 32, default 4)')
    .option('--sheet <name|n>', 'workbook only: the sheet that was uploaded (name or 1-based number)')
    .option('--delimiter <char>', 'CSV only: the delimiter the batch was given (",", ";", "tab")')
    .option('--map <COLUMN=field>', 'the --map flags the batch was given (those for the name and phone columns matter)', collect, [])
    .option('--country <code>', 'the --country the batch was given (phone numbers written without +country)', 'US')
    .addHelpText(
      'after',
      examples(
        'outreach sequences outcomes patients.csv',
        'outreach sequences outcomes patients.csv --from results.csv --out followup.csv',
        'outreach sequences outcomes patients.csv --only not-reached,declined,callback-requested --out to-call.csv',
        'outreach sequences outcomes patients.csv --wait --timeout 7200 --out followup.xlsx',
        'outreach sequences outcomes patients.csv -o json | jq \'.[] | select(.result == "not-reached")\'',
      ) +
        '\nResults: not-reached, declined, callback-requested, opted-out, failed,\n' +
        'cancelled, completed (the sequence ended), in-progress (queued, running or\n' +
        'paused), other (a status this version does not know, nothing scheduled);\n' +
        'rows without a sequence keep the batch\'s word: invalid, skipped, not-sent,\n' +
        'unknown, not-created; not-found when the service no longer has the sequence.\n' +
        '\nThe file must be the one uploaded: its rows are matched to the journal by\n' +
        'line and by a keyed hash of the phone number, and any difference stops the\n' +
        'command (exit 2) rather than join a patient to another patient\'s sequence.\n' +
        '\nExit codes: 0 done (patients not reached are a result, not an error), 2\n' +
        'usage or a file that is not the one uploaded, 4 authentication, 6 network,\n' +
        '124 --wait gave up at --timeout (the file holds what was read), 130 Ctrl-C\n' +
        '(nothing written; the outreach goes on in the service).\n',
    )
    .action(action(run));
}

interface Opts {
  args: string[];
  from?: string;
  out?: string;
  only?: string;
  wait?: boolean;
  interval?: string;
  timeout?: string;
  concurrency?: string;
  sheet?: string;
  delimiter?: string;
  map: string[];
  country: string;
}

export async function run(opts: Opts, ctx: Context): Promise<void> {
  const file = opts.args[0];
  if (!file) throw new UsageError('Missing the patient file: outreach sequences outcomes <file>.');
  const { parseOnly, RESULTS } = await import('../../outcomes/classify.js');
  let only;
  if (opts.only !== undefined) {
    const parsed = parseOnly(opts.only);
    if (parsed.unknown.length || parsed.results.size === 0) {
      const bad = parsed.unknown.length ? `"${parsed.unknown.join('", "')}" ${parsed.unknown.length === 1 ? 'is not a result' : 'are not results'}` : 'it names no result';
      throw new UsageError(`--only: ${bad}. Results: ${RESULTS.join(', ')}.`);
    }
    only = parsed.results;
  }
  if (!opts.wait && (opts.timeout !== undefined || opts.interval !== undefined)) throw new UsageError('--timeout and --interval go with --wait.');
  if (opts.out) await (await import('../../csv/results.js')).checkResultsPath(opts.out);
  const delimiter = (await import('../../csv/open.js')).parseDelimiter(opts.delimiter);
  const [{ parseSeconds }, { parseConcurrency }] = await Promise.all([import('../eligibility/watch.js'), import('../../util/concurrency.js')]);
  const wait = opts.wait ? { intervalSec: parseSeconds(opts.interval, '--interval', 30), timeoutSec: parseSeconds(opts.timeout, '--timeout', 3600) } : undefined;
  const { runOutcomes } = await import('../../outcomes/run.js');
  await runOutcomes(
    {
      file,
      from: opts.from,
      out: opts.out,
      only,
      wait,
      concurrency: parseConcurrency(opts.concurrency),
      sheet: opts.sheet,
      delimiter,
      map: opts.map ?? [],
      country: (opts.country ?? 'US').toUpperCase(),
    },
    ctx,
  );
}
