// `sequences batch`: the orchestration. Passes over the streamed CSV (memory stays flat):
//   1. checks: local checks of every row, then (unless --dry-run) validate_only chunks of 100,
//      pipelined; problems keyed by CSV line;
//   2. create (not with --validate-only/--dry-run): after the confirmation, chunks of 100 valid
//      rows, each journalled before (intent) and after (result) its request;
//   3. results (--out): every input row with its status, written from what passes 1 and 2 learnt.
// A resumed run first settles the chunks the journal marks unknown (see settle.ts).
import { basename } from 'node:path';
import type { BatchRow } from '../api/types.js';
import type { HttpClient } from '../api/http.js';
import type { DefinitionRecord } from '../api/definitions.js';
import type { Context } from '../context.js';
import {
  ApiError,
  AuthError,
  CliError,
  IncompleteError,
  InterruptedError,
  MalformedResponseError,
  NetworkError,
  UnknownOutcomeError,
  UsageError,
  ValidationError,
} from '../errors.js';
import type { CsvFile, CsvRow } from '../csv/reader.js';
import type { ColumnMapping } from '../csv/headers.js';
import { toProblem } from './issues.js';
import {
  headersHash,
  newSalt,
  phoneHash,
  readJournal,
  replay,
  JournalError,
  JournalWriter,
  JOURNAL_VERSION,
  type BeginRecord,
  type JournalState,
} from './journal.js';
import { makeRowChecker, type CheckedRow, type Problem } from './rows.js';
import { coversWindow, readListed, settleRows, type ListedSequence } from './settle.js';
import { Progress } from './progress.js';

export const CHUNK_SIZE = 100;
/** validate_only requests in flight at once (they create nothing, so they may overlap). */
export const VALIDATE_CONCURRENCY = 3;
const LIST_LIMIT = 1000;
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
  journal?: string;
}

type Mode = 'validate' | 'dry-run' | 'create';

interface Checks {
  rows: number;
  /** Lines with errors (local or service) → never sent. */
  invalid: Set<number>;
  problems: Problem[];
  toCreate: number;
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
      if (created > 0 || state.unknownChunks.length > 0) {
        throw new UsageError(
          `An earlier run of this upload stopped part-way (journal ${journalPath}: ${created} rows created, ${unknownCount(state)} unknown).`,
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
  const salt = state?.begin?.salt ?? newSalt();
  const journalLines = journalLineHashes(state);
  const progress = new Progress(ctx.io, ctx.io.isStderrTTY && !ctx.globals.quiet);
  const nextActivity = o.nextActivity ?? state?.begin?.next_activity;

  // ---- resume: settle unknown chunks first ----
  if (state && state.unknownChunks.length) {
    await settleUnknown(ctx, o, state, definition.id, journalPath, await getClient(), check, salt);
  }

  // ---- pass 1: checks ----
  const checks = await checkPass(ctx, o, mode, definition.id, check, salt, journalLines, state, progress, mode === 'dry-run' ? undefined : await getClient());

  if (mode !== 'create') {
    if (o.out) await writeResults(o, mode, checks, state, new Set());
    await report(ctx, o, mode, definition, checks, state, new Set());
    if (checks.invalid.size > 0) {
      throw new ValidationError(`${checks.invalid.size} of ${checks.rows} rows of ${o.file} are invalid (lines listed above).`, { details: { invalid_rows: checks.invalid.size } });
    }
    return;
  }

  if (checks.invalid.size > 0 && !o.skipInvalid) {
    if (o.out) await writeResults(o, 'validate', checks, state, new Set());
    await report(ctx, o, 'validate', definition, checks, state, new Set());
    throw new ValidationError(`${checks.invalid.size} of ${checks.rows} rows of ${o.file} are invalid; nothing was sent.`, {
      hint: 'Fix those rows and run again, or pass --skip-invalid to create the valid rows only.',
    });
  }
  if (checks.toCreate === 0) {
    if (o.out) await writeResults(o, 'create', checks, state, new Set());
    await report(ctx, o, 'create', definition, checks, state, new Set());
    ctx.info('Nothing to create.');
    return;
  }

  // ---- confirmation ----
  if (!o.yes) {
    const prompter = await ctx.prompter();
    const skipped = checks.invalid.size ? ` (${checks.invalid.size} invalid rows skipped)` : '';
    const ok = await prompter.confirm(
      `${checks.toCreate} patients will be contacted by "${definition.name}" (definition ${definition.id})${skipped}. Create the sequences?`,
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
        salt,
        next_activity: nextActivity,
        request_timeout_s: ctx.globals.requestTimeoutSec,
        headers: hdrHash,
      };
      await journal.append(begin);
      st.begin = begin;
    } else {
      await journal.append({ type: 'resume', at: ctx.now().toISOString() });
    }
    const unknown = new Set<number>();
    const sent = { rows: 0 };
    const stop = await createPass(ctx, o, definition.id, check, salt, checks, st, journal, progress, await getClient(), nextActivity, unknown, sent);
    progress.clear();
    if (!stop) await journal.append({ type: 'end', at: ctx.now().toISOString(), outcome: 'complete' });
    if (o.out) await writeResults(o, 'create', checks, st, unknown);
    await report(ctx, o, 'create', definition, checks, st, unknown, stop);
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
        `${stop.reason}. ${what}. The journal ${journalPath} records which rows are which` +
        (unknown.size ? '; --resume first checks which of the unknown rows the service created, and never sends a row twice.' : '.') +
        `\nTo continue: ${cmd}`;
      if (stop.kind === 'interrupted') throw new InterruptedError(msg);
      throw new IncompleteError(msg, { details: { created: createdNow, unknown: unknown.size, not_sent: notSent, journal: journalPath, resume: cmd } });
    }
  } finally {
    progress.clear();
    await journal.close();
  }
}

