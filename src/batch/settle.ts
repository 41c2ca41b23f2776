// Settling a chunk whose fate is unknown (pure): are its rows among the organisation's sequences?
// A row counts as created when a sequence of the same definition, for the same phone number,
// created since the run began and not already claimed by another row of the journal, exists;
// it counts as absent only when the listing provably covers that window. Anything the listing
// cannot prove (no created_at, no phone, possibly cut off) is a refusal, never a guess.
import type { SequenceRecord } from '../api/sequences.js';

export interface ListedSequence {
  id: number;
  definitionId?: number;
  createdAt?: number;
  phones: string[];
}

export function readListed(s: SequenceRecord): ListedSequence {
  const o = s as Record<string, unknown>;
  const def = o.sequence_definition_id ?? o.sequenceDefinitionId;
  const created = o.created_at ?? o.createdAt;
  const phones = new Set<string>();
  for (const k of ['phone_number', 'phoneNumber', 'phone']) if (typeof o[k] === 'string' && o[k]) phones.add(o[k] as string);
  if (Array.isArray(o.steps)) {
    for (const st of o.steps) {
      const d = st && typeof st === 'object' ? (st as Record<string, unknown>).destination_number : undefined;
      if (typeof d === 'string' && d) phones.add(d);
    }
  }
  const t = typeof created === 'string' ? Date.parse(created) : NaN;
  return {
    id: s.id,
    definitionId: typeof def === 'number' ? def : typeof def === 'string' && /^\d+$/.test(def) ? Number(def) : undefined,
    createdAt: Number.isNaN(t) ? undefined : t,
    phones: [...phones],
  };
}

/** `undated`: the list cannot prove anything at all (asking otherwise will not help). */
export type Proof = { ok: true } | { ok: false; reason: string; undated?: boolean };

/**
 * Does a listing of `items` (asked with `limit`) show every sequence created since `sinceMs`?
 * Yes when it is shorter than any plausible page (below both the limit and 100), or when it is
 * ordered newest first and reaches back past `sinceMs`.
 */
export function coversWindow(items: readonly ListedSequence[], limit: number, sinceMs: number): Proof {
  const undated = items.filter((i) => i.createdAt === undefined).length;
  if (undated > 0) {
    return { ok: false, reason: `the service's sequence list gives no created_at for ${undated} sequence(s), so what was created during this run cannot be told apart`, undated: true };
  }
  if (items.length < Math.min(limit, 100)) return { ok: true };
  let newestFirst = true;
  for (let i = 1; i < items.length; i++) if (items[i]!.createdAt! > items[i - 1]!.createdAt!) newestFirst = false;
  if (newestFirst && items[items.length - 1]!.createdAt! < sinceMs) return { ok: true };
  return { ok: false, reason: `the service's sequence list returned ${items.length} sequences and may be cut off before the start of this run` };
}

export interface UnknownRow {
  line: number;
  phoneHash: string;
}

export type Settlement =
  | { ok: true; created: Array<{ line: number; id: number }>; absent: number[] }
  | { ok: false; reason: string };

/** Matches unknown rows to listed sequences; `hash` turns an E.164 into the journal's phone hash. */
export function settleRows(
  rows: readonly UnknownRow[],
  items: readonly ListedSequence[],
  o: { definitionId: number; sinceMs: number; claimed: ReadonlySet<number>; hash: (e164: string) => string },
): Settlement {
  const byPhone = new Map<string, number[]>();
  for (const s of items) {
    if (s.createdAt === undefined) return { ok: false, reason: `sequence ${s.id} in the service's list has no created_at` };
    if (s.createdAt < o.sinceMs || o.claimed.has(s.id)) continue;
    if (s.definitionId === undefined) return { ok: false, reason: `sequence ${s.id} in the service's list has no sequence_definition_id` };
    if (s.definitionId !== o.definitionId) continue;
    if (s.phones.length === 0) return { ok: false, reason: `sequence ${s.id} in the service's list has no phone number (phone_number or steps[].destination_number)` };
    for (const h of new Set(s.phones.map(o.hash))) {
      if (!byPhone.has(h)) byPhone.set(h, []);
      byPhone.get(h)!.push(s.id);
    }
  }
  for (const ids of byPhone.values()) ids.sort((a, b) => a - b);
  const used = new Set<number>();
  const created: Array<{ line: number; id: number }> = [];
  const absent: number[] = [];
  for (const r of rows) {
    const id = (byPhone.get(r.phoneHash) ?? []).find((x) => !used.has(x));
    if (id === undefined) absent.push(r.line);
    else {
      used.add(id);
      created.push({ line: r.line, id });
    }
  }
  return { ok: true, created, absent };
}
