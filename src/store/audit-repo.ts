import type { Database } from 'better-sqlite3';

/** One record of the audit trail as stored (table `audit_log`, docs/supervision.md#audit-trail). */
export interface AuditRow {
  /** 1, 2, 3, … without gaps; the order of the chain. */
  seq: number;
  /** ISO 8601 UTC with milliseconds (`2026-11-28T19:20:00.000Z`): sorts as text. */
  at: string;
  /** The account (`alice`), or for the CLI the operating-system user (`os:root`); `-` when nobody is known. */
  actor: string;
  /** Where from: the client address for HTTP, the host name for the CLI. */
  origin: string;
  channel: 'http' | 'cli';
  /** What was done, `group.verb` (`users.add`, `dictionaries.delete`, `login`). */
  action: string;
  /** What it was done to (`user:alice`, `dictionary:CENSUS`); '' when nothing in particular. */
  target: string;
  outcome: 'success' | 'failure';
  /** A JSON object, in its canonical text (keys sorted), exactly as hashed. */
  details: string;
  /** The hash of the record before (the anchor's for the first one kept; 64 zeros for seq 1). */
  prev_hash: string;
  /** SHA-256 (lowercase hex) of the record's canonical form. */
  hash: string;
}

/** The one head row of the chain (table `audit_chain`). */
export interface AuditChainHead {
  /** The last record's seq (0: none yet) and hash. */
  headSeq: number;
  headHash: string;
  /** The last record a prune removed (0: none) and its hash: what the first kept record must follow. */
  anchorSeq: number;
  anchorHash: string;
  /** Records up to this seq are in a backup: retention prunes none above it. */
  backedUpSeq: number;
}

/** Which records `list` returns; every field narrows. */
export interface AuditFilter {
  /** `at` at or after (ISO 8601 UTC). */
  since?: string;
  /** `at` before (ISO 8601 UTC). */
  until?: string;
  actor?: string;
  /** An action, or a prefix ending in `*` (`users.*`). */
  action?: string;
  outcome?: 'success' | 'failure';
  /** Only records below this seq (the next page of a newest-first list). */
  beforeSeq?: number;
  limit: number;
}

/** The columns of a record, in table order. */
export const AUDIT_COLUMNS = 'seq, at, actor, origin, channel, action, target, outcome, details, prev_hash, hash';

/** The head row's columns as AuditChainHead (aliases quoted so both stores return camelCase). */
export const AUDIT_HEAD_SQL =
  'SELECT head_seq AS "headSeq", head_hash AS "headHash", anchor_seq AS "anchorSeq", anchor_hash AS "anchorHash", backed_up_seq AS "backedUpSeq" FROM audit_chain WHERE id = 1';

/** The insert of a record with `p(n)` as its n-th parameter (in the order of auditRowParams); shared by the PostgreSQL store. */
export const auditInsertSql = (p: (n: number) => string): string =>
  `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES (${Array.from({ length: 11 }, (_, i) => p(i + 1)).join(', ')})`;

/** The parameters of auditInsertSql. */
export const auditRowParams = (r: AuditRow): unknown[] => [
  r.seq,
  r.at,
  r.actor,
  r.origin,
  r.channel,
  r.action,
  r.target,
  r.outcome,
  r.details,
  r.prev_hash,
  r.hash,
];

/**
 * The query of `list` with `p(n)` as its n-th parameter: the WHERE clause built from the filter's
 * fields that are set, newest first. Shared by the PostgreSQL store.
 */
