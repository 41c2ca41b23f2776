// What the phases of `sequences batch` share: the options, the mode, and what the checks learnt.
import type { CliError } from '../errors.js';
import type { NumberingState } from './answer.js';
import type { Problem } from './rows.js';

export const CHUNK_SIZE = 100;

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
  /** A workbook's sheet (name or 1-based number); default its first. */
  sheet?: string;
  out?: string;
  /** The invalid rows as they were, plus a `problem` column (.csv or .xlsx): src/batch/rejects.ts. */
  rejects?: string;
  skipInvalid: boolean;
  yes: boolean;
  resume: boolean;
  /** Send again the rows whose creation stayed unknown (a person has checked the service). */
  resendUnknown: boolean;
  journal?: string;
  /** Chunks in flight at once (validate_only and create requests). */
  concurrency?: number;
}

export type Mode = 'validate' | 'dry-run' | 'create';

export interface Checks {
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
  /** Lines whose phone number an earlier line of the file has (the local check names that line). */
  duplicatePhones: Set<number>;
}

export function addProblem(checks: Checks, p: Problem): void {
  // The service numbers a duplicate by its place in the chunk ("also appears in row 0"); the local
  // check has already named the file's line of the first occurrence.
  if (p.source === 'service' && p.code === 'duplicate_phone' && p.line !== null && checks.duplicatePhones.has(p.line)) return;
  const key = `${p.severity}|${p.line}|${p.field}|${p.message}`;
  if (checks.seen.has(key)) return;
  checks.seen.add(key);
  checks.problems.push(p);
}

/** Why the create pass stopped before the end. */
export interface Stop {
  kind: 'unknown' | 'rejected' | 'interrupted';
  reason: string;
  error?: CliError;
}
