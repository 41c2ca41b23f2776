import { Option, type Command } from 'commander';
import { action, examples, requiredInHelp } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function register(parent: Command): void {
  parent
    .command('batch')
    .description(
      'Create sequences from a patient CSV or Excel workbook (the main job): local checks with line numbers, a validate_only pass,\n' +
        'a confirmation, then chunks of 100 (4 in flight), each journalled so an interrupted run can be resumed safely',
    )
    .argument('<file.csv>', 'patient file: CSV (, ; or tab; UTF-8 or Windows-1252) or Excel .xlsx')
    .addOption(requiredInHelp(new Option('--definition <id>', 'sequence definition the rows are for (outreach definitions list)'), 'unless --definition-file'))
    .option('--validate-only', 'check every row with the service (validate_only) and create nothing; exit 3 if any row is invalid')
    .option('--dry-run', 'local checks only: no validate_only requests, nothing created (with --definition-file: no request at all)')
    .option('--definition-file <file>', 'read the definition from a JSON file (as printed by `definitions get <id> -o json`) instead of the service')
    .option('--next-activity <iso>', 'when the first activity is scheduled (ISO 8601 date-time); default now')
    .option('--map <COLUMN=field>', 'feed a column to a field (repeatable); COLUMN=- ignores a column', collect, [])
    .option('--country <code>', 'country of phone numbers written without +country', 'US')
    .option('--delimiter <char>', 'CSV field delimiter (",", ";", "tab"); detected by default')
    .option('--sheet <NAME|N>', 'Excel .xlsx: the sheet to read, by name or number (default: the first)')
    .option('--out <results.csv>', 'write every input row with its line, status, sequence_id and messages (.csv, .ndjson or .xlsx)')
    .option(
      '--rejects <file>',
      "write the invalid rows as they were (the file's own columns and values) plus a problem column, to fix and upload again (.csv or .xlsx; the header only when no row is invalid)",
    )
    .option('--skip-invalid', 'create the valid rows even when some rows are invalid (they are reported and skipped)')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option('--resume', "continue a stopped run from its journal: sends the rows never sent; looks for the rows whose creation is unknown among the service's sequences first")
    .option('--concurrency <n>', 'chunks of 100 rows in flight at once, validate and create passes (1 to 32, default 4)')
    .option('--resend-unknown', 'with --resume: also send the rows whose creation stayed unknown (after a person has checked they were not created)')
    .addOption(new Option('--journal <file>', 'journal path (default: <out or file>.journal.ndjson)').hideHelp())
    .addHelpText(
      'after',
      examples(
        'outreach sequences batch patients.csv --definition 1 --validate-only',
        'outreach sequences batch patients.csv --definition 1 --out results.csv',
        'outreach sequences batch patients.csv --definition 1 --validate-only --rejects fix-me.xlsx',
        'outreach sequences batch fix-me.xlsx --definition 1 --validate-only   # the fixed rows, problem column and all',
        'outreach sequences batch patients.csv --definition 1 --yes --out results.csv   # cron: no prompt',
        'outreach sequences batch patients.csv --definition 1 --yes --out results.csv --resume',
        'outreach sequences batch patients.csv --definition 1 --yes --out results.csv --resume --resend-unknown',
        'outreach sequences batch export.csv --definition 2 --map "Cell=phoneNumber" --map "Visit=visitDate" --validate-only',
        'outreach definitions get 1 -o json > def1.json && outreach sequences batch big.csv --dry-run --definition-file def1.json',
        'outreach sequences batch clinic.xlsx --sheet Patients --definition 1 --validate-only',
      ) +
        '\nIn an Excel workbook, line numbers are sheet row numbers; a number cell holding\n' +
        'a phone number is read as its digits, a date cell as its date (YYYY-MM-DD).\n' +
        '\nRow statuses in --out: created (the service confirmed it), invalid (a local\n' +
        'check or a service error names it), skipped (invalid, --skip-invalid),\n' +
        'not-sent, unknown (sent, but the service neither confirmed nor named it: a\n' +
        'timeout, a 5xx, an answer whose counts do not cover it). A create whose fate\n' +
        'is unknown is never repeated automatically: --resume looks for those rows\n' +
        "among the service's sequences, sends the rows proven absent and the chunks\n" +
        'never sent, and lists the rows it cannot prove; --resume --resend-unknown\n' +
        'sends those deliberately.\n' +
        '\n--rejects writes the rows that are invalid (or that the service rejected) in\n' +
        "the file's own columns and order, values as they were, then a problem column\n" +
        'saying what is wrong. Fix them in a spreadsheet and upload that file as it is:\n' +
        'a column named problem is ignored. With no invalid row it holds the header only.\n' +
        '\nThe journal (<out or file>.journal.ndjson) records each chunk before and after\n' +
        'it is sent: line numbers, sequence ids and hashes of the phone numbers\n' +
        'keyed with a key in your config directory (no names, no numbers in clear, and\n' +
        'the journal alone does not reveal them; resume as the same user). It is\n' +
        'locked while a run uses it; a second run on the same journal exits 2.\n' +
        '\nExit codes: 0 every row sent confirmed created, 2 usage/cancelled/locked, 3\n' +
        'invalid or rejected rows, 7 stopped part-way or rows unknown (the message\n' +
        'gives the command to continue), 130 interrupted (journal intact).\n',
    )
    .action(action(run));
}

