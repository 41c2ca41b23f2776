// Assistants: create and update. Their error bodies are {error: <integer status>, message}; the
// http core already reads `message` from them. Answers are read by read.ts.
import { MalformedResponseError } from '../errors.js';
import type { Assistant, AssistantInput } from './types.js';
import type { HttpClient } from './http.js';
import { API_FIELDS, normalise, readInt, readOne, withId } from './read.js';

/**
 * POST /assistant. An answer without an id is an error (exit 1): the assistant was most likely
 * created, but nothing could refer to it, and printing it without an id would hide that.
 */
export async function createAssistant(client: HttpClient, body: AssistantInput): Promise<{ assistant: Assistant; raw: unknown }> {
  const res = await client.post('/assistant', body);
  const assistant = normalise<Assistant>(readOne(res.data, 'POST /assistant'), API_FIELDS.assistant);
  if (readInt(assistant.id) === undefined) {
    throw new MalformedResponseError(
      'The service created the assistant but its answer holds no id (POST /assistant); sending it again may create a second one.',
      { code: 'created_without_id' },
    );
  }
  return { assistant, raw: res.data };
}

/** PATCH /assistant/{id}. An answer without an id is still that assistant: it gets the id asked for. */
export async function patchAssistant(
  client: HttpClient,
  id: number | string,
  body: AssistantInput,
): Promise<{ assistant: Assistant; raw: unknown }> {
  const path = `/assistant/${encodeURIComponent(String(id))}`;
  const res = await client.patch(path, body);
  const assistant = withId(normalise(readOne(res.data, `PATCH ${path}`), API_FIELDS.assistant), readInt(id) ?? id);
  return { assistant: assistant as unknown as Assistant, raw: res.data };
}