function unknownCount(state: JournalState): number {
  return state.unknownChunks.reduce((n, c) => n + c.lines.length, 0);
}

/** Every journalled line → its phone hash, to notice a file edited between a run and its resume. */
function journalLineHashes(state: JournalState | undefined): Map<number, string> {
  const m = new Map<number, string>();
  if (!state) return m;
  for (const c of state.chunks.values()) c.lines.forEach((l, i) => m.set(l, c.phones[i]!));
  return m;
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
  salt: string,
  journalLines: Map<number, string>,
  state: JournalState | undefined,
  progress: Progress,
  client: HttpClient | undefined,
): Promise<Checks> {
  const { postBatch } = await import('../api/sequences.js');
  const checks: Checks = { rows: 0, invalid: new Set(), problems: [], toCreate: 0 };
  const inFlight: Array<Promise<{ chunk: PendingChunk; result?: Awaited<ReturnType<typeof postBatch>>; error?: unknown }>> = [];
  let chunk: PendingChunk = { lines: [], rows: [] };

  const settleOldest = async () => {
    const done = await inFlight.shift()!;
    if (done.error !== undefined) {
      if (ctx.signal.aborted) throw new InterruptedError('Interrupted while checking the file; nothing was created.');
      throw done.error;
    }
    const r = done.result!;
    const lines = done.chunk.lines;
    const bad = new Set<number>();
    for (const e of r.errors) {
      const p = toProblem(e, 'error', { lines, rows: done.chunk.rows });
      checks.problems.push(p);
      if (p.line === null) lines.forEach((l) => bad.add(l));
      else bad.add(p.line);
    }
    for (const w of r.warnings) checks.problems.push(toProblem(w, 'warning', { lines, rows: done.chunk.rows }));
    if (r.valid === false && r.errors.length === 0) {
      checks.problems.push({ line: null, field: '', severity: 'error', source: 'service', message: `the service found the chunk of lines ${lines[0]}-${lines[lines.length - 1]} invalid but named no row` });
      lines.forEach((l) => bad.add(l));
    }
    for (const l of bad) checks.invalid.add(l);
    checks.toCreate -= bad.size;
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
    const known = journalLines.get(line);
    if (known !== undefined && (!c.phone || phoneHash(salt, c.phone) !== known)) throw changedFile(o, line);
    if (c.problems.length) {
      checks.problems.push(...c.problems);
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
  salt: string,
  checks: Checks,
  st: JournalState,
  journal: JournalWriter,
  progress: Progress,
  client: HttpClient,
  nextActivity: string | undefined,
  unknown: Set<number>,
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
    let result;
    try {
      result = await postBatch(client, definitionId, c.rows, { validateOnly: false, nextActivityDate: nextActivity });
    } catch (err) {
      const fate = classify(err, ctx.signal.aborted);
      const reason = `${ctx.signal.aborted ? 'Interrupted while sending' : 'Stopped at'} chunk ${n} (lines ${c.lines[0]}-${c.lines[c.lines.length - 1]}): ${fate.reason}`;
      await journal.append({ type: 'result', chunk: n, at: now(), outcome: fate.outcome, reason: fate.reason });
      if (fate.outcome === 'unknown') {
        c.lines.forEach((l) => unknown.add(l));
        sent.rows += c.lines.length;
      }
      return { kind: ctx.signal.aborted ? 'interrupted' : fate.outcome, reason, error: err instanceof CliError ? err : undefined };
    }
    // Which rows were created: `created` when the service lists it, else deduced from the counts.
    const errorIdx = new Set<number>();
    for (const e of result.errors) {
      const p = toProblem(e, 'error', { lines: c.lines, rows: c.rows });
      checks.problems.push(p);
      if (p.line !== null) {
        errorIdx.add(c.lines.indexOf(p.line));
        checks.invalid.add(p.line);
      }
    }
    for (const w of result.warnings) checks.problems.push(toProblem(w, 'warning', { lines: c.lines, rows: c.rows }));
    let created: Array<{ line: number; id: number | null }> | undefined;
    if (result.created) {
      created = result.created.map((x) => ({ line: c.lines[x.rowIndex]!, id: x.sequenceId ?? null })).filter((x) => x.line !== undefined);
    } else {
      const candidates = c.lines.filter((_, i) => !errorIdx.has(i));
      if (result.createdCount === candidates.length) created = candidates.map((line) => ({ line, id: null }));
      else if (result.createdCount === 0) created = [];
    }
    if (!created) {
      const reason = `the service answered chunk ${n} with created_count ${result.createdCount ?? 'missing'} and no list of created rows, so which rows were created is unknown`;
      await journal.append({ type: 'result', chunk: n, at: now(), outcome: 'unknown', reason });
      c.lines.forEach((l) => unknown.add(l));
      sent.rows += c.lines.length;
      return { kind: 'unknown', reason: `Stopped: ${reason}` };
    }
    const createdLines = new Set(created.map((x) => x.line));
    const failed = c.lines.filter((l) => !createdLines.has(l));
    for (const l of failed) {
      if (!checks.invalid.has(l)) {
        checks.invalid.add(l);
        checks.problems.push({ line: l, field: '', severity: 'error', source: 'service', message: 'the service did not create this row (no reason given)' });
      }
    }
    await journal.append({ type: 'result', chunk: n, at: now(), outcome: 'created', created, failed });
    for (const x of created) st.created.set(x.line, x.id);
    sent.rows += c.lines.length;
    done += c.lines.length;
    progress.update('creating', done, checks.toCreate, true);
    return undefined;
  };

  for await (const { line, values } of rowsOf(o, st.begin?.headers)) {
    if (checks.invalid.has(line) || st.created.has(line)) continue;
    const c = check(line, values);
    if (!c.row || !c.phone) throw changedFile(o, line);
    chunk.lines.push(line);
    chunk.rows.push(c.row);
    chunk.phones.push(phoneHash(salt, c.phone));
    if (chunk.lines.length === CHUNK_SIZE) {
      const stop = await sendChunk();
      if (stop) return stop;
    }
  }
  if (chunk.lines.length) return sendChunk();
  return undefined;
}

/** What a failed create request means for its rows. */
export function classify(err: unknown, aborted: boolean): { outcome: 'unknown' | 'rejected'; reason: string } {
  const msg = err instanceof Error ? err.message : String(err);
  if (err instanceof UnknownOutcomeError || aborted) {
    return { outcome: 'unknown', reason: aborted ? 'the request was cut off by the interruption; the service may or may not have created the rows' : msg };
  }
  if (err instanceof MalformedResponseError) return { outcome: 'unknown', reason: `${msg} The service may have created the rows.` };
  if (err instanceof ApiError) {
    const s = err.status ?? 0;
    // A 5xx other than 503 may come after the service acted; 4xx, 429 and 503 are refusals.
    if (s >= 500 && s !== 503) return { outcome: 'unknown', reason: `the service failed with ${s} (${msg}); it may have created some rows` };
    return { outcome: 'rejected', reason: `the service refused the chunk: ${msg}` };
  }
  if (err instanceof AuthError) return { outcome: 'rejected', reason: msg };
  if (err instanceof NetworkError) return { outcome: 'rejected', reason: `${msg} (the request was not sent)` };
  return { outcome: 'unknown', reason: msg };
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
  salt: string,
): Promise<void> {
  const begin = state.begin!;
  const hash = (e164: string) => phoneHash(salt, e164);
  // The window: since the run began on the service's clock (a minute of slack for its 1 s
  // resolution), or on ours with a quarter of an hour of slack for clock skew.
  const sinceMs = begin.server_at ? Date.parse(begin.server_at) - 60_000 : Date.parse(begin.at) - 15 * 60_000;
  const claimed = new Set<number>([...state.created.values()].filter((x): x is number => x !== null));
  const wanted = new Map<number, string>();
  for (const c of state.unknownChunks) c.lines.forEach((l, i) => wanted.set(l, c.phones[i]!));
  // Read the unknown rows' phone numbers back from the file (and check it is the same file).
  const phones = new Map<number, string>();
  for await (const { line, values } of rowsOf(o)) {
    const h = wanted.get(line);
    if (h === undefined) continue;
    const c = check(line, values);
    if (!c.phone || hash(c.phone) !== h) throw changedFile(o, line);
    phones.set(line, c.phone);
    if (phones.size === wanted.size) break;
  }
  if (phones.size !== wanted.size) throw new UsageError(`${o.file} has fewer rows than when the journal ${journalPath} was written; resume with the same file.`);

  // A request cut off on our side may still be on its way (a proxy, a queue): absence is only
  // trusted once no request of those chunks can plausibly still arrive — the run's request
  // timeout plus 5 s after it was sent.
  const quietMs = ((begin.request_timeout_s ?? 30) + 5) * 1000;
  const readyAt = Math.max(...state.unknownChunks.map((c) => Date.parse(c.at) + quietMs));
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
  const { listSequences } = await import('../api/sequences.js');
  ctx.info(`Settling ${wanted.size} rows whose creation is unknown (chunk${state.unknownChunks.length > 1 ? 's' : ''} ${state.unknownChunks.map((c) => c.chunk).join(', ')}) against the service's sequences...`);
  const all = (await listSequences(client, { sequenceDefinitionId: definitionId, limit: LIST_LIMIT })).items.map(readListed);
  const proof = coversWindow(all, LIST_LIMIT, sinceMs);
  if (!proof.ok && proof.undated) throw refuse(o, journalPath, state.unknownChunks[0]!.chunk, proof.reason);
  const journal = await JournalWriter.open(journalPath);
  try {
    for (const c of state.unknownChunks) {
      let items: ListedSequence[] = all;
      if (!proof.ok) {
        // Ask per phone number (a filter the sandbox knows; a service that ignores it returns the
        // whole list, which then has to prove completeness on its own).
        const byId = new Map<number, ListedSequence>();
        for (const e164 of new Set(c.lines.map((l) => phones.get(l)!))) {
          const got = (await listSequences(client, { sequenceDefinitionId: definitionId, phoneNumber: e164, limit: LIST_LIMIT })).items.map(readListed);
          const p = coversWindow(got, LIST_LIMIT, sinceMs);
          if (!p.ok) throw refuse(o, journalPath, c.chunk, p.reason);
          for (const s of got) byId.set(s.id, s);
        }
        items = [...byId.values()];
      }
      const s = settleRows(
        c.lines.map((line, i) => ({ line, phoneHash: c.phones[i]! })),
        items,
        { definitionId, sinceMs, claimed, hash },
      );
      if (!s.ok) throw refuse(o, journalPath, c.chunk, s.reason);
      await journal.append({ type: 'settled', chunk: c.chunk, at: ctx.now().toISOString(), created: s.created, absent: s.absent });
      for (const x of s.created) {
        state.created.set(x.line, x.id);
        claimed.add(x.id);
      }
      c.status = 'settled';
      ctx.info(`  chunk ${c.chunk}: ${s.created.length} rows found created, ${s.absent.length} proven not created${s.absent.length ? ' (they will be sent)' : ''}`);
    }
    state.unknownChunks = [];
  } finally {
    await journal.close();
  }
}

function refuse(o: BatchOptions, journalPath: string, chunk: number, reason: string): IncompleteError {
  return new IncompleteError(
    `Cannot tell whether the rows of chunk ${chunk} were created: ${reason}. Nothing was sent; the rows stay unknown in ${journalPath}.`,
    { hint: 'Check the sequences on the service (outreach sequences list) before sending these rows again.' },
  );
}

// ---------------------------------------------------------------------------------------------
const RESULT_COLUMNS = ['line', 'status', 'sequence_id', 'messages'] as const;

async function writeResults(o: BatchOptions, mode: Mode | 'validate', checks: Checks, st: JournalState | undefined, unknown: Set<number>): Promise<void> {
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
    list.push(`${p.severity === 'warning' ? 'warning: ' : ''}${p.field ? `${p.field}: ` : ''}${p.message}`);
    messages.set(p.line, list);
  }
  try {
    for await (const { line } of rowsOf(o)) {
      let status: string;
      let id: number | null = null;
      if (st?.created.has(line)) {
        status = 'created';
        id = st.created.get(line) ?? null;
      } else if (checks.invalid.has(line)) status = mode === 'create' && o.skipInvalid ? 'skipped' : 'invalid';
      else if (unknown.has(line)) status = 'unknown';
      else status = mode === 'create' ? 'not-sent' : mode === 'dry-run' ? 'checked' : 'valid';
      await out.write({ line, status, sequence_id: id ?? '', messages: messages.get(line) ?? [] });
    }
  } finally {
    await out.close();
  }
}

