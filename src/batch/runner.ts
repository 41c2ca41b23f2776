// `sequences batch`: the orchestration. Passes over the streamed CSV (memory stays flat):
//   1. checks: local checks of every row, then (unless --dry-run) validate_only chunks of 100,
//      pipelined; problems keyed by CSV line;
//   2. create (not with --validate-only/--dry-run): after the confirmation, chunks of 100 valid
//      rows, each journalled before (intent) and after (result) its request;
//   3. results (--out): every input row with its status, written from what passes 1 and 2 learnt.
// A resumed run first settles the rows the journal marks unknown (see settle.ts); rows it cannot
// prove stay unknown and are sent again only with --resend-unknown.
import { basename } from 'node:path';
import type { BatchRow } from '../api/types.js';
import type { HttpClient } from '../api/http.js';
import type { DefinitionRecord } from '../api/definitions.js';
import type { Context } from '../context.js';
import {
  CliError,
  IncompleteError,
  InterruptedError,
  UnknownOutcomeError,
  UsageError,
  ValidationError,
} from '../errors.js';
import { fateOf, type Fate } from '../api/errors.js';
import type { CsvFile, CsvRow } from '../csv/reader.js';
import type { ColumnMapping } from '../csv/headers.js';
import { readChunkAnswer, type NumberingState } from './answer.js';
import {
  headersHash,
  readJournal,
  replay,
  JournalError,
  JournalWriter,
  JOURNAL_VERSION,
  type BeginRecord,
  type JournalState,
} from './journal.js';
import { makeRowChecker, type CheckedRow, type Problem } from './rows.js';
import { Progress } from './progress.js';
import type { PhoneHashing } from '../journal/phoneHash.js';

export const CHUNK_SIZE = 100;
/** validate_only requests in flight at once (they create nothing, so they may overlap). */
export const VALIDATE_CONCURRENCY = 3;
const TABLE_LIMIT = 50;

export interface BatchOptions {
  file: string;
  definition?: number;
  definitionFile?: string;
  validateOnly: boolean;
  dryRun: boolean;
  nextActivity?: string;
  map: string[];
  country: string;
  delimiter?: string;
  out?: string;
  skipInvalid: boolean;
  yes: boolean;
  resume: boolean;
  /** Send again the rows whose creation stayed unknown (a person has checked the service). */
  resendUnknown: boolean;
  journal?: string;
}

type Mode = 'validate' | 'dry-run' | 'create';

interface Checks {
  rows: number;
  /** Lines with errors (local or service) → never sent. */
  invalid: Set<number>;
  /** Invalid rows the service counted but did not name (they stop a create run like named ones). */
  unnamedInvalid: number;
  problems: Problem[];
  /** Each problem once (the check pass and the create pass may both report it). */
  seen: Set<string>;
  toCreate: number;
  /** Lines whose creation is unknown (from an earlier run, or this one): never sent again unless --resend-unknown. */
  unknown: Set<number>;
  /** Lines the create pass's answers rejected (an error named them after the check pass passed them). */
  rejected: Set<number>;
  numbering: NumberingState;
}

function addProblem(checks: Checks, p: Problem): void {
  const key = `${p.severity}|${p.line}|${p.field}|${p.message}`;
  if (checks.seen.has(key)) return;
  checks.seen.add(key);
  checks.problems.push(p);
}

export async function runBatch(o: BatchOptions, ctx: Context): Promise<void> {
  const mode: Mode = o.dryRun ? 'dry-run' : o.validateOnly ? 'validate' : 'create';
  if (mode === 'create' && !o.yes && !ctx.io.canPrompt) {
    throw new UsageError('Creating sequences contacts patients: without a terminal to confirm, pass --yes (nothing was sent).', {
      hint: `Check the file first with: ${resumeCommand(o, { validateOnly: true })}`,
    });
  }
  ctx.handlesInterrupt = true;
  const journalPath = o.journal ?? `${o.out ?? o.file}.journal.ndjson`;
  // A symlink, a non-regular file or an unwritable directory at --out or the journal stops the run
  // here (exit 2), before anything is sent; the writers check again when they open.
  const { checkWritablePath } = await import('../util/files.js');
  if (o.out) await checkWritablePath(o.out);
  if (mode === 'create') await checkWritablePath(journalPath);
  const { acquireLock, LockedError } = await import('../util/lock.js');
  let lock: Awaited<ReturnType<typeof acquireLock>> | undefined;
  if (mode === 'create') {
    try {
      lock = await acquireLock(`${journalPath}.lock`);
    } catch (err) {
      if (err instanceof LockedError) {
        throw new UsageError(`Another batch run is using the journal ${journalPath}: ${err.message}. Nothing was sent by this run.`, { code: 'locked' });
      }
      throw err;
    }
    if (lock.staleRecovered) await ctx.warn(`took over the lock of an earlier run that is no longer running (${journalPath}.lock)`);
  }
  try {
    await runLocked(o, mode, journalPath, ctx);
  } finally {
    await lock?.release();
  }
}

