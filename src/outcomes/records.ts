// The records of `sequences outcomes`: every input row, its own columns first as in the file
// (csv/joined.ts names them), then ours. The same records go to --out, -o json|ndjson|csv and,
// a few columns of them, to the table on a terminal.
import { joinedColumns, joinedRecord, type JoinedColumns } from '../csv/joined.js';
import type { Column } from '../output/writer.js';
import { truncate } from '../output/width.js';
import { classify, type NoSequence, type OutcomeResult } from './classify.js';
import type { SequenceState } from './fetch.js';
import type { InputFile, InputRow } from './input.js';

export const OUR_COLUMNS = [
  'line',
  'sequence_id',
  'status',
  'outcome',
  'was_contact_reached',
  'ended_reason',
  'next_activity',
  'last_call_at',
  'last_call_outcome',
  'last_call_failure_reason',
  'result',
] as const;
type Ours = (typeof OUR_COLUMNS)[number];

/** One input row and what is known of it. */
export interface OutcomeRow extends InputRow {
  batch: 'created' | NoSequence;
  /** The sequence of a created row (absent when the service gave the batch no id). */
  state?: SequenceState;
}

export function resultOf(row: OutcomeRow): OutcomeResult {
  if (row.state?.notFound) return 'not-found';
  return classify({ batch: row.batch, sequence: row.state?.sequence, lastCall: row.state?.lastCall });
}

/** Our values of a row; what the service did not give is null (an empty cell). */
export function ourValues(row: OutcomeRow): Record<Ours, unknown> {
  const seq = row.state?.sequence;
  const call = row.state?.lastCall;
  const result = resultOf(row);
  const v = (x: unknown) => (x === undefined ? null : x);
  return {
    line: row.line,
    sequence_id: row.state?.id ?? null,
    status: row.batch !== 'created' || row.state?.notFound ? result : v(seq?.status ?? (row.state ? undefined : 'created')),
    outcome: v(seq?.outcome),
    was_contact_reached: v(seq?.was_contact_reached),
    ended_reason: v(seq?.ended_reason_v2 ?? seq?.ended_reason),
    next_activity: v(seq?.next_activity),
    last_call_at: v(call?.started_at),
    last_call_outcome: v(call?.outcome),
    last_call_failure_reason: v(call?.failure_reason),
    result,
  };
}

export interface Records {
  joined: JoinedColumns;
  /** Column names in order: the file's, then ours (renamed when the file has one alike). */
  columns: string[];
  /** Our column `c` as written. */
  ours(c: Ours): string;
}

export function recordsFor(headers: readonly string[]): Records {
  const joined = joinedColumns(headers, OUR_COLUMNS);
  return { joined, columns: joined.columns, ours: (c) => joined.ours[OUR_COLUMNS.indexOf(c)]! };
}

export function recordOf(r: Records, row: OutcomeRow): Record<string, unknown> {
  return joinedRecord(r.joined, row.values, ourValues(row), OUR_COLUMNS);
}

type Rec = Record<string, unknown>;

/** Every column, for csv/tsv/json: the records as written to --out. */
export function allColumns(r: Records): Column<Rec>[] {
  return r.columns.map((name) => ({ header: name, key: name, value: (x: Rec) => x[name] }));
}

/** The list of whom to call, on a terminal: the result, who it is and what happened. */
export function tableColumns(r: Records, people: InputFile['people']): Column<Rec>[] {
  const person = (m: InputFile['people']['firstName'], shrink: boolean): Column<Rec>[] => {
    if (!m) return [];
    const name = r.joined.input[m.index]!;
    return [{ header: truncate(name.toUpperCase(), 20), key: name, value: (x) => x[name], shrink }];
  };
  const of = (c: Ours) => (x: Rec) => x[r.ours(c)];
  return [
    { header: 'LINE', key: r.ours('line'), value: of('line') },
    { header: 'RESULT', key: r.ours('result'), value: of('result'), style: (t, _x, chalk) => styleResult(t, chalk) },
    ...person(people.firstName, true),
    ...person(people.lastName, true),
    ...person(people.phoneNumber, false),
    { header: 'OUTCOME', key: r.ours('outcome'), value: of('outcome'), priority: 'useful' },
    { header: 'LAST CALL', key: r.ours('last_call_at'), value: of('last_call_at'), kind: 'datetime', priority: 'useful' },
    { header: 'SEQUENCE', key: r.ours('sequence_id'), value: of('sequence_id'), priority: 'useful' },
    { header: 'STATUS', key: r.ours('status'), value: of('status'), priority: 'extra' },
  ];
}

type Chalk = Parameters<NonNullable<Column<Rec>['style']>>[2];

/** The colour of a result: green done, red a no, yellow someone to call, dim no sequence. */
export function resultColour(result: string): 'green' | 'red' | 'yellow' | 'cyan' | 'dim' {
  switch (result) {
    case 'completed':
      return 'green';
    case 'declined':
    case 'opted-out':
    case 'failed':
    case 'cancelled':
      return 'red';
    case 'not-reached':
    case 'callback-requested':
      return 'yellow';
    case 'in-progress':
      return 'cyan';
    default:
      return 'dim';
  }
}

/** `text` in the colour of `result` (the text itself by default). */
export function styleResult(text: string, chalk: Chalk, result = text): string {
  return chalk[resultColour(result)](text);
}
