// Row validation of POST /sequence-manager/sequences/batch. Pure: no database.
// Errors block a row; warnings never do. Codes (documented in docs/sandbox.md):
//   errors:   required, invalid_type, invalid_phone, invalid_date, invalid_number, invalid_boolean, too_long
//   warnings: duplicate_phone, unknown_field
import type { BatchIssue, BatchRow, InputDefinition, SequenceDefinition, SequenceInput } from '../api/types.js';
import { isIsoDate, PHONE_E164 } from './validation.js';

export interface ValidRow {
  rowIndex: number;
  firstName: string;
  lastName: string;
  phone: string;
  inputs: SequenceInput[];
}

export interface BatchValidation {
  errors: BatchIssue[];
  warnings: BatchIssue[];
  validRows: ValidRow[];
}

const STANDARD = ['phoneNumber', 'firstName', 'lastName'] as const;
const MAX_TEXT = 1000;

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

export function validateRows(def: SequenceDefinition, rows: BatchRow[]): BatchValidation {
  const errors: BatchIssue[] = [];
  const warnings: BatchIssue[] = [];
  const validRows: ValidRow[] = [];
  const inputsById = new Map(def.inputs_definition.map((d) => [d.id, d]));
  const firstRowOfPhone = new Map<string, number>();

  rows.forEach((row, rowIndex) => {
    const rowErrors: BatchIssue[] = [];
    const err = (field: string, code: string, message: string) => rowErrors.push({ rowIndex, field, code, message });

    // Standard fields.
    const std: Record<string, string> = {};
    for (const f of STANDARD) {
      const v = row[f];
      if (isBlank(v)) err(f, 'required', `${f} is required`);
      else if (typeof v !== 'string') err(f, 'invalid_type', `${f} must be a string`);
      else if (v.length > MAX_TEXT) err(f, 'too_long', `${f} is longer than ${MAX_TEXT} characters`);
      else std[f] = v.trim();
    }
    const phone = std.phoneNumber;
    if (phone !== undefined && !PHONE_E164.test(phone)) {
      err('phoneNumber', 'invalid_phone', `phoneNumber "${phone}" is not an E.164 number (like +14155550123)`);
    } else if (phone !== undefined) {
      const first = firstRowOfPhone.get(phone);
      if (first === undefined) firstRowOfPhone.set(phone, rowIndex);
      else warnings.push({ rowIndex, field: 'phoneNumber', code: 'duplicate_phone', message: `phoneNumber ${phone} also appears in row ${first}` });
    }

    // The definition's inputs.
    const inputs: SequenceInput[] = [];
    for (const d of def.inputs_definition) {
      const v = row[d.id];
      if (isBlank(v)) {
        if (d.required) err(d.id, 'required', `${d.id} (${d.name ?? d.id}) is required by this sequence definition`);
        continue;
      }
      const checked = checkValue(d, v);
      if ('error' in checked) err(d.id, checked.code, checked.error);
      else inputs.push({ id: d.id, value: checked.value, name: d.name ?? d.id, type: (d.type as SequenceInput['type']) ?? 'text' });
    }

    // Keys that map to nothing.
    for (const key of Object.keys(row)) {
      if ((STANDARD as readonly string[]).includes(key) || inputsById.has(key)) continue;
      warnings.push({ rowIndex, field: key, code: 'unknown_field', message: `${key} is not an input of sequence definition ${def.id}; it is ignored` });
    }

    errors.push(...rowErrors);
    if (rowErrors.length === 0) {
      validRows.push({ rowIndex, firstName: std.firstName!, lastName: std.lastName!, phone: phone!, inputs });
    }
  });
  return { errors, warnings, validRows };
}

type Checked = { value: string } | { error: string; code: string };

function checkValue(d: InputDefinition, v: unknown): Checked {
  if (typeof v === 'object') return { code: 'invalid_type', error: `${d.id} must be a single value, not an object or array` };
  const text = String(v).trim();
  switch (d.type) {
    case 'number':
      if (typeof v === 'number' ? Number.isFinite(v) : /^-?\d+(\.\d+)?$/.test(text)) return { value: text };
      return { code: 'invalid_number', error: `${d.id} must be a number, got "${text}"` };
    case 'boolean':
      if (typeof v === 'boolean') return { value: String(v) };
      if (/^(true|false)$/i.test(text)) return { value: text.toLowerCase() };
      return { code: 'invalid_boolean', error: `${d.id} must be true or false, got "${text}"` };
    case 'date':
      if (typeof v === 'string' && isIsoDate(text)) return { value: text };
      return { code: 'invalid_date', error: `${d.id} must be a real date written YYYY-MM-DD, got "${text}"` };
    default:
      if (text.length > MAX_TEXT) return { code: 'too_long', error: `${d.id} is longer than ${MAX_TEXT} characters` };
      return { value: text };
  }
}