interface Opts {
  args: string[];
  definition?: string;
  validateOnly?: boolean;
  dryRun?: boolean;
  definitionFile?: string;
  nextActivity?: string;
  map: string[];
  country: string;
  delimiter?: string;
  sheet?: string;
  out?: string;
  rejects?: string;
  skipInvalid?: boolean;
  yes?: boolean;
  resume?: boolean;
  resendUnknown?: boolean;
  journal?: string;
  concurrency?: string;
}

export function parseDefinitionId(raw: string | undefined, flag = '--definition'): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) throw new UsageError(`${flag} "${raw}" is not a definition id (a positive integer).`);
  return Number(raw);
}

// --rejects takes .csv or .xlsx, and never the input or the results file: it replaces its target.
async function checkRejectsPath(rejects: string, file: string, out: string | undefined): Promise<void> {
  const [{ checkResultsPath }, { REJECTS_FORMATS }, { resolve }] = await Promise.all([import('../../csv/results.js'), import('../../batch/rejects.js'), import('node:path')]);
  await checkResultsPath(rejects, REJECTS_FORMATS, '--rejects');
  if (resolve(rejects) === resolve(file)) throw new UsageError(`--rejects ${rejects} is the file being uploaded; give the rejects another name (nothing was sent).`);
  if (out !== undefined && resolve(rejects) === resolve(out)) throw new UsageError(`--rejects and --out name the same file (${rejects}); give them different names (nothing was sent).`);
}

export async function run(opts: Opts, ctx: Context): Promise<void> {
  const file = opts.args[0];
  if (!file) throw new UsageError('Missing the patient file (CSV or .xlsx): outreach sequences batch <file.csv> --definition <id>.');
  if (opts.validateOnly && opts.dryRun) throw new UsageError('--validate-only and --dry-run disagree: --dry-run sends nothing, --validate-only asks the service.');
  if (opts.resume && (opts.validateOnly || opts.dryRun)) throw new UsageError('--resume continues a create run; it cannot be combined with --validate-only or --dry-run.');
  if (opts.resendUnknown && !opts.resume) throw new UsageError('--resend-unknown goes with --resume: it sends again the rows an earlier run left unknown.');
  const delimiter = (await import('../../csv/open.js')).parseDelimiter(opts.delimiter);
  const { patientFileOptionProblem } = await import('../../csv/open.js');
  const fileProblem = patientFileOptionProblem(file, { delimiter, sheet: opts.sheet });
  if (fileProblem) throw new UsageError(fileProblem);
  let nextActivity: string | undefined;
  if (opts.nextActivity !== undefined) {
    const t = Date.parse(opts.nextActivity);
    if (!/^\d{4}-\d{2}-\d{2}/.test(opts.nextActivity) || Number.isNaN(t)) {
      throw new UsageError(`--next-activity "${opts.nextActivity}" is not an ISO 8601 date-time (e.g. 2030-05-17T09:00:00-07:00).`);
    }
    nextActivity = new Date(t).toISOString();
  }
  if (opts.out) await (await import('../../csv/results.js')).checkResultsPath(opts.out);
  if (opts.rejects) await checkRejectsPath(opts.rejects, file, opts.out);
  const definition = parseDefinitionId(opts.definition);
  if (definition === undefined && !opts.resume && !(opts.dryRun && opts.definitionFile)) {
    throw new UsageError('Missing --definition <id>: which sequence definition the rows are for (see `outreach definitions list`).');
  }
  const { parseConcurrency } = await import('../../util/concurrency.js');
  const concurrency = parseConcurrency(opts.concurrency);
  const { runBatch } = await import('../../batch/runner.js');
  await runBatch(
    {
      file,
      definition,
      definitionFile: opts.definitionFile,
      validateOnly: Boolean(opts.validateOnly),
      dryRun: Boolean(opts.dryRun),
      nextActivity,
      map: opts.map ?? [],
      country: (opts.country ?? 'US').toUpperCase(),
      delimiter,
      sheet: opts.sheet,
      out: opts.out,
      rejects: opts.rejects,
      skipInvalid: Boolean(opts.skipInvalid),
      yes: Boolean(opts.yes),
      resume: Boolean(opts.resume),
      resendUnknown: Boolean(opts.resendUnknown),
      journal: opts.journal,
      concurrency,
    },
    ctx,
  );
}
