import type { AuditChainHead, AuditRow } from '../../store/audit-repo.js';
import type { StoreScope } from '../../store/store-contract.js';
import { canonicalDetails, hashOf, storableText } from './canonical.js';

/** What happened, as a caller of recordAudit says it (docs/supervision.md#audit-trail). */
export interface AuditEntry {
  /** The account, or `os:<user>` for the CLI (cliAuditSource). */
  actor: string;
  /** The client address for HTTP, the host name for the CLI. */
  origin: string;
  channel: 'http' | 'cli';
  /** `group.verb`: `users.add`, `dictionaries.delete`, `login`. */
  action: string;
  /** `kind:name` (`user:alice`); '' when the action has no one target. */
  target?: string;
  outcome: 'success' | 'failure';
  /** Anything more, as a JSON object (an error's code, a role before and after); never a secret. */
  details?: Record<string, unknown>;
}

/** The record that follows `head`: the next seq, chained to the head's hash. Pure. */
function nextRecord(head: AuditChainHead, e: AuditEntry, at: Date): AuditRow {
  const row: Omit<AuditRow, 'hash'> = {
    seq: head.headSeq + 1,
    at: at.toISOString(),
    actor: storableText(e.actor),
    origin: storableText(e.origin),
    channel: e.channel,
    action: storableText(e.action),
    target: storableText(e.target ?? ''),
    outcome: e.outcome,
    details: canonicalDetails(e.details ?? {}),
    prev_hash: head.headHash,
  };
  return { ...row, hash: hashOf(row) };
}

/**
 * Appends one record to the audit trail: in `scope`'s transaction when it is one (`tx`, so the
 * change and its record commit together), else in a transaction of its own. The chain's head row
 * is locked first (PostgreSQL: FOR UPDATE; SQLite: its one writer), so records appended at once
 * by several processes get consecutive seqs, each chained to the one before.
 */
export async function recordAudit(scope: StoreScope, entry: AuditEntry, now: Date = new Date()): Promise<AuditRow> {
  return scope.transaction(async (tx) => {
    const head = await tx.audit.lockHead();
    const row = nextRecord(head, entry, now);
    await tx.audit.append(row);
    return row;
  });
}
