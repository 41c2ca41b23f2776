// One eligibility check's fields: where they come from (flags, a request body, a CSV row, prompts),
// the local checks made before anything is sent, and the request body built from them. Pure: no I/O.
// Problems name the field (and its flag) but never echo the value (patient data).
import type { EligibilityRequest } from '../api/types.js';
import { normaliseDate } from '../csv/dates.js';
import { checkDateOfBirth } from '../validation/dob.js';
import { checkNpi } from '../validation/npi.js';

export const FIELD_NAMES = [
  'firstName',
  'lastName',
  'dateOfBirth',
  'memberId',
  'customerPatientId',
  'payerId',
  'providerName',
  'npi',
] as const;
export type FieldName = (typeof FIELD_NAMES)[number];
export type CheckFields = Partial<Record<FieldName, string>>;

export interface FieldInfo {
  flag: string;
  /** Path in the request body. */
  path: string;
  label: string;
  required: boolean;
}

export const FIELDS: Record<FieldName, FieldInfo> = {
  firstName: { flag: '--first-name', path: 'patient.first_name', label: 'First name', required: true },
  lastName: { flag: '--last-name', path: 'patient.last_name', label: 'Last name', required: true },
  dateOfBirth: { flag: '--dob', path: 'patient.date_of_birth', label: 'Date of birth (YYYY-MM-DD)', required: true },
  memberId: { flag: '--member-id', path: 'patient.member_id', label: 'Member id', required: true },
  customerPatientId: { flag: '--patient-id', path: 'patient.customer_patient_id', label: 'Your patient id', required: false },
  payerId: { flag: '--payer', path: 'insurance.payer_id', label: 'Payer id', required: true },
  providerName: { flag: '--provider-name', path: 'provider.organization_name', label: 'Provider (organization) name', required: true },
  npi: { flag: '--npi', path: 'provider.npi', label: 'Provider NPI', required: true },
};

export interface FieldProblem {
  field: FieldName;
  message: string;
}

/** Checks one field's value; returns the normalised value or a problem (never quoting the value). */
export function checkField(
  field: FieldName,
  raw: string | undefined,
  today: Date,
  opts: { looseDates?: boolean } = {},
): { ok: true; value: string } | { ok: false; message: string } {
  const value = (raw ?? '').trim();
  if (value === '') return { ok: false, message: 'is missing' };
  if (value.length > 200) return { ok: false, message: 'is longer than 200 characters' };
  switch (field) {
    case 'dateOfBirth': {
      let iso = value;
      if (opts.looseDates) {
        const d = normaliseDate(value);
        if (!d.ok) return { ok: false, message: d.message.replace(/^the date/, 'the date of birth') };
        iso = d.date;
      }
      const r = checkDateOfBirth(iso, today);
      return r.ok ? { ok: true, value: r.date } : { ok: false, message: r.message };
    }
    case 'npi': {
      const r = checkNpi(value);
      return r.ok ? { ok: true, value: r.npi } : { ok: false, message: r.message };
    }
    default:
      return { ok: true, value };
  }
}

/** Checks every field; `required` lists what must be present (customer_patient_id is optional for one check). */
export function checkFields(
  fields: CheckFields,
  today: Date,
  opts: { requirePatientId?: boolean; looseDates?: boolean } = {},
): { ok: true; fields: Required<Pick<CheckFields, Exclude<FieldName, 'customerPatientId'>>> & CheckFields } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const out: CheckFields = {};
  for (const name of FIELD_NAMES) {
    const raw = fields[name];
    const required = FIELDS[name].required || (name === 'customerPatientId' && opts.requirePatientId === true);
    if ((raw === undefined || raw.trim() === '') && !required) continue;
    const r = checkField(name, raw, today, opts);
    if (r.ok) out[name] = r.value;
    else problems.push({ field: name, message: r.message });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, fields: out as Required<Pick<CheckFields, Exclude<FieldName, 'customerPatientId'>>> & CheckFields };
}

/** The request body for checked fields. */
export function buildRequest(
  f: CheckFields,
  webhook: { url?: string; secret?: string } = {},
): EligibilityRequest {
  const body: EligibilityRequest = {
    patient: {
      first_name: f.firstName ?? '',
      last_name: f.lastName ?? '',
      date_of_birth: f.dateOfBirth ?? '',
      member_id: f.memberId ?? '',
      ...(f.customerPatientId ? { customer_patient_id: f.customerPatientId } : {}),
    },
    insurance: { payer_id: f.payerId ?? '' },
    provider: { organization_name: f.providerName ?? '', npi: f.npi ?? '' },
  };
  if (webhook.url) body.webhook_url = webhook.url;
  if (webhook.secret) body.webhook_secret = webhook.secret;
  return body;
}

/** Reads fields out of a request body given with --input; unknown shapes give undefined fields. */
export function fieldsFromBody(body: unknown): { fields: CheckFields; webhookUrl?: string; webhookSecretGiven: boolean } {
  const o = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const sub = (k: string) => (o[k] && typeof o[k] === 'object' ? (o[k] as Record<string, unknown>) : {});
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
  const patient = sub('patient');
  const insurance = sub('insurance');
  const provider = sub('provider');
  return {
    fields: {
      firstName: str(patient.first_name),
      lastName: str(patient.last_name),
      dateOfBirth: str(patient.date_of_birth),
      memberId: str(patient.member_id),
      customerPatientId: str(patient.customer_patient_id),
      payerId: str(insurance.payer_id),
      providerName: str(provider.organization_name),
      npi: str(provider.npi),
    },
    webhookUrl: str(o.webhook_url),
    webhookSecretGiven: o.webhook_secret !== undefined,
  };
}

/** Checks a webhook URL: http(s) only. */
export function checkWebhookUrl(raw: string): string | undefined {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
    return undefined;
  } catch {
    return 'is not a valid URL';
  }
}
