import type { Coverage, EligibilityCheck, EligibilityRequest, EligibilityStatus } from '../../api/types.js';
import { type Db, prep } from '../db.js';

interface Row {
  id: number;
  organization_id: number;
  status: string;
  customer_patient_id: string | null;
  payer_id: string;
  member_id: string;
  outcome: string | null;
  coverage: string | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  created_at: string;
  completed_at: string | null;
}

export type PendingCheck = Pick<Row, 'id' | 'organization_id' | 'payer_id' | 'member_id' | 'webhook_url' | 'webhook_secret'>;

function toWire(r: Row): EligibilityCheck {
  const c: EligibilityCheck = { id: r.id, status: r.status as EligibilityStatus, created_at: r.created_at };
  if (r.customer_patient_id != null) c.customer_patient_id = r.customer_patient_id;
  if (r.outcome != null) c.outcome = r.outcome;
  if (r.coverage != null) c.coverage = JSON.parse(r.coverage) as Coverage;
  if (r.completed_at != null) c.completed_at = r.completed_at;
  return c;
}

const COLS = 'id, organization_id, status, customer_patient_id, payer_id, member_id, outcome, coverage, webhook_url, webhook_secret, created_at, completed_at';

export function eligibilityStore(db: Db) {
  const insert = prep(db, 
    `INSERT INTO eligibility_checks (organization_id, status, customer_patient_id, payer_id, member_id, request, webhook_url, webhook_secret, created_at, due_at)
     VALUES (@org, @status, @cpid, @payer, @member, @request, @url, @secret, @now, @due)`,
  );
  const get = prep(db, `SELECT ${COLS} FROM eligibility_checks WHERE id = ? AND organization_id = ?`);
  const list = prep(db, 
    `SELECT ${COLS} FROM eligibility_checks WHERE organization_id = @org
       AND (@cpid IS NULL OR customer_patient_id = @cpid) AND (@status IS NULL OR status = @status)
     ORDER BY id DESC LIMIT @limit`,
  );
  const inProgress = prep(db, "SELECT COUNT(*) FROM eligibility_checks WHERE organization_id = ? AND status = 'in-progress'", true);
  const due = prep(db, 
    `SELECT id, organization_id, payer_id, member_id, webhook_url, webhook_secret FROM eligibility_checks
     WHERE status = 'in-progress' AND due_at <= ? ORDER BY due_at, id LIMIT 200`,
  );
  const nextDue = prep(db, "SELECT MIN(due_at) FROM eligibility_checks WHERE status = 'in-progress'", true);
  const queued = prep(db, "SELECT id, organization_id FROM eligibility_checks WHERE status = 'queued' ORDER BY id LIMIT 500");
  const promote = prep(db, "UPDATE eligibility_checks SET status = 'in-progress', due_at = ? WHERE id = ? AND status = 'queued'");
  const complete = prep(db, 
    `UPDATE eligibility_checks SET status = 'completed', outcome = ?, coverage = ?, completed_at = ?, webhook_secret = NULL, due_at = NULL
     WHERE id = ? AND status = 'in-progress'`,
  );
  const getAny = prep(db, `SELECT ${COLS} FROM eligibility_checks WHERE id = ?`);

  return {
    insert(orgId: number, req: EligibilityRequest, status: EligibilityStatus, now: string, dueAt: number | null): number {
      return Number(
        insert.run({
          org: orgId,
          status,
          cpid: req.patient.customer_patient_id ?? null,
          payer: req.insurance.payer_id.trim(),
          member: req.patient.member_id,
          // The request is kept with the check (a real service keeps it too); the secret is not part of it.
          request: JSON.stringify({ patient: req.patient, insurance: req.insurance, provider: req.provider }),
          url: req.webhook_url ?? null,
          secret: req.webhook_secret ?? null,
          now,
          due: dueAt,
        }).lastInsertRowid,
      );
    },
    get(orgId: number, id: number): EligibilityCheck | undefined {
      const r = get.get(id, orgId) as Row | undefined;
      return r && toWire(r);
    },
    getById(id: number): EligibilityCheck | undefined {
      const r = getAny.get(id) as Row | undefined;
      return r && toWire(r);
    },
    list(orgId: number, f: { limit: number; status?: string; customerPatientId?: string }): EligibilityCheck[] {
      const rows = list.all({ org: orgId, cpid: f.customerPatientId ?? null, status: f.status ?? null, limit: f.limit }) as Row[];
      return rows.map(toWire);
    },
    inProgressCount: (orgId: number) => inProgress.get(orgId) as number,
    due: (nowMs: number) => due.all(nowMs) as PendingCheck[],
    nextDueAt: () => nextDue.get() as number | null,
    queued: () => queued.all() as { id: number; organization_id: number }[],
    promote: (id: number, dueAt: number) => promote.run(dueAt, id).changes > 0,
    complete: (id: number, outcome: string, coverage: Coverage | null, at: string) =>
      complete.run(outcome, coverage ? JSON.stringify(coverage) : null, at, id).changes > 0,
  };
}