export function auditListQuery(f: AuditFilter, p: (n: number) => string): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (cond: (ph: string) => string, v: unknown) => {
    params.push(v);
    where.push(cond(p(params.length)));
  };
  if (f.since !== undefined) add((ph) => `at >= ${ph}`, f.since);
  if (f.until !== undefined) add((ph) => `at < ${ph}`, f.until);
  if (f.actor !== undefined) add((ph) => `actor = ${ph}`, f.actor);
  if (f.action !== undefined) {
    // A prefix is compared as a substring, not with LIKE, whose `_` and `%` an action may hold.
    if (f.action.endsWith('*')) {
      const prefix = f.action.slice(0, -1);
      add((ph) => `substr(action, 1, ${prefix.length}) = ${ph}`, prefix);
    } else add((ph) => `action = ${ph}`, f.action);
  }
  if (f.outcome !== undefined) add((ph) => `outcome = ${ph}`, f.outcome);
  if (f.beforeSeq !== undefined) add((ph) => `seq < ${ph}`, f.beforeSeq);
  params.push(f.limit);
  const sql = `SELECT ${AUDIT_COLUMNS} FROM audit_log${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ${p(params.length)}`;
  return { sql, params };
}

/** A stored row with its numbers as numbers (PostgreSQL's bigint already is one: pg-store.ts). */
export const toAuditRow = (r: AuditRow): AuditRow => ({ ...r, seq: Number(r.seq) });

/**
 * The audit trail's rows. Appending is the caller's read-then-write inside one store transaction
 * (core/audit/record.ts): `lockHead`, then `append` with the next seq and hash. SQLite's one
 * writer makes that safe; the PostgreSQL repository locks the head row.
 */
export class AuditRepo {
  constructor(private readonly db: Database) {}

  /** The head row, as committed. */
  async head(): Promise<AuditChainHead> {
    return this.db.prepare(AUDIT_HEAD_SQL).get() as AuditChainHead;
  }

  /** The head row, for an append or a prune in this write transaction (SQLite's write lock is already held). */
  async lockHead(): Promise<AuditChainHead> {
    return this.head();
  }

  /** Inserts a record and makes it the head: after lockHead, in the same transaction. */
  async append(r: AuditRow): Promise<void> {
    this.db.prepare(auditInsertSql(() => '?')).run(...auditRowParams(r));
    this.db.prepare('UPDATE audit_chain SET head_seq = ?, head_hash = ? WHERE id = 1').run(r.seq, r.hash);
  }

  /** Records in chain order, from seq `afterSeq + 1`, at most `limit`. */
  async page(afterSeq: number, limit: number): Promise<AuditRow[]> {
    return (
      this.db.prepare(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?`).all(afterSeq, limit) as AuditRow[]
    ).map(toAuditRow);
  }

  /** The record of one seq. */
  async get(seq: number): Promise<AuditRow | undefined> {
    const r = this.db.prepare(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE seq = ?`).get(seq) as AuditRow | undefined;
    return r && toAuditRow(r);
  }

  /** Records matching `f`, newest first. */
  async list(f: AuditFilter): Promise<AuditRow[]> {
    const q = auditListQuery(f, () => '?');
    return (this.db.prepare(q.sql).all(...q.params) as AuditRow[]).map(toAuditRow);
  }

  /** The highest seq of a record made before `at` (0: none). */
  async lastSeqBefore(at: string): Promise<number> {
    const r = this.db.prepare('SELECT max(seq) AS seq FROM audit_log WHERE at < ?').get(at) as { seq: number | null };
    return r.seq ?? 0;
  }

  /** Deletes the records up to `seq` and leaves the last one's hash as the anchor: after lockHead, in the same transaction. */
  async prune(seq: number, anchorHash: string): Promise<number> {
    const n = this.db.prepare('DELETE FROM audit_log WHERE seq <= ?').run(seq).changes;
    this.db.prepare('UPDATE audit_chain SET anchor_seq = ?, anchor_hash = ? WHERE id = 1').run(seq, anchorHash);
    return n;
  }

  /** Notes that a backup holds the records up to `seq` (never moves back). */
  async markBackedUp(seq: number): Promise<void> {
    this.db.prepare('UPDATE audit_chain SET backed_up_seq = max(backed_up_seq, ?) WHERE id = 1').run(seq);
  }
}
