// Phone numbers of the organisation, optionally those of one assistant.
import type { HttpClient } from './http.js';
import type { PhoneNumber } from './types.js';
import { API_FIELDS, normalise, readList, type Listed } from './read.js';

export async function listPhoneNumbers(client: HttpClient, q: { assistantId?: number } = {}): Promise<Listed<PhoneNumber>> {
  const res = await client.get('/phone-number', { query: { assistantId: q.assistantId } });
  return { items: readList(res.data, 'GET /phone-number').map((p) => normalise<PhoneNumber>(p, API_FIELDS.phoneNumber)), raw: res.data };
}
