// Settling rows whose creation is unknown, from what API.md's records carry (CLI.md, point 6):
// - which sequences exist: GET .../sequences/metrics lists all of the organisation's sequences with
//   id and created_at (API.md). Without it, the sequence list can still prove a row created, but
//   never absent: API.md does not say whether the list is paged;
// - what each one is: its sequence_definition_id and its voice steps' destination_number, from the
//   list or, when the list does not carry them, GET .../sequences/{id};
// - our sandbox's extras (created_at and phone_number on sequences) are used when present.
// A row is proven created by a sequence of the same definition and phone created since the run
// began; proven absent when no sequence created or changed since then could be it and the listing
// is complete. Anything else stays unknown: never guessed, never sent again automatically.
import type { HttpClient } from '../api/http.js';
import { readInt } from '../api/read.js';
import type { SequenceRecord } from '../api/sequences.js';
import type { UnknownRow } from './journal.js';
import { plural } from '../output/plural.js';

export interface Candidate {
  id: number;
  definitionId?: number;
  phones: string[];
  createdAt?: number;
  updatedAt?: number;
}

function time(v: unknown): number | undefined {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? undefined : t;
}

/** What a sequence record (listed, read, or a metrics entry) says about which row it could be. */
export function readCandidate(rec: Record<string, unknown>): Candidate | undefined {
  const id = readInt(rec.id);
  if (id === undefined) return undefined;
  const phones = new Set<string>();
  for (const k of ['phone_number', 'phoneNumber']) if (typeof rec[k] === 'string' && rec[k]) phones.add(rec[k] as string);
  if (Array.isArray(rec.steps)) {
    for (const st of rec.steps) {
      const d = st && typeof st === 'object' ? (st as Record<string, unknown>).destination_number : undefined;
      if (typeof d === 'string' && d) phones.add(d);
    }
  }
  return {
    id,
    definitionId: readInt(rec.sequence_definition_id ?? rec.sequenceDefinitionId),
    phones: [...phones],
    createdAt: time(rec.created_at ?? rec.createdAt),
    updatedAt: time(rec.last_updated ?? rec.updated_at),
  };
}

function merge(a: Candidate | undefined, b: Candidate): Candidate {
  if (!a) return b;
  return {
    id: a.id,
    definitionId: a.definitionId ?? b.definitionId,
    phones: [...new Set([...a.phones, ...b.phones])],
    createdAt: a.createdAt ?? b.createdAt,
    updatedAt: a.updatedAt === undefined || b.updatedAt === undefined ? (a.updatedAt ?? b.updatedAt) : Math.max(a.updatedAt, b.updatedAt),
  };
}

/** Could this sequence have been created since `sinceMs`? ('no' only when its dates say so). */
function inWindow(c: Candidate, sinceMs: number): boolean {
  if (c.createdAt !== undefined) return c.createdAt >= sinceMs;
  // last_updated is never before creation: an older one rules the sequence out.
  if (c.updatedAt !== undefined) return c.updatedAt >= sinceMs;
  return true;
}

export interface Listing {
  candidates: Candidate[];
  /** Every sequence of the organisation is accounted for. */
  complete: boolean;
  /** How the listing was made, for the user. */
  source: string;
}

const LIST_LIMIT = 1000;
const READ_CONCURRENCY = 6;

