// Schema migrations, applied in order on open. Never edit a released migration: add a new one.
// JSON columns hold arrays/objects exactly as the API returns them, so reads need no joins.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE TABLE organizations (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);
-- API keys are stored as sha256 hex digests, never in clear.
CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  created_at TEXT NOT NULL
);
CREATE TABLE assistants (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  model TEXT,
  voice TEXT,
  first_message TEXT,
  max_duration_seconds INTEGER,
  voicemail_message TEXT,
  webhook_url TEXT,
  webhook_secret TEXT, -- write-only through the API
  analysis_plan TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE phone_numbers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  number TEXT NOT NULL,
  name TEXT NOT NULL,
  assistant_id INTEGER REFERENCES assistants(id)
);
CREATE TABLE tools (
  id TEXT PRIMARY KEY,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  async INTEGER NOT NULL DEFAULT 0,
  function TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  created_at TEXT NOT NULL,
  doc TEXT NOT NULL -- the whole Call as JSON, served as is
);
CREATE INDEX calls_org_created ON calls(organization_id, created_at DESC, id DESC);
CREATE TABLE sequence_definitions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  description TEXT,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  steps_definition TEXT NOT NULL,
  inputs_definition TEXT NOT NULL,
  outreach_schedule TEXT NOT NULL,
  voice_assistant_id INTEGER,
  ehr_action TEXT NOT NULL,
  is_archived INTEGER NOT NULL DEFAULT 0,
  allow_repeat_contact INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE TABLE patients (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  phone_number TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE sequences (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  sequence_definition_id INTEGER NOT NULL REFERENCES sequence_definitions(id),
  patient_id INTEGER NOT NULL REFERENCES patients(id),
  status TEXT NOT NULL,
  type TEXT NOT NULL,
  name TEXT,
  description TEXT,
  phone_number TEXT NOT NULL,
  current_step INTEGER NOT NULL DEFAULT 0,
  next_activity TEXT,
  ended_reason TEXT,
  ended_reason_v2 TEXT,
  outcome TEXT,
  was_contact_reached INTEGER NOT NULL DEFAULT 0,
  claimed_at TEXT,
  is_test_mode INTEGER NOT NULL DEFAULT 1,
  steps TEXT NOT NULL,
  inputs TEXT NOT NULL,
  outreach TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  last_updated TEXT NOT NULL
);
CREATE INDEX sequences_org ON sequences(organization_id, id DESC);
CREATE TABLE eligibility_checks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  status TEXT NOT NULL,
  customer_patient_id TEXT,
  payer_id TEXT NOT NULL,
  member_id TEXT NOT NULL,
  request TEXT NOT NULL,
  outcome TEXT,
  coverage TEXT,
  webhook_url TEXT,
  webhook_secret TEXT, -- moved to the outbox row on completion, then cleared here
  created_at TEXT NOT NULL,
  due_at INTEGER, -- epoch ms when an in-progress check completes
  completed_at TEXT
);
CREATE INDEX eligibility_org ON eligibility_checks(organization_id, id DESC);
CREATE INDEX eligibility_pending ON eligibility_checks(status, due_at);
-- Durable webhook outbox: a row is written in the same transaction that completes a check,
-- and deleted from the pending set only after the receiver answered 2xx.
CREATE TABLE webhook_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  resource_id INTEGER NOT NULL,
  url TEXT NOT NULL,
  secret TEXT,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending', -- pending | delivered | failed
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL, -- epoch ms
  last_error TEXT,
  created_at TEXT NOT NULL,
  delivered_at TEXT
);
CREATE INDEX outbox_due ON webhook_outbox(status, next_attempt_at);
`,
  },
  {
    version: 2,
    name: 'outreach scheduler',
    sql: `
-- Run by the outreach scheduler (src/sandbox/scheduler.ts). due_at: real epoch ms of its next action,
-- NULL = not run by the scheduler (seeded history, finished sequences). due_sim: outreach time (epoch ms)
-- of that action, NULL = not claimed yet. active_call_id/call_phase: the call in flight, if any.
ALTER TABLE sequences ADD COLUMN due_at INTEGER;
ALTER TABLE sequences ADD COLUMN due_sim INTEGER;
ALTER TABLE sequences ADD COLUMN active_call_id INTEGER;
ALTER TABLE sequences ADD COLUMN call_phase TEXT;
CREATE INDEX sequences_due ON sequences(due_at) WHERE due_at IS NOT NULL;
-- SMS and email messages sent by sequence steps (messaging_encounter_id in outreach items).
CREATE TABLE messaging_encounters (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations(id),
  sequence_id INTEGER NOT NULL,
  step INTEGER NOT NULL,
  channel TEXT NOT NULL,
  destination TEXT,
  body TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`,
  },
];
