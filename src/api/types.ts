// Wire types of the service (API.md), shared by the client and the sandbox.
// Fields API.md marks as present are required here; fields it leaves open, or that only the sandbox
// adds, are optional so the client stays tolerant of the real service.

export type IsoDateTime = string;
/** YYYY-MM-DD */
export type IsoDate = string;

// Error bodies differ per endpoint; src/api/errors.ts reads them all tolerantly (no wire type here).

// ---------- eligibility ----------
export const ELIGIBILITY_STATUSES = ['in-progress', 'completed', 'queued'] as const;
export type EligibilityStatus = (typeof ELIGIBILITY_STATUSES)[number];
/** Known values: success, not-supported. */
export type EligibilityOutcome = 'success' | 'not-supported' | (string & {});

export interface EligibilityRequest {
  patient: {
    first_name: string;
    last_name: string;
    date_of_birth: IsoDate;
    member_id: string;
    customer_patient_id?: string;
  };
  insurance: { payer_id: string };
  provider: { organization_name: string; npi: string };
  webhook_url?: string;
  /** Sent back as `Authorization: Bearer <secret>`; supplied without the Bearer prefix. */
  webhook_secret?: string;
}

export interface EligibilitySubmitted {
  id: number;
  status: EligibilityStatus;
  created_at: IsoDateTime;
  customer_patient_id?: string;
}

export interface PatientCost {
  /** e.g. deductible, out_of_pocket_max, copay, coinsurance */
  type: string;
  /** e.g. in_network, out_of_network */
  network: string;
  description: string;
  /** a number as a string, e.g. "1500.00" */
  amount: string;
  /** e.g. individual, family */
  coverage_level: string;
  /** e.g. plan_year, visit */
  time_period: string;
}

export interface Coverage {
  is_active_today: boolean;
  checked_date: IsoDate;
  plan_name: string;
  payer_name: string;
  patient_costs: PatientCost[];
  group_number: string;
  member_id: string;
}

export interface EligibilityCheck {
  id: number;
  status: EligibilityStatus;
  outcome?: EligibilityOutcome;
  coverage?: Coverage;
  created_at: IsoDateTime;
  customer_patient_id?: string;
  /** Sandbox extra: when processing finished. */
  completed_at?: IsoDateTime;
}

export interface SupportedPayer {
  payer_id: string;
  name: string;
  subsidiaries: { payer_id: string; name: string }[];
}

// ---------- sequences ----------
export const SEQUENCE_STATUSES = ['in-progress', 'completed', 'failed', 'cancelled', 'queued', 'paused'] as const;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];
export const SEQUENCE_TYPES = ['appointment_reminder', 'follow_up', 'other'] as const;
export type SequenceType = (typeof SEQUENCE_TYPES)[number];
export const STEP_TYPES = ['voice', 'email', 'sms', 'task'] as const;
export type StepType = (typeof STEP_TYPES)[number];
export type StepStatus = 'pending' | 'in-progress' | 'completed' | 'failed' | 'skipped';
export type InputType = 'text' | 'number' | 'date' | 'boolean';

export interface SequenceStep {
  id: string;
  type: StepType;
  inputs: Record<string, unknown>[];
  status: StepStatus;
  scheduled_at: IsoDateTime | null;
  voicemail_message: string | null;
  source_number: string | null;
  destination_number: string | null;
  voice_assistant_id: number | null;
  post_actions: Record<string, unknown>[];
  /** Sandbox extra: position of the step. */
  order?: number;
}

export interface SequenceInput {
  id: string;
  value: string;
  name: string;
  type: InputType;
}

export interface OutreachItem {
  type: string;
  step: number;
  call_record_id?: number | null;
  messaging_encounter_id?: number | null;
  analysis?: Record<string, unknown>;
}

export interface Sequence {
  id: number;
  status: SequenceStatus;
  ended_reason: string | null;
  ended_reason_v2: string | null;
  current_step: number;
  next_activity: IsoDateTime | null;
  organization_id: number;
  patient_id: number;
  type: SequenceType;
  steps: SequenceStep[];
  sequence_definition_id: number;
  inputs: SequenceInput[];
  outcome: string | null;
  was_contact_reached: boolean;
  claimed_at: IsoDateTime | null;
  is_test_mode: boolean;
  last_updated: IsoDateTime;
  /** Only with includeMetrics=true. */
  outreach?: OutreachItem[];
  /** Sandbox extras (not in API.md): */
  created_at?: IsoDateTime;
  phone_number?: string;
  name?: string | null;
  description?: string | null;
}

export interface SequenceMetricsEntry {
  id: number;
  status: SequenceStatus;
  created_at: IsoDateTime;
  last_updated: IsoDateTime;
  outreach: OutreachItem[];
}

export interface StepUpdate {
  order: number;
  type: StepType;
  config?: Record<string, unknown>;
}