async function report(
  ctx: Context,
  o: BatchOptions,
  mode: Mode | 'validate',
  def: DefinitionRecord,
  checks: Checks,
  st: JournalState | undefined,
  unknown: Set<number>,
  stop?: Stop,
): Promise<void> {
  const errors = checks.problems.filter((p) => p.severity === 'error');
  const warnings = checks.problems.length - errors.length;
  const created = st ? st.created.size : 0;
  const summary = {
    file: o.file,
    definition_id: def.id,
    definition_name: def.name,
    mode: mode === 'validate' && !o.validateOnly && !o.dryRun ? 'create' : mode,
    rows: checks.rows,
    valid_rows: checks.rows - checks.invalid.size,
    invalid_rows: checks.invalid.size,
    warnings,
    ...(mode === 'create' || (!o.validateOnly && !o.dryRun)
      ? { created: created, unknown: unknown.size, complete: mode === 'create' && !stop }
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
  const parts = [`${checks.rows} row${checks.rows === 1 ? '' : 's'}`, `${checks.rows - checks.invalid.size} valid`, `${checks.invalid.size} invalid`];
  if (warnings) parts.push(`${warnings} warnings`);
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
export function resumeCommand(o: BatchOptions, change: { resume?: boolean; validateOnly?: boolean }): string {
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
    if (o.yes) args.push('--yes');
  }
  return args.map(shellQuote).join(' ');
}

export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./=:,+@%-]+$/.test(s)) return s;
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