async function runLocked(o: BatchOptions, mode: Mode, journalPath: string, ctx: Context): Promise<void> {
  // ---- the journal of an earlier run ----
  let state: JournalState | undefined;
  if (mode === 'create') {
    let records;
    try {
      records = await readJournal(journalPath);
    } catch (err) {
      if (err instanceof JournalError) throw new UsageError(err.message);
      throw err;
    }
    state = records && records.length ? replay(records) : undefined;
    if (o.resume && !state) throw new UsageError(`Nothing to resume: there is no journal at ${journalPath}.`, { hint: 'Run without --resume to start the upload.' });
    if (state && !o.resume) {
      const created = state.created.size;
      if (state.complete) {
        throw new UsageError(
          `${o.file} was already uploaded (journal ${journalPath}: ${created} sequences created). Uploading it again would contact the same patients again.`,
          { hint: 'If that is really intended, move the journal away first.' },
        );
      }
      if (created > 0 || state.unknown.size > 0) {
        throw new UsageError(
          `An earlier run of this upload stopped part-way (journal ${journalPath}: ${created} rows created, ${state.unknown.size} unknown).`,
          { hint: `Continue it with: ${resumeCommand(o, { resume: true })}` },
        );
      }
      state = undefined; // an earlier run that created nothing: start afresh
    }
    if (state?.begin && o.definition !== undefined && o.definition !== state.begin.definition_id) {
      throw new UsageError(`The journal ${journalPath} is for definition ${state.begin.definition_id}, not ${o.definition}.`);
    }
  }
  const definitionId = o.definition ?? state?.begin?.definition_id;

  // ---- the definition ----
  let client: HttpClient | undefined;
  const getClient = async () => (client ??= await ctx.client());
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

  // ---- columns ----
  const csv = await openFile(o);
  const { matchHeaders, BATCH_TARGETS, inputTargets, parseMapOptions, MapOptionError } = await import('../csv/headers.js');
  const targets = [...BATCH_TARGETS, ...inputTargets(definition.inputs_definition)];
  let match;
  try {
    match = matchHeaders(csv.headers, targets, parseMapOptions(o.map));
  } catch (err) {
    if (err instanceof MapOptionError) throw new UsageError(err.message);
    throw err;
  }
  if (match.duplicates.length || match.ambiguous.length) {
    const lines = [
      ...match.duplicates.map((d) => `columns ${d.columns.map((c) => `"${c}"`).join(' and ')} all match ${d.field}`),
      ...match.ambiguous.map((a) => `column "${a.column}" could be ${a.fields.join(' or ')}`),
    ];
    throw new UsageError(`${o.file}: the columns cannot be matched unambiguously: ${lines.join('; ')}.`, {
      hint: 'Say which column feeds which field with --map COLUMN=field (or COLUMN=- to ignore a column).',
    });
  }
  let mapping = match.mapping;
  if (match.missingRequired.length) {
    if (!ctx.io.canPrompt) {
      throw new ValidationError(
        `${o.file}: no column for the required field${match.missingRequired.length > 1 ? 's' : ''} ${match.missingRequired.join(', ')} (columns: ${csv.headers.map((h) => `"${h}"`).join(', ')}).`,
        { hint: `Name the column with --map, e.g. --map "${match.ignored[0] ?? 'Column'}=${match.missingRequired[0]}".` },
      );
    }
    mapping = await askMissing(ctx, csv.headers, mapping, match.missingRequired, match.ignored);
  }
  await printMapping(ctx, o.file, definition, mapping, csv.headers, targets.filter((t) => !mapping.some((m) => m.field === t.field)).map((t) => t.field));
  await closeRows(csv);
  const hdrHash = headersHash(csv.headers);
  if (state?.begin && state.begin.headers !== hdrHash) {
    throw new UsageError(`${o.file} does not have the columns it had when the journal ${journalPath} was started; resume with the same file.`);
  }

  const { isSupportedCountry } = await import('../csv/phone.js');
  if (!isSupportedCountry(o.country)) throw new UsageError(`--country "${o.country}" is not a known country code (use two letters, e.g. US, CA, GB).`);
  const check = makeRowChecker(mapping, definition.inputs_definition, o.country);
  const { phoneHashing } = await import('../journal/phoneHash.js');
  const { configDir } = await import('../config/profiles.js');
  const phones = phoneHashing(state?.begin, configDir(ctx.env), journalPath);
  const progress = new Progress(ctx.io, ctx.io.isStderrTTY && !ctx.globals.quiet);
  const nextActivity = o.nextActivity ?? state?.begin?.next_activity;

  // ---- resume: settle unknown rows first ----
  if (state && state.unknown.size) {
    await settleUnknown(ctx, o, state, definition.id, journalPath, await getClient(), check, phones);
  }

  // ---- pass 1: checks ----
  const checks = await checkPass(ctx, o, mode, definition.id, check, phones, state, progress, mode === 'dry-run' ? undefined : await getClient());

  if (mode !== 'create') {
    if (o.out) await writeResults(o, mode, checks, state);
    await report(ctx, o, mode, definition, checks, state);
    const count = checks.invalid.size + checks.unnamedInvalid;
    if (count > 0) {
      throw new ValidationError(`${count} of ${checks.rows} rows of ${o.file} are invalid (listed above).`, { details: { invalid_rows: count } });
    }
    return;
  }

  if ((checks.invalid.size > 0 || checks.unnamedInvalid > 0) && !o.skipInvalid) {
    if (o.out) await writeResults(o, 'validate', checks, state);
    await report(ctx, o, 'validate', definition, checks, state);
    const count = checks.invalid.size + checks.unnamedInvalid;
    throw new ValidationError(`${count} of ${checks.rows} rows of ${o.file} are invalid; nothing was sent.`, {
      hint: 'Fix those rows and run again, or pass --skip-invalid to create the valid rows only.',
    });
  }
  if (checks.toCreate === 0) {
    if (o.out) await writeResults(o, 'create', checks, state);
    await report(ctx, o, 'create', definition, checks, state);
    if (checks.unknown.size) throw stillUnknown(o, journalPath, checks.unknown);
    ctx.info('Nothing to create.');
    return;
  }

  // ---- confirmation ----
  if (!o.yes) {
    const prompter = await ctx.prompter();
    const skipped = checks.invalid.size ? ` (${checks.invalid.size} invalid rows skipped)` : '';
    const resent = o.resendUnknown && state?.unknown.size ? `, including ${state.unknown.size} rows that may already have been created (--resend-unknown)` : '';
    const ok = await prompter.confirm(
      `${checks.toCreate} patients will be contacted by "${definition.name}" (definition ${definition.id})${skipped}${resent}. Create the sequences?`,
      { default: false },
    );
    if (!ok) throw new UsageError('Cancelled: nothing was sent.', { code: 'cancelled' });
  }

  // ---- pass 2: create ----
  const journal = await JournalWriter.open(journalPath);
  const st: JournalState = state ?? replay([]);
  try {
    if (!state) {
      const begin: BeginRecord = {
        type: 'begin',
        v: JOURNAL_VERSION,
        at: ctx.now().toISOString(),
        server_at: serverDate && !Number.isNaN(Date.parse(serverDate)) ? new Date(serverDate).toISOString() : undefined,
        definition_id: definition.id,
        definition_name: definition.name,
        csv: basename(o.file),
        ...phones.params(),
        next_activity: nextActivity,
        request_timeout_s: ctx.globals.requestTimeoutSec,
        headers: hdrHash,
      };
      await journal.append(begin);
      st.begin = begin;
    } else {
      await journal.append({ type: 'resume', at: ctx.now().toISOString() });
    }
    const sent = { rows: 0 };
    const stop = await createPass(ctx, o, definition.id, check, phones, checks, st, journal, progress, await getClient(), nextActivity, sent);
    progress.clear();
    const unknown = checks.unknown;
    if (!stop) await journal.append({ type: 'end', at: ctx.now().toISOString(), outcome: unknown.size ? 'unknown-rows' : 'complete' });
    if (o.out) await writeResults(o, 'create', checks, st);
    await report(ctx, o, 'create', definition, checks, st, stop);
    if (stop) {
      const createdNow = st.created.size;
      const notSent = Math.max(0, checks.toCreate - sent.rows);
      if (createdNow === 0 && unknown.size === 0 && !state && stop.kind !== 'interrupted') {
        // Nothing happened at all: forget the journal so a plain re-run starts afresh.
        await journal.close();
        const { unlink } = await import('node:fs/promises');
        await unlink(journalPath).catch(() => undefined);
        throw stop.error ?? new IncompleteError(`${stop.reason}; nothing was created.`);
      }
      const what = `${createdNow} rows created, ${unknown.size} unknown, ${notSent} not sent`;
      const cmd = resumeCommand(o, { resume: true });
      const msg =
        `${stop.reason.replace(/\.+$/, '')}. ${what}. The journal ${journalPath} records which rows are which.` +
        (unknown.size ? ` ${RESUME_PROMISE}` : '') +
        `\nTo continue: ${cmd}`;
      if (stop.kind === 'interrupted') throw new InterruptedError(msg);
      throw new IncompleteError(msg, { details: { created: createdNow, unknown: unknown.size, not_sent: notSent, journal: journalPath, resume: cmd } });
    }
    if (unknown.size) throw stillUnknown(o, journalPath, unknown);
    if (checks.rejected.size) {
      throw new ValidationError(`The service rejected ${checks.rejected.size} row${checks.rejected.size === 1 ? '' : 's'} when creating them (listed above); every other row was created.`, {
        details: { rejected_rows: checks.rejected.size },
      });
    }
  } finally {
    progress.clear();
    await journal.close();
  }
}