/** The sequences that could be rows of this run, each with its definition and phone when known. */
export async function listCandidates(
  client: HttpClient,
  o: { sinceMs: number; claimed: ReadonlySet<number>; signal?: AbortSignal },
): Promise<Listing> {
  const { listSequences, sequenceMetrics, getSequence } = await import('../api/sequences.js');
  const byId = new Map<number, Candidate>();
  let complete = false;
  let source: string;
  // The list is read even when metrics answer: it usually carries each sequence's definition and
  // steps, which saves a read per sequence.
  try {
    const { items } = await sequenceMetrics(client);
    for (const e of items) {
      const c = readCandidate(e as Record<string, unknown>);
      if (c) byId.set(c.id, merge(byId.get(c.id), c));
    }
    complete = true;
    source = "the service's sequence metrics (all sequences of the organisation)";
  } catch {
    source = "the service's sequence list (no metrics: absence cannot be proven)";
  }
  let listed: SequenceRecord[] = [];
  try {
    listed = (await listSequences(client, { limit: LIST_LIMIT })).items;
  } catch (err) {
    if (!complete) throw err;
  }
  for (const s of listed) {
    const c = readCandidate(s as Record<string, unknown>);
    if (c) byId.set(c.id, merge(byId.get(c.id), c));
  }
  const wanted = [...byId.values()].filter((c) => !o.claimed.has(c.id) && inWindow(c, o.sinceMs));
  // Read the ones the listing does not describe (no definition or no phone).
  const toRead = wanted.filter((c) => c.definitionId === undefined || c.phones.length === 0);
  let next = 0;
  const worker = async () => {
    while (next < toRead.length) {
      if (o.signal?.aborted) return;
      const c = toRead[next++]!;
      try {
        const { sequence } = await getSequence(client, c.id);
        const read = readCandidate(sequence as Record<string, unknown>);
        if (read) byId.set(c.id, merge(byId.get(c.id), read));
      } catch {
        // Stays undescribed: it then blocks proofs of absence, never makes one.
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, toRead.length) }, worker));
  return { candidates: wanted.map((c) => byId.get(c.id)!).filter((c) => inWindow(c, o.sinceMs)), complete, source };
}

export interface Settlement {
  created: Array<{ line: number; id: number }>;
  absent: number[];
  unknown: Array<{ line: number; why: string }>;
}

/**
 * Matches unknown rows to candidate sequences (pure). `hash` turns an E.164 number into the
 * journal's phone hash.
 */
export function settleRows(
  rows: readonly UnknownRow[],
  listing: Pick<Listing, 'candidates' | 'complete'>,
  o: { definitionId: number; sinceMs: number; hash: (e164: string) => string },
): Settlement {
  const strong = new Map<string, number[]>(); // created since the run began, same definition
  const weak = new Map<string, number>(); // could be (changed since, or definition unknown), not proof
  let undescribed = 0;
  for (const c of listing.candidates) {
    if (c.definitionId !== undefined && c.definitionId !== o.definitionId) continue;
    if (c.phones.length === 0) {
      undescribed++;
      continue;
    }
    const proven = c.definitionId === o.definitionId && c.createdAt !== undefined && c.createdAt >= o.sinceMs;
    for (const h of new Set(c.phones.map(o.hash))) {
      if (proven) strong.set(h, [...(strong.get(h) ?? []), c.id]);
      else weak.set(h, (weak.get(h) ?? 0) + 1);
    }
  }
  const byPhone = new Map<string, UnknownRow[]>();
  for (const r of rows) byPhone.set(r.phone, [...(byPhone.get(r.phone) ?? []), r]);
  const out: Settlement = { created: [], absent: [], unknown: [] };
  for (const [h, group] of byPhone) {
    const ids = (strong.get(h) ?? []).sort((a, b) => a - b);
    const sorted = [...group].sort((a, b) => a.line - b.line);
    if (ids.length >= sorted.length) {
      sorted.forEach((r, i) => out.created.push({ line: r.line, id: ids[i]! }));
    } else if (ids.length === 0 && !weak.has(h) && undescribed === 0 && listing.complete) {
      for (const r of sorted) out.absent.push(r.line);
    } else {
      const why =
        ids.length > 0
          ? `${plural(ids.length, 'sequence')} for this phone number ${ids.length === 1 ? 'was' : 'were'} created for ${plural(sorted.length, 'row')} that share it`
          : weak.has(h)
            ? 'a sequence for this phone number changed during the run, but the service gives no creation time to tell whether it is this row'
            : !listing.complete
              ? "the service's sequence metrics could not be read and its list may be paged, so absence cannot be proven"
              : `${plural(undescribed, 'sequence')} created during the run ${undescribed === 1 ? 'does' : 'do'} not show a phone number`;
      for (const r of sorted) out.unknown.push({ line: r.line, why });
    }
  }
  out.created.sort((a, b) => a.line - b.line);
  out.absent.sort((a, b) => a - b);
  out.unknown.sort((a, b) => a.line - b.line);
  return out;
}
