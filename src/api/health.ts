import type { HttpClient } from './http.js';

export interface Health {
  status?: string;
  [key: string]: unknown;
}

/** GET /health (no auth). */
export async function getHealth(client: HttpClient): Promise<Health> {
  const res = await client.get<Health>('/health', { anonymous: true });
  return res.data && typeof res.data === 'object' ? res.data : { status: String(res.data ?? '') };
}