/** What --resume does with unknown rows: no more than this. */
const RESUME_PROMISE =
  "--resume looks for the unknown rows among the service's sequences; rows it proves created or absent are settled (absent ones sent), the others stay unknown and are sent again only with --resend-unknown.";

/** "2-5, 9, 12-14": consecutive lines as ranges, at most `max` items, then "and N more lines". */
export function lineList(lines: Iterable<number>, max = 12): string {
  const all = [...new Set(lines)].sort((a, b) => a - b);
  const ranges: Array<[number, number]> = [];
  for (const l of all) {
    const last = ranges[ranges.length - 1];
    if (last && l === last[1] + 1) last[1] = l;
    else ranges.push([l, l]);
  }
  const shown = ranges.slice(0, max).map(([a, b]) => (a === b ? String(a) : `${a}-${b}`));
  const rest = ranges.slice(max).reduce((n, [a, b]) => n + b - a + 1, 0);
  return shown.join(', ') + (rest ? ` and ${rest} more line${rest === 1 ? '' : 's'}` : '');
}

/** Exit 7: rows whose creation nobody can tell; a person decides. */
function stillUnknown(o: BatchOptions, journalPath: string, unknown: ReadonlySet<number>): IncompleteError {
  const n = unknown.size;
  const cmd = resumeCommand(o, { resume: true, resendUnknown: true });
  return new IncompleteError(
    `${n} row${n === 1 ? '' : 's'} may or may not have been created (line${n === 1 ? '' : 's'} ${lineList(unknown)}): the service did not say, and its records could not prove it. ` +
      `They were not sent again (journal ${journalPath}).`,
    {
      hint: `Check those patients on the service (outreach sequences list), then either leave them, or send them again deliberately with:\n  ${cmd}`,
      details: { unknown_rows: n, lines: [...unknown].sort((a, b) => a - b), journal: journalPath, resend: cmd },
    },
  );
}

