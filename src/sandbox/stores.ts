// All prepared-statement stores of one database.
import type { Db } from './db.js';
import { assistantStore } from './store/assistants.js';
import { callStore } from './store/calls.js';
import { definitionStore } from './store/definitions.js';
import { eligibilityStore } from './store/eligibility.js';
import { orgStore } from './store/orgs.js';
import { phoneNumberStore } from './store/phoneNumbers.js';
import { sequenceStore } from './store/sequences.js';
import { toolStore } from './store/tools.js';

export function createStores(db: Db) {
  const assistants = assistantStore(db);
  const phoneNumbers = phoneNumberStore(db);
  return {
    orgs: orgStore(db),
    assistants,
    phoneNumbers,
    tools: toolStore(db),
    calls: callStore(db),
    definitions: definitionStore(db),
    sequences: sequenceStore(db, (orgId) => ({
      sourceFor: (assistantId) => phoneNumbers.sourceFor(orgId, assistantId),
      voicemailFor: (assistantId) => (assistantId == null ? null : (assistants.get(orgId, assistantId)?.voicemail_message ?? null)),
    })),
    eligibility: eligibilityStore(db),
  };
}

export type Stores = ReturnType<typeof createStores>;
