// Before any pass of `sequences batch`: what an earlier run's journal says, the definition the rows
// are for, and which column feeds which field. Nothing here sends a row.
import type { HttpClient } from '../api/http.js';
import type { DefinitionRecord } from '../api/definitions.js';
import type { Context } from '../context.js';
import { UsageError, ValidationError } from '../errors.js';
import type { ColumnMapping } from '../csv/headers.js';
import type { CsvFile } from '../csv/reader.js';
import type { JournalHashing } from '../journal/hashing.js';
import { headersHash, readJournal, replay, type JournalState } from './journal.js';
import { makeRowChecker } from './rows.js';
import { closeRows, openFile } from './source.js';
import { terminalSafe } from '../output/safe.js';
import type { BatchOptions, Mode } from './types.js';
import { plural } from '../output/plural.js';

export interface Prepared {
  /** The earlier run's journal, when this run continues it (--resume). */
  state?: JournalState;
  definition: DefinitionRecord;
  /** The service's Date header when the definition was read (the resume window's start). */
  serverDate?: string;
  hdrHash: string;
  /** The file, its header read and its rows not yet: the check pass reads on from here. */
  file: CsvFile;
  check: ReturnType<typeof makeRowChecker>;
  phones: JournalHashing;
  nextActivity?: string;
  client(): Promise<HttpClient>;
}

export async function prepare(ctx: Context, o: BatchOptions, mode: Mode, journalPath: string, resumeCmd: string): Promise<Prepared> {
  const state = mode === 'create' ? await earlierRun(o, journalPath, resumeCmd) : undefined;
  let client: HttpClient | undefined;
  const getClient = async () => (client ??= await ctx.client());
  const { definition, serverDate } = await loadDefinition(ctx, o, o.definition ?? state?.begin?.definition_id, getClient);

  const { mapping, headers, file } = await matchColumns(ctx, o, definition);
  const hdrHash = headersHash(headers);
  const { isSupportedCountry } = await import('../csv/phone.js');
  const refusal =
    state?.begin && state.begin.headers !== hdrHash
      ? `${o.file} does not have the columns it had when the journal ${journalPath} was started; resume with the same file.`
      : !isSupportedCountry(o.country)
        ? `--country "${o.country}" is not a known country code (use two letters, e.g. US, CA, GB).`
        : undefined;
  if (refusal) {
    await closeRows(file);
    throw new UsageError(refusal);
  }
  const { journalHashing } = await import('../journal/hashing.js');
  const { configDir } = await import('../config/profiles.js');
  return {
    state,
    definition,
    serverDate,
    hdrHash,
    file,
    check: makeRowChecker(mapping, definition.inputs_definition, o.country),
    phones: journalHashing(state?.begin, configDir(ctx.env), journalPath),
    nextActivity: o.nextActivity ?? state?.begin?.next_activity,
    client: getClient,
  };
}

/** The state of an earlier run of this upload, when this one may continue it; refusals otherwise. */
async function earlierRun(o: BatchOptions, journalPath: string, resumeCmd: string): Promise<JournalState | undefined> {
  const records = await readJournal(journalPath);
  let state = records?.length ? replay(records) : undefined;
  if (o.resume && !state) throw new UsageError(`Nothing to resume: there is no journal at ${journalPath}.`, { hint: 'Run without --resume to start the upload.' });
  if (state && !o.resume) {
    const created = state.created.size;
    if (state.complete) {
      throw new UsageError(
        `${o.file} was already uploaded (journal ${journalPath}: ${plural(created, 'sequence')} created). Uploading it again would contact the same patients again.`,
        { hint: 'If that is really intended, move the journal away first.' },
      );
    }
    if (created > 0 || state.unknown.size > 0) {
      throw new UsageError(
        `An earlier run of this upload stopped part-way (journal ${journalPath}: ${plural(created, 'row')} created, ${state.unknown.size} unknown).`,
        { hint: `To continue: ${resumeCmd}` },
      );
    }
    state = undefined; // an earlier run that created nothing: start afresh
  }
  if (state?.begin && o.definition !== undefined && o.definition !== state.begin.definition_id) {
    throw new UsageError(`The journal ${journalPath} is for definition ${state.begin.definition_id}, not ${o.definition}.`);
  }
  return state;
}

async function loadDefinition(
  ctx: Context,
  o: BatchOptions,
  definitionId: number | undefined,
  getClient: () => Promise<HttpClient>,
): Promise<{ definition: DefinitionRecord; serverDate?: string }> {
  let definition: DefinitionRecord;
  let serverDate: string | undefined;
  if (o.definitionFile) {
    const { readJsonInput } = await import('../input.js');
    const { toDefinition } = await import('../api/definitions.js');
    const raw = await readJsonInput(o.definitionFile, '--definition-file', ctx.io);
    definition = toDefinition(Array.isArray(raw) ? raw[0] : raw, o.definitionFile);
    if (definitionId !== undefined && definition.id !== definitionId) {
      throw new UsageError(`--definition-file holds definition ${definition.id}, not ${definitionId}.`);
    }
  } else {
    if (definitionId === undefined) throw new UsageError('Missing --definition <id>: which sequence definition the rows are for (see `outreach definitions list`).');
    const { getDefinition } = await import('../api/definitions.js');
    const got = await getDefinition(await getClient(), definitionId);
    definition = got.definition;
    serverDate = got.serverDate;
  }
  const status = typeof definition.status === 'string' ? definition.status : undefined;
  if (status && status !== 'active') await ctx.warn(`definition ${definition.id} "${definition.name}" is ${status}; the service may refuse to create sequences from it`);
  return { definition, serverDate };
}