async function openFile(o: BatchOptions): Promise<CsvFile> {
  const { openCsv, CsvFormatError } = await import('../csv/reader.js');
  try {
    return await openCsv(o.file, { delimiter: o.delimiter });
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
}

async function closeRows(csv: CsvFile): Promise<void> {
  await csv.rows[Symbol.asyncIterator]().return?.();
}

/** Iterates the rows of a fresh read of the file; CSV damage becomes a usage error (exit 2). */
async function* rowsOf(o: BatchOptions, hdrHash?: string): AsyncGenerator<CsvRow> {
  const { CsvFormatError } = await import('../csv/reader.js');
  const csv = await openFile(o);
  if (hdrHash && headersHash(csv.headers) !== hdrHash) throw new UsageError(`${o.file} changed while the batch was running (its columns differ).`);
  try {
    for await (const row of csv.rows) yield row;
  } catch (err) {
    if (err instanceof CsvFormatError) throw new UsageError(err.message);
    throw err;
  }
}

function changedFile(o: BatchOptions, line: number): UsageError {
  return new UsageError(
    `${o.file}, line ${line}: the row is not the one the journal recorded for this line (the file was edited since the earlier run). ` +
      'Resume with the file exactly as it was, so that no patient is contacted twice.',
  );
}

// ---------------------------------------------------------------------------------------------
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
  const width = Math.max(6, ...mapping.map((m) => m.column.length));
  const lines = [`${file}: columns for definition ${def.id} "${def.name}":`];
  for (const m of mapping) lines.push(`  ${m.column.padEnd(width)} → ${m.field}`);
  const used = new Set(mapping.map((m) => m.index));
  const ignored = headers.filter((_, i) => !used.has(i));
  if (ignored.length) lines.push(`  ignored: ${ignored.map((h) => `"${h}"`).join(', ')}`);
  if (unmatched.length) lines.push(`  not in the file (optional): ${unmatched.join(', ')}`);
  ctx.info(lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------
interface PendingChunk {
  lines: number[];
  rows: BatchRow[];
}

async function checkPass(
  ctx: Context,
  o: BatchOptions,
  mode: Mode,
  definitionId: number,
  check: (line: number, values: readonly string[]) => CheckedRow,
  phones: PhoneHashing,
  state: JournalState | undefined,
  progress: Progress,
  client: HttpClient | undefined,
): Promise<Checks> {
  const { postBatch } = await import('../api/sequences.js');
  const unknown = new Set(o.resendUnknown ? [] : (state?.unknown.keys() ?? []));
  const checks: Checks = { rows: 0, invalid: new Set(), unnamedInvalid: 0, problems: [], seen: new Set(), toCreate: 0, unknown, rejected: new Set(), numbering: {} };
  const inFlight: Array<Promise<{ chunk: PendingChunk; result?: Awaited<ReturnType<typeof postBatch>>; error?: unknown }>> = [];
  let chunk: PendingChunk = { lines: [], rows: [] };

  const settleOldest = async () => {
    const done = await inFlight.shift()!;
    if (done.error !== undefined) {
      if (ctx.signal.aborted) throw new InterruptedError('Interrupted while checking the file; nothing was created.');
      throw done.error;
    }
    const answer = readChunkAnswer(done.result!, done.chunk, 'validate', checks.numbering);
    for (const p of answer.problems) addProblem(checks, p);
    for (const i of answer.invalid) {
      checks.invalid.add(done.chunk.lines[i]!);
      checks.toCreate--;
    }
    checks.unnamedInvalid += answer.unnamedInvalid;
  };
  const send = async () => {
    const c = chunk;
    chunk = { lines: [], rows: [] };
    if (!client) return;
    inFlight.push(
      postBatch(client, definitionId, c.rows, { validateOnly: true, nextActivityDate: o.nextActivity }).then(
        (result) => ({ chunk: c, result }),
        (error: unknown) => ({ chunk: c, error }),
      ),
    );
    if (inFlight.length >= VALIDATE_CONCURRENCY) await settleOldest();
  };

  for await (const { line, values } of rowsOf(o)) {
    if (ctx.signal.aborted) throw new InterruptedError('Interrupted while checking the file; nothing was created.');
    checks.rows++;
    if (state?.created.has(line)) continue; // created by an earlier run
    const c = check(line, values);
    const known = state?.phones.get(line);
    if (known !== undefined && (!c.phone || phones.hash(c.phone) !== known)) throw changedFile(o, line);
    if (unknown.has(line)) continue; // may have been created: not sent again (unless --resend-unknown)
    if (c.problems.length) {
      for (const p of c.problems) addProblem(checks, p);
      checks.invalid.add(line);
    } else {
      checks.toCreate++;
      chunk.lines.push(line);
      chunk.rows.push(c.row!);
      if (chunk.lines.length === CHUNK_SIZE) await send();
    }
    if ((checks.rows & 255) === 0) progress.update('checking', checks.rows);
  }
  if (chunk.lines.length) await send();
  while (inFlight.length) await settleOldest();
  progress.clear();
  // Duplicate problems (a local and a service message for the same field) are both kept: they differ.
  checks.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return checks;
}

// ---------------------------------------------------------------------------------------------
interface Stop {
  kind: 'unknown' | 'rejected' | 'interrupted';
  reason: string;
  error?: CliError;
}

async function createPass(
  ctx: Context,
  o: BatchOptions,
  definitionId: number,
  check: (line: number, values: readonly string[]) => CheckedRow,
  phones: PhoneHashing,
  checks: Checks,
  st: JournalState,
  journal: JournalWriter,
  progress: Progress,
  client: HttpClient,
  nextActivity: string | undefined,
  sent: { rows: number },
): Promise<Stop | undefined> {
  const { postBatch } = await import('../api/sequences.js');
  let done = 0;
  let chunk: PendingChunk & { phones: string[] } = { lines: [], rows: [], phones: [] };
  const now = () => ctx.now().toISOString();

  const sendChunk = async (): Promise<Stop | undefined> => {
    const c = chunk;
    chunk = { lines: [], rows: [], phones: [] };
    if (ctx.signal.aborted) return { kind: 'interrupted', reason: 'Interrupted' };
    const n = ++st.lastChunk;
    await journal.append({ type: 'intent', chunk: n, at: now(), lines: c.lines, phones: c.phones });
    const range = `lines ${c.lines[0]}-${c.lines[c.lines.length - 1]}`;
    let result;
    try {
      result = await postBatch(client, definitionId, c.rows, { validateOnly: false, nextActivityDate: nextActivity });
    } catch (err) {
      const aborted = ctx.signal.aborted;
      const fate = fateOf(err, { aborted });
      const reason = failureReason(err, fate, aborted);
      const outcome = fate === 'unknown' ? 'unknown' : 'rejected';
      await journal.append({ type: 'result', chunk: n, at: now(), outcome, reason });
      if (outcome === 'unknown') {
        c.lines.forEach((l) => checks.unknown.add(l));
        sent.rows += c.lines.length;
      }
      return {
        kind: aborted ? 'interrupted' : outcome,
        reason: `${aborted ? 'Interrupted while sending' : 'Stopped at'} chunk ${n} (${range}): ${reason}`,
        error: err instanceof CliError ? err : undefined,
      };
    }
    const answer = readChunkAnswer(result, c, 'create', checks.numbering);
    for (const p of answer.problems) addProblem(checks, p);
    const created = [...answer.created].map(([i, id]) => ({ line: c.lines[i]!, id }));
    const failed = [...answer.invalid].map((i) => c.lines[i]!);
    const unknownLines = answer.unknown.map((i) => c.lines[i]!);
    await journal.append({ type: 'result', chunk: n, at: now(), outcome: 'created', created, failed, unknown: unknownLines });
    for (const x of created) {
      st.created.set(x.line, x.id);
      checks.unknown.delete(x.line);
    }
    for (const l of failed) {
      checks.rejected.add(l);
      checks.unknown.delete(l);
    }
    for (const l of unknownLines) checks.unknown.add(l);
    sent.rows += c.lines.length;
    done += c.lines.length;
    progress.update('creating', done, checks.toCreate, true);
    if (unknownLines.length) {
      return {
        kind: 'unknown',
        reason: `Stopped at chunk ${n} (${range}): the service's answer confirms ${created.length} of its ${c.lines.length} rows created${failed.length ? ` and names ${failed.length} as rejected` : ''} but says nothing of the other ${unknownLines.length} (created_count ${result.createdCount ?? 'missing'}, ${result.created ? `${result.created.length} created entries` : 'no list of created rows'})`,
      };
    }
    return undefined;
  };

  for await (const { line, values } of rowsOf(o, st.begin?.headers)) {
    if (checks.invalid.has(line) || st.created.has(line) || checks.unknown.has(line)) continue;
    const c = check(line, values);
    if (!c.row || !c.phone) throw changedFile(o, line);
    chunk.lines.push(line);
    chunk.rows.push(c.row);
    chunk.phones.push(phones.hash(c.phone));
    if (chunk.lines.length === CHUNK_SIZE) {
      const stop = await sendChunk();
      if (stop) return stop;
    }
  }
  if (chunk.lines.length) return sendChunk();
  return undefined;
}

/** Why a create request failed, in words that match its fate. */
export function failureReason(err: unknown, fate: Fate, aborted: boolean): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (aborted && fate === 'unknown') return 'the request was cut off by the interruption; the service may or may not have created the rows';
  switch (fate) {
    case 'unknown':
      // UnknownOutcomeError already says the service may or may not have acted.
      return err instanceof UnknownOutcomeError ? msg : `${msg.replace(/\.$/, '')}; the service may or may not have created the rows.`;
    case 'refused':
      return `the service refused the chunk before acting (${msg}); nothing of it was created`;
    case 'rejected':
      return `the service rejected the chunk: ${msg}`;
    case 'not-sent':
      return `${msg} (the request did not reach the service)`;
  }
}

// ---------------------------------------------------------------------------------------------
async function settleUnknown(
  ctx: Context,
  o: BatchOptions,
  state: JournalState,
  definitionId: number,
  journalPath: string,
  client: HttpClient,
  check: (line: number, values: readonly string[]) => CheckedRow,
  phones: PhoneHashing,
): Promise<void> {
  const begin = state.begin!;
  const hash = (e164: string) => phones.hash(e164);
  // The window: since the run began on the service's clock (a minute of slack for its 1 s
  // resolution), or on ours with a quarter of an hour of slack for clock skew.
  const sinceMs = begin.server_at ? Date.parse(begin.server_at) - 60_000 : Date.parse(begin.at) - 15 * 60_000;
  const claimed = new Set<number>([...state.created.values()].filter((x): x is number => x !== null));
  const rows = [...state.unknown.values()];
  // The unknown rows must still be in the file as they were (same phone on the same line).
  const wanted = new Map(rows.map((r) => [r.line, r.phone]));
  let found = 0;
  for await (const { line, values } of rowsOf(o)) {
    const h = wanted.get(line);
    if (h === undefined) continue;
    const c = check(line, values);
    if (!c.phone || hash(c.phone) !== h) throw changedFile(o, line);
    if (++found === wanted.size) break;
  }
  if (found !== wanted.size) throw new UsageError(`${o.file} has fewer rows than when the journal ${journalPath} was written; resume with the same file.`);

  // A request cut off on our side may still be on its way (a proxy, a queue): absence is only
  // trusted once no request of those chunks can plausibly still arrive — the run's request
  // timeout plus 5 s after it was sent.
  const quietMs = ((begin.request_timeout_s ?? 30) + 5) * 1000;
  const readyAt = Math.max(...rows.map((r) => Date.parse(r.at) + quietMs));
  const wait = readyAt - ctx.now().getTime();
  if (wait > 0) {
    ctx.info(`Waiting ${Math.ceil(wait / 1000)} s before checking: a request sent ${Math.round(quietMs / 1000)} s ago or less may still reach the service.`);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, wait);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new InterruptedError('Interrupted before the unknown rows were checked; nothing was sent.'));
      }, { once: true });
    });
  }
  ctx.info(`Looking for ${rows.length} row${rows.length === 1 ? '' : 's'} whose creation is unknown among the service's sequences...`);
  const { listCandidates, settleRows } = await import('./settle.js');
  let listing;
  try {
    listing = await listCandidates(client, { sinceMs, claimed, signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw new InterruptedError('Interrupted while checking the unknown rows; nothing was sent.');
    const msg = err instanceof Error ? err.message : String(err);
    await ctx.warn(`could not read the service's sequences (${msg}); the ${rows.length} unknown rows stay unknown`);
    return;
  }
  const s = settleRows(rows, listing, { definitionId, sinceMs, hash });
  if (s.created.length || s.absent.length) {
    const journal = await JournalWriter.open(journalPath);
    try {
      await journal.append({ type: 'settled', at: ctx.now().toISOString(), created: s.created, absent: s.absent });
    } finally {
      await journal.close();
    }
  }
  for (const x of s.created) {
    state.created.set(x.line, x.id);
    state.unknown.delete(x.line);
  }
  for (const l of s.absent) state.unknown.delete(l);
  const parts = [`${s.created.length} found created`, `${s.absent.length} proven not created${s.absent.length ? ' (they will be sent)' : ''}`];
  if (s.unknown.length) parts.push(`${s.unknown.length} still unknown`);
  ctx.info(`  from ${listing.source}: ${parts.join(', ')}.`);
  const reasons = new Map<string, number[]>();
  for (const u of s.unknown) reasons.set(u.why, [...(reasons.get(u.why) ?? []), u.line]);
  for (const [why, lines] of reasons) ctx.info(`  line${lines.length === 1 ? '' : 's'} ${lineList(lines)}: ${why}.`);
}

// ---------------------------------------------------------------------------------------------
const RESULT_COLUMNS = ['line', 'status', 'sequence_id', 'messages'] as const;

async function writeResults(o: BatchOptions, mode: Mode | 'validate', checks: Checks, st: JournalState | undefined): Promise<void> {
  const { openResults, ResultsFileError } = await import('../csv/results.js');
  let out;
  try {
    out = await openResults(o.out!, RESULT_COLUMNS);
  } catch (err) {
    if (err instanceof ResultsFileError) throw new UsageError(err.message);
    throw err;
  }
  const messages = new Map<number, string[]>();
  for (const p of checks.problems) {
    if (p.line === null) continue;
    const list = messages.get(p.line) ?? [];
    // The field is named unless the service's words already name it.
    const field = p.field && !p.message.includes(p.field) ? `${p.field}: ` : '';
    list.push(`${p.severity === 'warning' ? 'warning: ' : ''}${field}${p.message}`);
    messages.set(p.line, list);
  }
  let complete = false;
  try {
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
      await out.write({ line, status, sequence_id: id ?? '', messages: messages.get(line) ?? [] });
    }
    complete = true;
  } finally {
    // Every row or none: a file that failed part-way (the input changed, the disk filled) keeps
    // the earlier results file rather than replacing it with a partial one.
    if (complete) await out.close();
    else await out.abort();
  }
}

