// Sequence definitions: GET list, GET one, PUT, read by read.ts: the list may be an array or an
// envelope, a single record an object, an array holding it or {success, data}; numbers may come as
// strings; extra fields are kept.
import type { InputDefinition, SequenceDefinition, SequenceDefinitionSummary, SequenceDefinitionUpdate } from './types.js';
import type { HttpClient } from './http.js';
import { MalformedResponseError } from '../errors.js';
import { API_FIELDS, isRecord, normalise, readList, readOne } from './read.js';

/** A definition as read: the documented summary fields, plus whatever else the service sent. */
export type DefinitionRecord = SequenceDefinitionSummary & Partial<SequenceDefinition> & Record<string, unknown>;

const BASE = '/sequence-manager/sequence-definitions';

/**
 * Reads a definition tolerantly: inputs_definition may be missing (no inputs) or hold partial items.
 * `askedId`: the id asked for, shown when the answer carries none.
 */
export function toDefinition(raw: unknown, where: string, askedId?: number): DefinitionRecord {
  if (!isRecord(raw)) throw new MalformedResponseError(`${where}: the service answered without a sequence definition.`);
  const r = normalise<Record<string, unknown>>(raw, API_FIELDS.definition);
  const inputs = Array.isArray(r.inputs_definition) ? r.inputs_definition : [];
  const inputs_definition: InputDefinition[] = inputs
    .filter((i): i is Record<string, unknown> => Boolean(i) && typeof i === 'object' && typeof (i as { id?: unknown }).id === 'string')
    .map((i) => ({
      ...i,
      id: i.id as string,
      name: typeof i.name === 'string' ? i.name : undefined,
      type: typeof i.type === 'string' ? i.type : 'text',
      required: i.required === true,
    }));
  const id = typeof r.id === 'number' ? r.id : (askedId ?? r.id);
  return { ...r, id, name: typeof r.name === 'string' ? r.name : `definition ${String(id ?? '')}`.trim(), inputs_definition } as DefinitionRecord;
}

export async function listDefinitions(client: HttpClient): Promise<{ items: DefinitionRecord[]; raw: unknown }> {
  const res = await client.get<unknown>(BASE);
  return { items: readList(res.data, `GET ${BASE}`).map((d) => toDefinition(d, `GET ${BASE}`)), raw: res.data };
}

/** One definition; `serverDate` is the service's Date header (used to anchor a batch journal to its clock). */
export async function getDefinition(
  client: HttpClient,
  id: number,
): Promise<{ definition: DefinitionRecord; raw: unknown; serverDate?: string }> {
  const res = await client.get<unknown>(`${BASE}/${id}`);
  const date = res.headers.date;
  return { definition: toDefinition(readOne(res.data, `GET ${BASE}/${id}`), `GET ${BASE}/${id}`, id), raw: res.data, serverDate: Array.isArray(date) ? date[0] : date };
}

export async function updateDefinition(client: HttpClient, id: number, body: SequenceDefinitionUpdate | Record<string, unknown>): Promise<{ definition: DefinitionRecord; raw: unknown }> {
  const res = await client.put<unknown>(`${BASE}/${id}`, body);
  return { definition: toDefinition(readOne(res.data, `PUT ${BASE}/${id}`), `PUT ${BASE}/${id}`, id), raw: res.data };
}
