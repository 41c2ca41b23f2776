// `sequences batch`: the order of the phases. The file is streamed once per pass (memory stays flat):
//   prepare    the earlier run's journal, the definition, the columns        (prepare.ts)
//   resume     unknown rows of an earlier run settled from the service         (resume.ts)
//   check      local checks, then validate_only chunks, pipelined              (checkPass.ts)
//   confirm    "N patients will be contacted" on a terminal, or --yes
//   create     chunks journalled before and after, --concurrency in flight     (createPass.ts)
//   report     results file, problems, summary, and how to continue           (report.ts)
// The journal and its lock are the engine's (src/journal/): one run at a time per journal.
import { basename } from 'node:path';
import type { Context } from '../context.js';
import { IncompleteError, InterruptedError, UsageError, ValidationError } from '../errors.js';
import { JournalWriter } from '../journal/file.js';
import { toContinue } from '../journal/words.js';
import { Pacer } from '../util/pacer.js';
import { checkPass } from './checkPass.js';
import { resumeCommand } from './continue.js';
import { createPass } from './createPass.js';
import { JOURNAL_VERSION, replay, type BeginRecord, type JournalState } from './journal.js';
import { prepare } from './prepare.js';
import { closeRows } from './source.js';
import { problemEntry, report, RESUME_PROMISE, stillUnknown, writeResults } from './report.js';
import type { DefinitionRecord } from '../api/definitions.js';
import { plural } from '../output/plural.js';
import { terminalSafe } from '../output/safe.js';
import type { BatchOptions, Checks, Mode } from './types.js';

export type { BatchOptions } from './types.js';

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
  if (o.rejects) await checkWritablePath(o.rejects);
  if (mode !== 'create') return runPasses(o, mode, journalPath, ctx);
  await checkWritablePath(journalPath);
  const { lockJournal } = await import('../journal/lock.js');
  const lock = await lockJournal(`${journalPath}.lock`, journalPath, ctx.warn);
  try {
    await runPasses(o, mode, journalPath, ctx);
  } finally {
    await lock.release();
  }
}

async function runPasses(o: BatchOptions, mode: Mode, journalPath: string, ctx: Context): Promise<void> {
  const prep = await prepare(ctx, o, mode, journalPath, resumeCommand(o, { resume: true }));
  const { state, definition } = prep;
  // One pacer for every request of the run: a 429/503 slows the validate and create passes alike.
  const pacer = new Pacer(ctx.clock);

  if (state && state.unknown.size) {
    const { settleUnknown } = await import('./resume.js');
    try {
      await settleUnknown(ctx, o, state, definition.id, journalPath, await prep.client(), prep.check, prep.phones);
    } catch (err) {
      await closeRows(prep.file);
      throw err;
    }
  }

  const checks = await checkPass(ctx, {
    o,
    definitionId: definition.id,
    check: prep.check,
    phones: prep.phones,
    state,
    client: mode === 'dry-run' ? undefined : await prep.client(),
    pacer,
    file: prep.file,
  });
  const invalidCount = checks.invalid.size + checks.unnamedInvalid;

  if (mode !== 'create') {
    await writeFiles(ctx, o, mode, checks, state);
    await report(ctx, o, mode, definition, checks, state);
    if (invalidCount > 0) {
      throw new ValidationError(`${invalidCount} of ${plural(checks.rows, 'row')} ${invalidCount === 1 ? 'is' : 'are'} invalid (listed above).`, { details: { invalid_rows: invalidCount } });
    }
    return;
  }
  if (invalidCount > 0 && !o.skipInvalid) {
    await writeFiles(ctx, o, 'validate', checks, state);
    await report(ctx, o, 'validate', definition, checks, state);
    // What to do next (fix and run again, or --skip-invalid) ends the report above.
    throw new ValidationError(`${invalidCount} of ${plural(checks.rows, 'row')} ${invalidCount === 1 ? 'is' : 'are'} invalid; nothing was sent.`, {
      details: { invalid_rows: invalidCount },
    });
  }
  if (checks.toCreate === 0) {
    await writeFiles(ctx, o, 'create', checks, state);
    await report(ctx, o, 'create', definition, checks, state);
    if (checks.unknown.size) throw stillUnknown(o, journalPath, checks.unknown);
    ctx.info('Nothing to create.');
    return;
  }

  if (!o.yes) await confirmCreate(ctx, o, definition, checks, state);

  const journal = await JournalWriter.open(journalPath);
  const st: JournalState = state ?? replay([]);
  try {
    if (!state) {
      const begin: BeginRecord = {
        type: 'begin',
        kind: 'sequences-batch',
        v: JOURNAL_VERSION,
        at: ctx.now().toISOString(),
        server_at: prep.serverDate && !Number.isNaN(Date.parse(prep.serverDate)) ? new Date(prep.serverDate).toISOString() : undefined,
        definition_id: definition.id,
        definition_name: definition.name,
        csv: basename(o.file),
        ...prep.phones.params(),
        next_activity: prep.nextActivity,
        request_timeout_s: ctx.globals.requestTimeoutSec,
        headers: prep.hdrHash,
      };
      await journal.append(begin);
      st.begin = begin;
    } else {
      await journal.append({ type: 'resume', at: ctx.now().toISOString() });
    }
    const { stop, sentRows } = await createPass(ctx, {
      o,
      definitionId: definition.id,
      check: prep.check,
      phones: prep.phones,
      checks,
      st,
      journal,
      client: await prep.client(),
      nextActivity: prep.nextActivity,
      pacer,
    });
    const unknown = checks.unknown;
    if (!stop) await journal.append({ type: 'end', at: ctx.now().toISOString(), outcome: unknown.size ? 'unknown-rows' : 'complete' });
    await writeFiles(ctx, o, 'create', checks, st);
    await report(ctx, o, 'create', definition, checks, st, stop);
    if (stop) {
      const createdNow = st.created.size;
      const notSent = Math.max(0, checks.toCreate - sentRows);
      if (createdNow === 0 && unknown.size === 0 && !state && stop.kind !== 'interrupted') {
        // Nothing happened at all: forget the journal so a plain re-run starts afresh.
        await journal.close();
        const { unlink } = await import('node:fs/promises');
        await unlink(journalPath).catch(() => undefined);
        throw stop.error ?? new IncompleteError(`${stop.reason}; nothing was created.`);
      }
      const what = `${plural(createdNow, 'row')} created, ${unknown.size} unknown, ${notSent} not sent`;
      const cmd = resumeCommand(o, { resume: true });
      const msg =
        `${stop.reason.replace(/\.+$/, '')}. ${what}. The journal ${journalPath} records which rows are which.` +
        (unknown.size ? ` ${RESUME_PROMISE}` : '') +
        `\n${toContinue(cmd)}`;
      if (stop.kind === 'interrupted') throw new InterruptedError(msg);
      throw new IncompleteError(msg, { details: { created: createdNow, unknown: unknown.size, not_sent: notSent, journal: journalPath, resume: cmd } });
    }
    if (unknown.size) throw stillUnknown(o, journalPath, unknown);
    if (checks.rejected.size) {
      throw new ValidationError(`The service rejected ${plural(checks.rejected.size, 'row')} when creating ${checks.rejected.size === 1 ? 'it' : 'them'} (listed above); every other row was created.`, {
        details: { rejected_rows: checks.rejected.size },
      });
    }
  } finally {
    await journal.close();
  }
}

