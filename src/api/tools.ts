// Tools: PATCH /tool/{id} (the only tool endpoint API.md has). The answer is read by read.ts.
import type { HttpClient } from './http.js';
import type { Tool, ToolUpdate } from './types.js';
import { API_FIELDS, normalise, readOne, withId } from './read.js';

/** An answer without an id is still the tool asked for: it gets that id. */
export async function patchTool(client: HttpClient, id: string, body: ToolUpdate): Promise<{ tool: Tool; raw: unknown }> {
  const path = `/tool/${encodeURIComponent(id)}`;
  const res = await client.patch(path, body);
  const tool = withId(normalise(readOne(res.data, `PATCH ${path}`), API_FIELDS.tool), id);
  return { tool: tool as unknown as Tool, raw: res.data };
}