async function report(
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
  if (ctx.globals.quiet && !ctx.globals.formatExplicit) {
    if (st) for (const id of st.created.values()) if (id !== null) ctx.io.out(`${id}\n`);
    return;
  }
  const { writeList } = await import('../output/writer.js');
  const shown = ctx.io.isStdoutTTY && fmt === 'table' ? checks.problems.slice(0, TABLE_LIMIT) : checks.problems;
  if (shown.length) {
    await writeList(ctx, shown, [
      { header: 'LINE', value: (p) => (p.line === null ? '-' : p.line) },
      { header: 'FIELD', value: (p) => p.field },
      { header: 'PROBLEM', value: (p) => `${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`, style: (t, p, c) => (p.severity === 'warning' ? c.yellow(t) : c.red(t)) },
    ]);
    if (shown.length < checks.problems.length) {
      ctx.io.out(`… and ${checks.problems.length - shown.length} more problems (all of them with -o json${o.out ? ` and in ${o.out}` : ', or write --out results.csv'}).\n`);
    }
  }
  const parts = [`${checks.rows} row${checks.rows === 1 ? '' : 's'}`, `${checks.rows - invalidCount} valid`, `${invalidCount} invalid`];
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  let line: string;
  if (mode === 'create') line = `${created} sequences created for definition ${def.id} "${def.name}" (${parts.join(', ')}${unknown.size ? `, ${unknown.size} unknown` : ''}).`;
  else if (mode === 'dry-run') line = `Local checks of ${o.file}: ${parts.join(', ')} (nothing sent).`;
  else line = `${o.validateOnly ? 'Validated' : 'Checked'} ${o.file} against definition ${def.id} "${def.name}": ${parts.join(', ')}.${o.validateOnly ? ' Nothing was created.' : ''}`;
  ctx.info(line);
  if (o.out) ctx.info(`Results: ${o.out}`);
}

