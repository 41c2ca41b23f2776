// Local checks of one CSV row against the column mapping and the definition's inputs: the row as
// the service wants it (camelCase keys, text values, E.164 phone, YYYY-MM-DD dates) or the problems
// found, each with the CSV line and field. Pure apart from the phone/date libraries. Messages never
// echo a value (patient data): the value travels beside them, for the person's own terminal only.
import type { BatchRow, InputDefinition } from '../api/types.js';
import type { ColumnMapping } from '../csv/headers.js';
import { normalisePhone } from '../csv/phone.js';
import { checkValue } from '../csv/values.js';

/** One problem of one row (or of a whole chunk when `line` is null). */
export interface Problem {
  line: number | null;
  field: string;
  message: string;
  severity: 'error' | 'warning';
  source: 'local' | 'service';
  code?: string;
  /** Local problems: the file's column the value came from (what the person sees in their file). */
  column?: string;
  /**
   * Local problems: the value as written in the file, for the person's own terminal only; never in
   * messages, -o json, journals or results files (those take `message`).
   */
  value?: string;
}

export interface CheckedRow {
  line: number;
  /** The row to send; undefined when the row has errors. */
  row?: BatchRow;
  /** E.164, when the phone number is valid (for the journal and duplicate detection). */
  phone?: string;
  /** The file's column of the phone number (to name it in a duplicate's warning). */
  phoneColumn?: string;
  problems: Problem[];
}

const STANDARD: Record<string, string> = { firstName: 'first name', lastName: 'last name', phoneNumber: 'phone number' };

interface Slot {
  field: string;
  column: string;
  index: number;
  kind: 'name' | 'phone' | 'input';
  type: string;
  required: boolean;
}

/**
 * Builds the checker for a file: `mapping` from matchHeaders (columns to fields), `inputs` the
 * definition's inputs_definition, `country` the default phone country (already checked).
 */
export function makeRowChecker(mapping: readonly ColumnMapping[], inputs: readonly InputDefinition[], country: string) {
  const inputById = new Map(inputs.map((i) => [i.id, i]));
  const slots: Slot[] = mapping.map((m) => {
    const at = { field: m.field, column: m.column, index: m.index };
    if (m.field === 'phoneNumber') return { ...at, kind: 'phone', type: 'phone', required: true };
    if (m.field === 'firstName' || m.field === 'lastName') return { ...at, kind: 'name', type: 'text', required: true };
    const def = inputById.get(m.field);
    return { ...at, kind: 'input', type: String(def?.type ?? 'text'), required: def?.required === true };
  });

  const phoneColumn = slots.find((s) => s.kind === 'phone')?.column;
  return function check(line: number, values: readonly string[]): CheckedRow {
    const problems: Problem[] = [];
    const row: BatchRow = {};
    let phone: string | undefined;
    for (const s of slots) {
      const raw = (values[s.index] ?? '').trim();
      const error = (code: string, message: string) =>
        problems.push({ line, field: s.field, column: s.column, code, message, severity: 'error', source: 'local', ...(raw ? { value: raw } : {}) });
      if (raw === '') {
        if (s.required) error('required', `${STANDARD[s.field] ?? describe(s.field, inputById)} is empty`);
        continue;
      }
      if (s.kind === 'phone') {
        const p = normalisePhone(raw, country);
        if (p.ok) {
          phone = p.e164;
          row[s.field] = p.e164;
        } else error(p.code, p.message);
      } else if (s.kind === 'name') {
        row[s.field] = raw;
      } else {
        const v = checkValue(s.type, raw);
        if (v.ok) row[s.field] = v.value;
        else error(v.code, v.message);
      }
    }
    return problems.length ? { line, phone, phoneColumn, problems } : { line, row, phone, phoneColumn, problems };
  };
}

function describe(field: string, inputs: Map<string, InputDefinition>): string {
  const name = inputs.get(field)?.name;
  return name && name !== field ? `${field} (${name})` : field;
}
