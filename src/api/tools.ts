// Tools: PATCH /tool/{id} (the only tool endpoint API.md has).
import type { HttpClient } from './http.js';
import type { Tool, ToolUpdate } from './types.js';
import { recordFrom } from './calls.js';

export async function patchTool(client: HttpClient, id: string, body: ToolUpdate): Promise<{ tool: Tool; raw: unknown }> {
  const res = await client.patch(`/tool/${encodeURIComponent(id)}`, body);
  return { tool: (recordFrom<Tool>(res.data) ?? ({} as Tool)), raw: res.data };
}
