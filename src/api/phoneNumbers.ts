// Phone numbers of the organisation, optionally those of one assistant.
import type { HttpClient } from './http.js';
import type { PhoneNumber } from './types.js';
import { listFrom, type Listed } from './calls.js';

export async function listPhoneNumbers(client: HttpClient, q: { assistantId?: number } = {}): Promise<Listed<PhoneNumber>> {
  const res = await client.get('/phone-number', { query: { assistantId: q.assistantId } });
  return { items: listFrom<PhoneNumber>(res.data), raw: res.data };
}
