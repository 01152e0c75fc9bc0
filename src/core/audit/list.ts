import { AppError } from '../../shared/errors.js';
import type { AuditFilter, AuditRow } from '../../store/audit-repo.js';
import type { Store } from '../../store/store-contract.js';

/** Records `sds audit list` and `GET /api/audit` return when no limit is given, and the most they return at once. */
const AUDIT_LIST_DEFAULT = 100;
export const AUDIT_LIST_MAX = 10_000;

/** A record as listed: its details parsed. */
export interface AuditRecord extends Omit<AuditRow, 'details'> {
  details: Record<string, unknown>;
}

/** The filters of a listing as a user gives them (text); every one optional. */
export interface AuditQuery {
  since?: string;
  until?: string;
  actor?: string;
  action?: string;
  outcome?: string;
  /** Only records below this seq: the next page of a newest-first listing. */
  before?: number | string;
  limit?: number | string;
}

const usage = (field: string, msg: string) => new AppError('USAGE', msg, { field });

/** An ISO 8601 date (midnight UTC) or date and time (UTC when it has no zone) as the UTC text records are compared with. */
function instant(v: string, field: string): string {
  const zoned = /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(v);
  const t = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:[zZ]|[+-]\d{2}:?\d{2})?)?$/.test(v)
    ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : zoned ? v : `${v}Z`)
    : NaN;
  if (Number.isNaN(t)) {
    throw usage(
      field,
      `${field} must be an ISO 8601 date or time (2026-11-28, 2026-11-28T09:00:00+02:00; UTC when no zone), not ${JSON.stringify(v)}`,
    );
  }
  return new Date(t).toISOString();
}

function whole(v: number | string, field: string, min: number, max: number): number {
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw usage(field, `${field} must be a whole number from ${min} to ${max}, not ${JSON.stringify(v)}`);
  return n;
}

/** Checks a listing's filters (USAGE naming the field) and makes them the repository's. Pure. */
export function auditFilterOf(q: AuditQuery): AuditFilter {
  const f: AuditFilter = { limit: q.limit === undefined ? AUDIT_LIST_DEFAULT : whole(q.limit, 'limit', 1, AUDIT_LIST_MAX) };
  if (q.since !== undefined) f.since = instant(q.since, 'since');
  if (q.until !== undefined) f.until = instant(q.until, 'until');
  if (q.actor !== undefined) f.actor = q.actor;
  if (q.action !== undefined) f.action = q.action;
  if (q.outcome !== undefined) {
    if (q.outcome !== 'success' && q.outcome !== 'failure')
      throw usage('outcome', `outcome must be success or failure, not ${JSON.stringify(q.outcome)}`);
    f.outcome = q.outcome;
  }
  if (q.before !== undefined) f.beforeSeq = whole(q.before, 'before', 1, Number.MAX_SAFE_INTEGER);
  return f;
}

/** The records of the audit trail that match `q`, newest first (docs/supervision.md#reading-the-trail). */
export async function listAudit(store: Store, q: AuditQuery): Promise<AuditRecord[]> {
  const rows = await store.audit.list(auditFilterOf(q));
  return rows.map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }));
}
