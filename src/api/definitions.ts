// Sequence definitions: GET list, GET one, PUT. Tolerant reading: the list may be an array or an
// envelope ({data}), a single read an object or an array holding it; extra fields are kept.
import type { InputDefinition, SequenceDefinition, SequenceDefinitionSummary, SequenceDefinitionUpdate } from './types.js';
import type { HttpClient } from './http.js';
import { MalformedResponseError } from '../errors.js';

/** A definition as read: the documented summary fields, plus whatever else the service sent. */
export type DefinitionRecord = SequenceDefinitionSummary & Partial<SequenceDefinition> & Record<string, unknown>;

const BASE = '/sequence-manager/sequence-definitions';

function unwrapList(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    if (Array.isArray(d.data)) return d.data;
    if (Array.isArray(d.items)) return d.items;
  }
  return [];
}

function unwrapOne(data: unknown): unknown {
  if (Array.isArray(data)) return data[0];
  if (data && typeof data === 'object' && 'data' in data && !('id' in data)) return (data as { data: unknown }).data;
  return data;
}

/** Reads a definition tolerantly: inputs_definition may be missing (no inputs) or hold partial items. */
export function toDefinition(raw: unknown, where: string): DefinitionRecord {
  if (!raw || typeof raw !== 'object') throw new MalformedResponseError(`${where}: the service answered without a sequence definition.`);
  const r = raw as Record<string, unknown>;
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
  return { ...r, id: Number(r.id), name: typeof r.name === 'string' ? r.name : `definition ${String(r.id)}`, inputs_definition } as DefinitionRecord;
}

export async function listDefinitions(client: HttpClient): Promise<{ items: DefinitionRecord[]; raw: unknown }> {
  const res = await client.get<unknown>(BASE);
  return { items: unwrapList(res.data).map((d) => toDefinition(d, `GET ${BASE}`)), raw: res.data };
}

/** One definition; `serverDate` is the service's Date header (used to anchor a batch journal to its clock). */
export async function getDefinition(
  client: HttpClient,
  id: number,
): Promise<{ definition: DefinitionRecord; raw: unknown; serverDate?: string }> {
  const res = await client.get<unknown>(`${BASE}/${id}`);
  const date = res.headers.date;
  return { definition: toDefinition(unwrapOne(res.data), `GET ${BASE}/${id}`), raw: res.data, serverDate: Array.isArray(date) ? date[0] : date };
}

export async function updateDefinition(client: HttpClient, id: number, body: SequenceDefinitionUpdate | Record<string, unknown>): Promise<{ definition: DefinitionRecord; raw: unknown }> {
  const res = await client.put<unknown>(`${BASE}/${id}`, body);
  return { definition: toDefinition(unwrapOne(res.data), `PUT ${BASE}/${id}`), raw: res.data };
}
