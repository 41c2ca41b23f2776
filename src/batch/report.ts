// The end of `sequences batch`: the results file (every input row with its status) and the report
// (problems table, summary line, or JSON), and the errors that say how to continue.
import type { DefinitionRecord } from '../api/definitions.js';
import type { Context } from '../context.js';
import { IncompleteError } from '../errors.js';
import { lineList } from '../journal/words.js';
import type { ProblemEntry } from '../output/problems.js';
import { plural } from '../output/plural.js';
import type { JournalState } from './journal.js';
import type { Problem } from './rows.js';
import { rowsOf } from './source.js';
import type { BatchOptions, Checks, Mode, Stop } from './types.js';
import { resumeCommand } from './continue.js';
import { rejectedLines } from './rejects.js';

const RESULT_COLUMNS = ['line', 'status', 'sequence_id', 'messages'] as const;

export async function writeResults(o: BatchOptions, mode: Mode | 'validate', checks: Checks, st: JournalState | undefined): Promise<void> {
  const messages = new Map<number, string[]>();
  for (const p of checks.problems) {
    if (p.line === null) continue;
    const list = messages.get(p.line) ?? [];
    // The field is named unless the service's words already name it.
    const field = p.field && !p.message.includes(p.field) ? `${p.field}: ` : '';
    list.push(`${p.severity === 'warning' ? 'warning: ' : ''}${field}${p.message}`);
    messages.set(p.line, list);
  }
  async function* records() {
    for await (const { line } of rowsOf(o)) {
      let status: string;
      let id: number | null = null;
      if (st?.created.has(line)) {
        status = 'created';
        id = st.created.get(line) ?? null;
      } else if (checks.invalid.has(line)) status = mode === 'create' && o.skipInvalid ? 'skipped' : 'invalid';
      else if (checks.unknown.has(line)) status = 'unknown';
      else if (checks.rejected.has(line)) status = 'invalid';
      else status = mode === 'create' ? 'not-sent' : mode === 'dry-run' ? 'checked' : 'valid';
      yield { line, status, sequence_id: id ?? '', messages: messages.get(line) ?? [] };
    }
  }
  // Every row or none: a file that failed part-way keeps the earlier results file.
  await (await import('../csv/results.js')).writeResultsFile(o.out!, RESULT_COLUMNS, records());
}

export async function report(
  ctx: Context,
  o: BatchOptions,
  mode: Mode | 'validate',
  def: DefinitionRecord,
  checks: Checks,
  st: JournalState | undefined,
  stop?: Stop,
): Promise<void> {
  const unknown = checks.unknown;
  const errors = checks.problems.filter((p) => p.severity === 'error');
  const warnings = checks.problems.length - errors.length;
  const created = st ? st.created.size : 0;
  const invalidCount = checks.invalid.size + checks.rejected.size + checks.unnamedInvalid;
  const summary = {
    file: o.file,
    definition_id: def.id,
    definition_name: def.name,
    mode: mode === 'validate' && !o.validateOnly && !o.dryRun ? 'create' : mode,
    rows: checks.rows,
    valid_rows: checks.rows - invalidCount,
    invalid_rows: invalidCount,
    warnings,
    ...(mode === 'create' || (!o.validateOnly && !o.dryRun)
      ? {
          created,
          rejected: checks.rejected.size,
          unknown: unknown.size,
          unknown_lines: [...unknown].sort((a, b) => a - b),
          complete: mode === 'create' && !stop && unknown.size === 0,
        }
      : {}),
    ...(o.out ? { results_file: o.out } : {}),
    ...(o.rejects ? { rejects_file: o.rejects } : {}),
  };
  const fmt = ctx.globals.format;
  if (fmt === 'json') {
    const createdList = st ? [...st.created.entries()].sort((a, b) => a[0] - b[0]).map(([line, id]) => ({ line, sequence_id: id })) : undefined;
    ctx.io.out(`${JSON.stringify({ ...summary, problems: checks.problems.map(jsonProblem), ...(createdList ? { sequences: createdList } : {}) }, null, 2)}\n`);
    return;
  }
  if (fmt === 'ndjson') {
    for (const p of checks.problems) ctx.io.out(`${JSON.stringify(jsonProblem(p))}\n`);
    return;
  }
  if (fmt === 'csv' || fmt === 'tsv') {
    const { writeList } = await import('../output/writer.js');
    // The same fields as -o json's problems, named alike (a script reads either the same way).
    const records = checks.problems.map(jsonProblem);
    type Row = (typeof records)[number];
    const column = (key: keyof Row) => ({ header: key.toUpperCase(), key, value: (p: Row) => p[key] });
    await writeList(ctx, records, [column('line'), column('field'), column('severity'), column('message'), column('code'), column('source')]);
  }
  if (ctx.globals.quiet) {
    if (st && !ctx.globals.formatExplicit) for (const id of st.created.values()) if (id !== null) ctx.io.out(`${id}\n`);
    return;
  }
  // The person's report, on stderr: the problems by line, then the counts, then what to do next.
  const { renderProblems, renderOptionsFor, wrapLine } = await import('../output/problems.js');
  const view = renderOptionsFor(ctx.io, fmt);
  const invalidProblems = checks.problems.filter((p) => p.severity === 'error');
  const warningProblems = checks.problems.filter((p) => p.severity === 'warning');
  const skipping = mode === 'create' && o.skipInvalid;
  ctx.io.err(
    renderProblems(
      {
        sections: [
          { heading: `${invalidCount} of ${plural(checks.rows, 'row')} ${skipping ? (invalidCount === 1 ? 'was skipped' : 'were skipped') : invalidCount === 1 ? 'is invalid' : 'are invalid'}:`, problems: invalidProblems.map(problemEntry) },
          { heading: `${plural(warnings, 'warning')} (${warnings === 1 ? 'its row is' : 'their rows are'} valid):`, problems: warningProblems.map(problemEntry) },
        ],
        fullList: o.out ? `${o.out} has every row` : o.rejects ? `${o.rejects} has every invalid row` : '--out results.csv or -o json lists every row',
        next: [],
      },
      view,
    ),
  );
  const parts = [plural(checks.rows, 'row'), `${checks.rows - invalidCount} valid`, `${invalidCount} invalid`];
  if (warnings) parts.push(plural(warnings, 'warning'));
  let line: string;
  if (mode === 'create') line = `${plural(created, 'sequence')} created for definition ${def.id} "${def.name}" (${parts.join(', ')}${unknown.size ? `, ${unknown.size} unknown` : ''}).`;
  else if (mode === 'dry-run') line = `Local checks of ${o.file}: ${parts.join(', ')} (nothing sent).`;
  else line = `${o.validateOnly ? 'Validated' : 'Checked'} ${o.file} against definition ${def.id} "${def.name}": ${parts.join(', ')}.${o.validateOnly ? ' Nothing was created.' : ''}`;
  ctx.info(wrapLine(line, view.width, '  ').join('\n'));
  if (o.out) ctx.info(`Results: ${o.out}`);
  const rejected = rejectedLines(checks).size;
  if (o.rejects) {
    ctx.info(rejected ? `Rejected rows: ${o.rejects} (${plural(rejected, 'row')}: fix them there and upload that file)` : `Rejected rows: none (${o.rejects} holds the header only)`);
  }
  if (invalidCount > 0 && mode !== 'create') ctx.io.err(renderProblems({ sections: [], fullList: '', next: nextSteps(o, mode, checks.rows - invalidCount, rejected) }, view));
}