/** Matches the file's header to the row keys and the definition's inputs; asks on a terminal for missing ones. */
async function matchColumns(ctx: Context, o: BatchOptions, definition: DefinitionRecord): Promise<{ mapping: ColumnMapping[]; headers: string[]; file: CsvFile }> {
  const csv = await openFile(o);
  try {
    // Which sheet of a workbook is read is said first: the header checks below are about it.
    const { sheetNote } = await import('../csv/open.js');
    const note = sheetNote(csv, o.sheet);
    if (note) ctx.info(note);
    return await matchHeader(ctx, o, definition, csv);
  } catch (err) {
    await closeRows(csv);
    throw err;
  }
}

async function matchHeader(ctx: Context, o: BatchOptions, definition: DefinitionRecord, csv: CsvFile): Promise<{ mapping: ColumnMapping[]; headers: string[]; file: CsvFile }> {
  const { matchHeaders, BATCH_TARGETS, inputTargets, parseMapOptions, MapOptionError, headerProblemsError } = await import('../csv/headers.js');
  const targets = [...BATCH_TARGETS, ...inputTargets(definition.inputs_definition)];
  let match;
  try {
    match = matchHeaders(csv.headers, targets, parseMapOptions(o.map));
  } catch (err) {
    if (err instanceof MapOptionError) throw new UsageError(err.message);
    throw err;
  }
  // Missing required columns are asked for on a terminal; everything else is reported here.
  const problem = headerProblemsError(o.file, csv.headerLine, match, { missing: !ctx.io.canPrompt, fields: targets.map((t) => t.field) });
  if (problem) throw new UsageError(problem.message, { hint: problem.hint });
  let mapping = match.mapping;
  if (match.missingRequired.length) mapping = await askMissing(ctx, csv.headers, mapping, match.missingRequired, match.ignored);
  const unmatched = targets.filter((t) => !mapping.some((m) => m.field === t.field)).map((t) => t.field);
  await printMapping(ctx, o.file, definition, mapping, csv.headers, unmatched);
  return { mapping, headers: csv.headers, file: csv };
}

async function askMissing(ctx: Context, headers: string[], mapping: ColumnMapping[], missing: string[], ignored: string[]): Promise<ColumnMapping[]> {
  const prompter = await ctx.prompter();
  const out = [...mapping];
  const free = new Set(ignored);
  for (const field of missing) {
    const choices = [...free].map((c) => ({ value: c, name: c }));
    if (!choices.length) throw new ValidationError(`No column left for the required field ${field}.`);
    const col = await prompter.select<string>(`Which column holds ${field}?`, [...choices, { value: '\u0000none', name: '(none: stop)' }]);
    if (col === '\u0000none') throw new ValidationError(`No column chosen for the required field ${field}; nothing was sent.`);
    free.delete(col);
    out.push({ column: col, index: headers.indexOf(col), field });
  }
  return out.sort((a, b) => a.index - b.index);
}

async function printMapping(ctx: Context, file: string, def: DefinitionRecord, mapping: ColumnMapping[], headers: string[], unmatched: string[]): Promise<void> {
  const [{ default: stringWidth }, { renderOptionsFor, wrapLine }] = await Promise.all([import('string-width'), import('../output/problems.js')]);
  const { width } = renderOptionsFor(ctx.io, ctx.globals.format);
  // Headers are the file's (outside text): inert before they are measured and padded.
  const shown = mapping.map((m) => ({ column: terminalSafe(m.column), field: m.field }));
  const columnWidth = Math.max(6, ...shown.map((m) => stringWidth(m.column)));
  const lines = wrapLine(`${file}: columns for definition ${def.id} "${def.name}":`, width, '  ');
  for (const m of shown) lines.push(`  ${m.column}${' '.repeat(columnWidth - stringWidth(m.column))} → ${m.field}`);
  const used = new Set(mapping.map((m) => m.index));
  // A rejects file's `problem` column is ours, not the person's data: passed over without a word.
  const { isProblemColumn } = await import('../csv/headers.js');
  const ignored = headers.filter((h, i) => !used.has(i) && !isProblemColumn(h));
  if (ignored.length) lines.push(...wrapLine(`  ignored: ${ignored.map((h) => `"${h}"`).join(', ')}`, width, '    '));
  if (unmatched.length) lines.push(...wrapLine(`  not in the file (optional): ${unmatched.join(', ')}`, width, '    '));
  ctx.info(lines.join('\n'));
}