function jsonProblem(p: Problem) {
  return { line: p.line, field: p.field, severity: p.severity, message: p.message, code: p.code ?? null, source: p.source };
}

// ---------------------------------------------------------------------------------------------
/** The command that continues (or checks) this run, quoted for a POSIX shell. */
export function resumeCommand(o: BatchOptions, change: { resume?: boolean; validateOnly?: boolean; resendUnknown?: boolean }): string {
  const args = ['outreach', 'sequences', 'batch', o.file];
  if (o.definition !== undefined) args.push('--definition', String(o.definition));
  if (change.validateOnly) args.push('--validate-only');
  for (const m of o.map) args.push('--map', m);
  if (o.country.toUpperCase() !== 'US') args.push('--country', o.country);
  if (o.delimiter) args.push('--delimiter', o.delimiter === '\t' ? 'tab' : o.delimiter);
  if (o.nextActivity && !change.validateOnly) args.push('--next-activity', o.nextActivity);
  if (o.out) args.push('--out', o.out);
  if (o.journal) args.push('--journal', o.journal);
  if (!change.validateOnly) {
    if (o.skipInvalid) args.push('--skip-invalid');
    if (change.resume) args.push('--resume');
    if (change.resendUnknown) args.push('--resend-unknown');
    if (o.yes) args.push('--yes');
  }
  return args.map(shellQuote).join(' ');
}

export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./=:,+@%-]+$/.test(s)) return s;
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
