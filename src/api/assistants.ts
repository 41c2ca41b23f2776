// Assistants: create and update. Their error bodies are {error: <integer status>, message}; the
// http core already reads `message` from them.
import type { Assistant, AssistantInput } from './types.js';
import type { HttpClient } from './http.js';
import { recordFrom } from './calls.js';

export async function createAssistant(client: HttpClient, body: AssistantInput): Promise<{ assistant: Assistant; raw: unknown }> {
  const res = await client.post('/assistant', body);
  return { assistant: (recordFrom<Assistant>(res.data) ?? ({} as Assistant)), raw: res.data };
}

export async function patchAssistant(
  client: HttpClient,
  id: number | string,
  body: AssistantInput,
): Promise<{ assistant: Assistant; raw: unknown }> {
  const res = await client.patch(`/assistant/${encodeURIComponent(String(id))}`, body);
  return { assistant: (recordFrom<Assistant>(res.data) ?? ({} as Assistant)), raw: res.data };
}
