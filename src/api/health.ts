import type { HttpClient } from './http.js';
import { readOne } from './read.js';

export interface Health {
  status?: string;
  [key: string]: unknown;
}

/** GET /health (no auth): an object holding status; a bare JSON string is taken as the status. */
export async function getHealth(client: HttpClient): Promise<Health> {
  const res = await client.get<unknown>('/health', { anonymous: true });
  if (typeof res.data === 'string' && res.data.trim()) return { status: res.data };
  return readOne(res.data, 'GET /health') as Health;
}
