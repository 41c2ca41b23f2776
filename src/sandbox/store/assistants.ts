import type { Assistant, AssistantInput } from '../../api/types.js';
import { json, type Db, prep } from '../db.js';

interface Row {
  id: number;
  organization_id: number;
  name: string;
  model: string | null;
  voice: string | null;
  first_message: string | null;
  max_duration_seconds: number | null;
  voicemail_message: string | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  analysis_plan: string | null;
  created_at: string;
  updated_at: string;
}

function toWire(r: Row): Assistant {
  return {
    id: r.id,
    name: r.name,
    organization_id: r.organization_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    model: json(r.model),
    voice: json(r.voice),
    first_message: r.first_message,
    max_duration_seconds: r.max_duration_seconds,
    voicemail_message: r.voicemail_message,
    webhook_url: r.webhook_url,
    is_webhook_secret_set: r.webhook_secret != null && r.webhook_secret !== '',
    analysis_plan: json(r.analysis_plan),
  };
}

const JSON_FIELDS = new Set(['model', 'voice', 'analysis_plan']);
const FIELDS = ['name', 'model', 'voice', 'first_message', 'max_duration_seconds', 'voicemail_message', 'webhook_url', 'webhook_secret', 'analysis_plan'] as const;

const column = (f: string, v: unknown) => (v == null ? null : JSON_FIELDS.has(f) ? JSON.stringify(v) : v);

export function assistantStore(db: Db) {
  const get = prep(db, 'SELECT * FROM assistants WHERE id = ? AND organization_id = ?');
  const insert = prep(db, 
    `INSERT INTO assistants (organization_id, name, model, voice, first_message, max_duration_seconds, voicemail_message,
       webhook_url, webhook_secret, analysis_plan, created_at, updated_at)
     VALUES (@organization_id, @name, @model, @voice, @first_message, @max_duration_seconds, @voicemail_message,
       @webhook_url, @webhook_secret, @analysis_plan, @now, @now)`,
  );
  const exists = prep(db, 'SELECT 1 FROM assistants WHERE id = ? AND organization_id = ?', true);
  return {
    /** Where the end-of-call report goes, with the write-only secret (never returned by the API). */
    webhookTarget(orgId: number, id: number): { url: string; secret: string | null } | undefined {
      const r = get.get(id, orgId) as Row | undefined;
      return r?.webhook_url ? { url: r.webhook_url, secret: r.webhook_secret || null } : undefined;
    },
    /** The stored row's messages, for the simulated call's transcript. */
    messages(orgId: number, id: number): { first_message: string | null; voicemail_message: string | null } | undefined {
      const r = get.get(id, orgId) as Row | undefined;
      return r && { first_message: r.first_message, voicemail_message: r.voicemail_message };
    },
    get(orgId: number, id: number): Assistant | undefined {
      const r = get.get(id, orgId) as Row | undefined;
      return r && toWire(r);
    },
    exists: (orgId: number, id: number) => exists.get(id, orgId) === 1,
    create(orgId: number, input: AssistantInput, now: string): Assistant {
      const params: Record<string, unknown> = { organization_id: orgId, now };
      for (const f of FIELDS) params[f] = column(f, input[f]);
      const id = Number(insert.run(params).lastInsertRowid);
      return this.get(orgId, id)!;
    },
    /** Updates the given fields only; undefined when the assistant is not the organisation's. */
    update(orgId: number, id: number, input: AssistantInput, now: string): Assistant | undefined {
      const sets: string[] = [];
      const params: Record<string, unknown> = { id, orgId, now };
      for (const f of FIELDS) {
        if (input[f] === undefined) continue;
        sets.push(`${f} = @${f}`);
        params[f] = column(f, input[f]);
      }
      sets.push('updated_at = @now');
      const res = prep(db, `UPDATE assistants SET ${sets.join(', ')} WHERE id = @id AND organization_id = @orgId`).run(params);
      return res.changes ? this.get(orgId, id) : undefined;
    },
  };
}
