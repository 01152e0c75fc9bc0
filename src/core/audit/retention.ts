import { configSection, resolveWholeSettings } from '../../shared/config-section.js';
import { homeConfigPath, readHomeConfig } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';
import type { Store } from '../../store/store-contract.js';
import { recordAudit, type AuditEntry } from './record.js';

/** The audit settings (docs/supervision.md#retention). */
export interface AuditSettings {
  /** Records older than this many days may be pruned, once a backup holds them; 0 keeps them forever (the default). */
  retentionDays: number;
}

/** config.json key (in the `audit` object), environment variable, field, and allowed range. */
export const AUDIT_NUMBER_SETTINGS = [['retention_days', 'SDS_AUDIT_RETENTION_DAYS', 'retentionDays', 0, 36_500]] as const;

/**
 * Resolves the audit settings: the environment (SDS_AUDIT_*) over the `audit` object of
 * config.json over the defaults. An unknown key or a bad value is CONFIG_INVALID.
 */
function auditSettingsFrom(file: Record<string, unknown>, env: NodeJS.ProcessEnv, fileName = 'config.json'): AuditSettings {
  const values = configSection(file, 'audit', fileName, ['retention_days']);
  const out: AuditSettings = { retentionDays: 0 };
  resolveWholeSettings(out, AUDIT_NUMBER_SETTINGS, values, env, 'audit', fileName);
  return out;
}

/** The audit settings of a home: its config.json and the environment. */
export function auditSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env): AuditSettings {
  return auditSettingsFrom(readHomeConfig(home), env, homeConfigPath(home));
}

/** What a prune did. */
export interface AuditPruneReport {
  /** Records removed. */
  pruned: number;
  /** The new anchor: the last record removed (0: none ever) and its hash. */
  anchor_seq: number;
  anchor_hash: string;
  /** Why nothing (more) was removed: `forever` (retention 0), `not-backed-up` (older records wait for a backup), or none. */
  held_by?: 'forever' | 'not-backed-up';
}

/**
 * Removes the records older than the retention that a backup already holds: up to the last seq
 * before which every record is older than `retentionDays` AND at most the head row's
 * backed_up_seq, never past it. The last record removed becomes the anchor (its seq and hash in
 * the head row), so the kept chain still verifies, and the prune itself is recorded
 * (`audit.prune`), in the same transaction (docs/supervision.md#retention).
 */
export async function pruneAudit(
  store: Store,
  opts: { now: Date; settings: AuditSettings; source: Omit<AuditEntry, 'action' | 'outcome' | 'target' | 'details'> },
): Promise<AuditPruneReport> {
  return store.transaction(async (tx) => {
    const head = await tx.audit.lockHead();
    const done = (held_by?: AuditPruneReport['held_by']): AuditPruneReport => ({
      pruned: 0,
      anchor_seq: head.anchorSeq,
      anchor_hash: head.anchorHash,
      ...(held_by ? { held_by } : {}),
    });
    if (opts.settings.retentionDays === 0) return done('forever');
    const cutoff = new Date(opts.now.getTime() - opts.settings.retentionDays * 86_400_000).toISOString();
    const old = await tx.audit.lastSeqBefore(cutoff);
    const through = Math.min(old, head.backedUpSeq, head.headSeq);
    if (through <= head.anchorSeq) return done(old > head.backedUpSeq ? 'not-backed-up' : undefined);
    const last = (await tx.audit.get(through))!;
    const pruned = await tx.audit.prune(through, last.hash);
    await recordAudit(
      tx,
      {
        ...opts.source,
        action: 'audit.prune',
        target: '',
        outcome: 'success',
        details: { through_seq: through, pruned, retention_days: opts.settings.retentionDays },
      },
      opts.now,
    );
    return {
      pruned,
      anchor_seq: through,
      anchor_hash: last.hash,
      ...(old > head.backedUpSeq ? { held_by: 'not-backed-up' as const } : {}),
    };
  });
}

/**
 * Notes that a backup holds the audit records up to `throughSeq` (retention may then prune
 * them) and records it (`backup.create` by sds backup, `audit.backed-up` for a backup the office
 * took itself, of a PostgreSQL store), in one transaction.
 */
export async function markAuditBackedUp(store: Store, throughSeq: number, entry: Omit<AuditEntry, 'outcome'>): Promise<void> {
  await store.transaction(async (tx) => {
    const head = await tx.audit.lockHead();
    const seq = Math.min(throughSeq, head.headSeq);
    await tx.audit.markBackedUp(seq);
    await recordAudit(tx, { ...entry, outcome: 'success', details: { ...entry.details, through_seq: seq } });
  });
}