/** A batch problem as the person reads it: the file's column when the file named it. */
export function problemEntry(p: Problem): ProblemEntry {
  return { line: p.line, label: p.column ?? p.field, message: p.message, severity: p.severity, fromService: p.source === 'service', value: p.value };
}

/** What to do about invalid rows: fix and check again (the file, or the rejects file), or create the valid ones only. */
function nextSteps(o: BatchOptions, mode: Mode | 'validate', valid: number, rejected: number): string[] {
  const steps =
    mode === 'dry-run'
      ? [`Fix those lines in ${o.file} and run the same command again.`]
      : mode === 'validate' && !o.validateOnly
        ? [`Fix those lines in ${o.file} and run again:`, `  ${resumeCommand(o, {})}`]
        : [`Fix those lines in ${o.file} and check again:`, `  ${resumeCommand(o, { validateOnly: true })}`];
  if (o.rejects && rejected > 0) {
    // The rejects file is a patient file of its own: checked on its own, with the same columns.
    const rejects: BatchOptions = { ...o, file: o.rejects, out: undefined, rejects: undefined, journal: undefined, delimiter: undefined, sheet: undefined, skipInvalid: false };
    steps.push(
      ...(mode === 'dry-run'
        ? [`Or fix the ${plural(rejected, 'row')} in ${o.rejects} (its problem column says what is wrong) and run the same command on that file.`]
        : [`Or fix the ${plural(rejected, 'row')} in ${o.rejects} (its problem column says what is wrong) and check that file:`, `  ${resumeCommand(rejects, { validateOnly: true })}`]),
    );
  }
  if (valid > 0 && mode !== 'dry-run') {
    steps.push(`Or create the ${plural(valid, 'valid row')} only, skipping the others:`, `  ${resumeCommand({ ...o, skipInvalid: true }, {})}`);
  }
  return steps;
}

function jsonProblem(p: Problem) {
  return { line: p.line, field: p.field, severity: p.severity, message: p.message, code: p.code ?? null, source: p.source };
}

/** What --resume does with unknown rows: no more than this. */
export const RESUME_PROMISE =
  "--resume looks for the unknown rows among the service's sequences; rows it proves created or absent are settled (absent ones sent), the others stay unknown and are sent again only with --resend-unknown.";

/** Exit 7: rows whose creation nobody can tell; a person decides. */
export function stillUnknown(o: BatchOptions, journalPath: string, unknown: ReadonlySet<number>): IncompleteError {
  const n = unknown.size;
  const cmd = resumeCommand(o, { resume: true, resendUnknown: true });
  return new IncompleteError(
    `${plural(n, 'row')} may or may not have been created (line${n === 1 ? '' : 's'} ${lineList(unknown)}): the service did not say, and its records could not prove it. ` +
      `They were not sent again (journal ${journalPath}).`,
    {
      hint: `Check those patients on the service (outreach sequences list), then either leave them, or send them again deliberately with:\n  ${cmd}`,
      details: { unknown_rows: n, lines: [...unknown].sort((a, b) => a - b), journal: journalPath, resend: cmd },
    },
  );
}
