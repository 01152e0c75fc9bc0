/**
 * The audit trail on the PostgreSQL store: the same answers as the SQLite AuditRepo, with the
 * chain's head row locked FOR UPDATE by `lockHead`, so that two transactions appending at once
 * extend the chain one after the other (docs/decisions.md, "Concurrent writers on the PostgreSQL
 * store"; docs/supervision.md#audit-trail).
 */
import {
  AUDIT_COLUMNS,
  AUDIT_HEAD_SQL,
  auditInsertSql,
  auditListQuery,
  auditRowParams,
  toAuditRow,
  type AuditChainHead,
  type AuditFilter,
  type AuditRepo,
  type AuditRow,
} from '../audit-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

const INSERT_SQL = auditInsertSql((n) => `$${n}`);

/** The audit trail's rows, in PostgreSQL. */
export class PgAuditRepo implements RepoContract<AuditRepo> {
  constructor(private readonly db: PgRunner) {}

  async head(): Promise<AuditChainHead> {
    return (await this.db.row<AuditChainHead & Record<string, unknown>>(AUDIT_HEAD_SQL))!;
  }

  /**
   * The head row, locked until the commit: a second writer waits here and then reads the head
   * the first one left (READ COMMITTED re-reads a row it waited for), so no two records get the
   * same seq or the same prev_hash.
   */
  async lockHead(): Promise<AuditChainHead> {
    return (await this.db.row<AuditChainHead & Record<string, unknown>>(`${AUDIT_HEAD_SQL} FOR UPDATE`))!;
  }

  async append(r: AuditRow): Promise<void> {
    await this.db.run(INSERT_SQL, auditRowParams(r));
    await this.db.run('UPDATE audit_chain SET head_seq = $1, head_hash = $2 WHERE id = 1', [r.seq, r.hash]);
  }

  async page(afterSeq: number, limit: number): Promise<AuditRow[]> {
    return (
      await this.db.rows<AuditRow & Record<string, unknown>>(
        `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [afterSeq, limit],
      )
    ).map(toAuditRow);
  }

  async get(seq: number): Promise<AuditRow | undefined> {
    const r = await this.db.row<AuditRow & Record<string, unknown>>(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE seq = $1`, [seq]);
    return r && toAuditRow(r);
  }

  async list(f: AuditFilter): Promise<AuditRow[]> {
    const q = auditListQuery(f, (n) => `$${n}`);
    return (await this.db.rows<AuditRow & Record<string, unknown>>(q.sql, q.params)).map(toAuditRow);
  }

  async lastSeqBefore(at: string): Promise<number> {
    const r = await this.db.row<{ seq: number | null }>('SELECT max(seq) AS seq FROM audit_log WHERE at < $1', [at]);
    return r?.seq ?? 0;
  }

  async prune(seq: number, anchorHash: string): Promise<number> {
    const n = await this.db.run('DELETE FROM audit_log WHERE seq <= $1', [seq]);
    await this.db.run('UPDATE audit_chain SET anchor_seq = $1, anchor_hash = $2 WHERE id = 1', [seq, anchorHash]);
    return n;
  }

  async markBackedUp(seq: number): Promise<void> {
    await this.db.run('UPDATE audit_chain SET backed_up_seq = greatest(backed_up_seq, $1) WHERE id = 1', [seq]);
  }
}