/** The files the run was asked for: every row's result (--out), the rows to fix (--rejects). */
async function writeFiles(ctx: Context, o: BatchOptions, mode: Mode | 'validate', checks: Checks, st: JournalState | undefined): Promise<void> {
  if (o.out) await writeResults(o, mode, checks, st);
  if (!o.rejects) return;
  const { writeRejects } = await import('./rejects.js');
  await writeRejects(o, checks);
  if (checks.unnamedInvalid > 0) {
    await ctx.warn(`${plural(checks.unnamedInvalid, 'invalid row')} the service counted without naming ${checks.unnamedInvalid === 1 ? 'is' : 'are'} not in ${o.rejects}`);
  }
}

/**
 * The question before patients are contacted: with --skip-invalid, the lines that will be skipped
 * are shown first (collapsed, as in the report), so the person answers knowing which rows stay out.
 */
async function confirmCreate(ctx: Context, o: BatchOptions, definition: DefinitionRecord, checks: Checks, state: JournalState | undefined): Promise<void> {
  const skipped = checks.invalid.size + checks.unnamedInvalid;
  if (skipped > 0) {
    const { renderProblems, renderOptionsFor } = await import('../output/problems.js');
    const problems = checks.problems.filter((p) => p.severity === 'error').map(problemEntry);
    const heading = `${plural(skipped, 'row')} will be skipped (--skip-invalid):`;
    ctx.io.err(renderProblems({ sections: [{ heading, problems }], fullList: o.out ? `${o.out} will list every row` : '--out results.csv lists every row', next: [] }, renderOptionsFor(ctx.io, ctx.globals.format)));
  }
  const resent = o.resendUnknown && state?.unknown.size ? `, including ${plural(state.unknown.size, 'row')} that may already have been created (--resend-unknown)` : '';
  // Said even with -q: it is what the question is about.
  ctx.io.err(`${terminalSafe(`${plural(checks.toCreate, 'patient')} will be contacted by "${definition.name}" (definition ${definition.id})${resent}.`)}\n`);
  const question = `Create ${plural(checks.toCreate, 'sequence')}${skipped ? ` and skip ${plural(skipped, 'row')}` : ''}?`;
  const ok = await (await ctx.prompter()).confirm(question, { default: false });
  if (!ok) throw new UsageError('Cancelled: nothing was sent.', { code: 'cancelled' });
}
