// --resume: before anything is sent, the rows an earlier run left unknown are looked for among the
// service's sequences (settle.ts decides from the records). Rows proven created or absent are
// settled in the journal; the others stay unknown and are sent again only with --resend-unknown.
import type { HttpClient } from '../api/http.js';
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../errors.js';
import { JournalWriter } from '../journal/file.js';
import type { JournalHashing } from '../journal/hashing.js';
import { waitUntilQuiet } from '../journal/quiet.js';
import { lineList } from '../journal/words.js';
import type { JournalState } from './journal.js';
import type { CheckedRow } from './rows.js';
import { changedFile, rowsOf } from './source.js';
import type { BatchOptions } from './types.js';
import { plural } from '../output/plural.js';

export async function settleUnknown(
  ctx: Context,
  o: BatchOptions,
  state: JournalState,
  definitionId: number,
  journalPath: string,
  client: HttpClient,
  check: (line: number, values: readonly string[]) => CheckedRow,
  phones: JournalHashing,
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

  await waitUntilQuiet(ctx, Math.max(...rows.map((r) => Date.parse(r.at))), begin.request_timeout_s, 'checking the unknown rows');
  ctx.info(`Looking for ${plural(rows.length, 'row')} whose creation is unknown among the service's sequences...`);
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