export interface SequenceUpdate {
  name?: string;
  description?: string;
  steps?: StepUpdate[];
}

/** One patient row of a batch: camelCase keys; phoneNumber, firstName, lastName required. */
export type BatchRow = Record<string, string | number | boolean | null>;

export interface BatchRequest {
  sequence_definition_id: number;
  rows: BatchRow[];
  next_activity_date?: IsoDateTime;
  validate_only?: boolean;
}

/** Shape of batch errors and warnings in the sandbox; the real service's shape is not published. */
export interface BatchIssue {
  rowIndex: number;
  field: string;
  code: string;
  message: string;
}

export interface BatchResponse {
  valid: boolean;
  total_attempted: number;
  valid_count: number;
  created_count: number;
  created?: { rowIndex: number; sequence_id: number }[];
  errors: unknown[];
  warnings: unknown[];
}

// ---------- sequence definitions ----------
export interface InputDefinition {
  id: string;
  name?: string;
  type: InputType | (string & {});
  required?: boolean;
}

export interface StepDefinition {
  id: string;
  type: StepType;
  order: number;
  delay_hours: number;
  voice_assistant_id: number | null;
  messaging_assistant_id: number | null;
  inputs: InputDefinition[];
}

export interface OutreachSchedule {
  timezone: string;
  business_hours: { start: string; end: string };
  days_of_week: string[];
}

/** What the read endpoints are documented to return. */
export interface SequenceDefinitionSummary {
  id: number;
  name: string;
  inputs_definition: InputDefinition[];
}

export interface SequenceDefinition extends SequenceDefinitionSummary {
  status: 'active' | 'inactive' | 'archived';
  steps_definition: StepDefinition[];
  outreach_schedule: OutreachSchedule;
  voice_assistant_id: number | null;
  organization_id: number;
  ehr_action: 'has-ehr-file' | 'no-ehr-file' | 'any';
  created_at: IsoDateTime;
  is_archived: boolean;
  allow_repeat_contact: boolean;
  /** Sandbox extras: */
  description?: string | null;
  type?: SequenceType;
}

export interface SequenceDefinitionUpdate {
  name?: string;
  description?: string;
  steps?: StepUpdate[];
}

// ---------- assistants ----------
export interface Assistant {
  id: number;
  name: string;
  organization_id: number;
  created_at: IsoDateTime;
  updated_at: IsoDateTime;
  model: Record<string, unknown> | null;
  voice: Record<string, unknown> | null;
  first_message: string | null;
  max_duration_seconds: number | null;
  voicemail_message: string | null;
  webhook_url: string | null;
  is_webhook_secret_set: boolean;
  analysis_plan: Record<string, unknown> | null;
}

export interface AssistantInput {
  name?: string;
  model?: Record<string, unknown>;
  voice?: Record<string, unknown>;
  first_message?: string;
  max_duration_seconds?: number;
  voicemail_message?: string;
  webhook_url?: string;
  analysis_plan?: Record<string, unknown>;
  /** Write-only; null clears it. */
  webhook_secret?: string | null;
}

// ---------- calls ----------
export type CallStatus = 'queued' | 'ringing' | 'in-progress' | 'forwarding' | 'ended';
export const FAILURE_REASONS = [
  'declined',
  'escalated',
  'requested-callback',
  'customer-dropped',
  'assistant-ended',
  'opt-out',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export interface CallAnalysis {
  repetition_count: number;
  interruption_count: number;
  custom: Record<string, unknown>;
}

export interface Call {
  id: number;
  assistant_id: number;
  started_at: IsoDateTime;
  ended_at: IsoDateTime;
  call_status: CallStatus;
  ended_reason: string;
  transcript: string;
  source_number: string;
  destination_number: string;
  call_type: string;
  duration_ms: number;
  analysis: CallAnalysis;
  summary: string;
  outcome: string;
  failure_reason?: FailureReason | null;
  /** Sandbox extra: what createdAtGe/createdAtLe filter on. */
  created_at?: IsoDateTime;
}

export interface CallListQuery {
  limit?: number;
  createdAtGe?: IsoDateTime;
  createdAtLe?: IsoDateTime;
}

// ---------- phone numbers ----------
export interface PhoneNumber {
  id: number;
  number: string;
  organization_id: number;
  name: string;
  assistant_id: number | null;
}

// ---------- tools ----------
export interface ToolFunctionParameters {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
}

export interface ToolFunction {
  name: string;
  strict?: boolean;
  description?: string;
  parameters?: ToolFunctionParameters;
}

export interface Tool {
  type: 'function';
  id: string;
  orgId: string;
  createdAt: IsoDateTime;
  updatedAt: IsoDateTime;
  async: boolean;
  function: ToolFunction;
}

export interface ToolUpdate {
  async?: boolean;
  function?: Partial<ToolFunction>;
}
