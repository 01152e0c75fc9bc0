import type { Database, Statement } from 'better-sqlite3';
import type { CaseNote, PartialSave } from '../cspro/case/model.js';
import { CASE_COLUMNS, storedNotes, toStored, type RawCase, type StoredCase } from './cases-repo.js';
import { caseQuerySql, type CaseQuery } from './case-query-sql.js';
import { ROW_BYTES } from './sync-repo.js';

/** What identifies a case to the data source: key, guid, stable position, and the revision of its last change. */
export interface CaseIdentifierRow {
  guid: string;
  caseKey: string;
  position: number;
  revision: number;
}

/** An identifier with the case's summary: label, flags, partial save and notes. */
export interface CaseSummaryQueryRow extends CaseIdentifierRow {
  label: string;
  deleted: boolean;
  verified: boolean;
  partialSave: PartialSave | null;
  notes: CaseNote[];
  /** The case note of CSPro 8.1 (migration 0021), null when the case has none. */
  caseNote: string | null;
}

/** A whole stored case with its position. */
export interface PositionedCase extends StoredCase {
  position: number;
}

/** An identifier row as the database returns it. */
export interface RawIdentifier {
  guid: string;
  case_key: string;
  position: number;
  revision: number;
}

/** A summary row as the database returns it. */
export interface RawQuerySummary extends RawIdentifier {
  label: string;
  deleted: number;
  verified: number;
  partial_save: string | null;
  notes: string;
  case_note: string | null;
}

/** An identifier from its database row. */
export const toIdentifier = (r: RawIdentifier): CaseIdentifierRow => ({
  guid: r.guid,
  caseKey: r.case_key,
  position: r.position,
  revision: r.revision,
});

/** A summary from its database row. */
export function toSummaryQueryRow(r: RawQuerySummary): CaseSummaryQueryRow {
  return {
    ...toIdentifier(r),
    label: r.label,
    deleted: r.deleted === 1,
    verified: r.verified === 1,
    partialSave: r.partial_save === null ? null : (JSON.parse(r.partial_save) as PartialSave),
    notes: storedNotes(r.notes),
    caseNote: r.case_note,
  };
}

/** A whole case with its position from its database row. */
export function toPositioned(r: RawCase & { position: number }): PositionedCase {
  return { ...toStored(r), position: r.position };
}

/** The columns each kind of page reads (both stores). */
export const CASE_QUERY_KINDS = {
  identifiers: 'guid, case_key, position, revision',
  summaries: 'guid, case_key, position, revision, label, deleted, verified, partial_save, notes, case_note',
  cases: `${CASE_COLUMNS}, position`,
  sizes: `${ROW_BYTES} AS size`,
} as const;

/** What a page of a case query reads. */
export type CaseQueryKind = keyof typeof CASE_QUERY_KINDS;

/** Statements kept per query shape; the shapes a client can send are a few hundred at most. */
const MAX_STATEMENTS = 64;

/**
 * The data source's queries over one dictionary's cases (docs/sync.md#the-81-data-source): a
 * filter, a status and an order, read a page at a time with LIMIT and OFFSET so no reply holds
 * more than its page in memory.
 */
export class CaseQueriesRepo {
  private readonly statements = new Map<string, Statement<Record<string, unknown>, unknown>>();

  constructor(private readonly db: Database) {}

  private statement(key: string, sql: () => string): Statement<Record<string, unknown>, unknown> {
    let stmt = this.statements.get(key);
    if (!stmt) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      stmt = this.db.prepare<Record<string, unknown>, unknown>(sql());
      this.statements.set(key, stmt);
    }
    return stmt;
  }

  private page(kind: CaseQueryKind, dictionaryId: number, q: CaseQuery, limit: number, offset: number): unknown[] {
    const plan = caseQuerySql(q);
    const stmt = this.statement(
      `${kind}|${plan.shape}`,
      () => `SELECT ${CASE_QUERY_KINDS[kind]} ${plan.from} ${plan.orderBy} LIMIT @limit OFFSET @offset`,
    );
    return stmt.all({ ...plan.params, dict: dictionaryId, limit, offset });
  }

  /** How many cases the query selects (no paging). */
  async count(dictionaryId: number, q: CaseQuery): Promise<number> {
    const plan = caseQuerySql(q);
    const stmt = this.statement(`count|${plan.shape}`, () => `SELECT count(*) AS n ${plan.from}`);
    return (stmt.get({ ...plan.params, dict: dictionaryId }) as { n: number }).n;
  }

  /** Up to `limit` identifiers from `offset`, in the query's order. */
  async identifiers(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<CaseIdentifierRow[]> {
    return (this.page('identifiers', dictionaryId, q, limit, offset) as RawIdentifier[]).map(toIdentifier);
  }

  /** Up to `limit` summaries from `offset`, in the query's order. */
  async summaries(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<CaseSummaryQueryRow[]> {
    return (this.page('summaries', dictionaryId, q, limit, offset) as RawQuerySummary[]).map(toSummaryQueryRow);
  }

  /**
   * The stored size in bytes of each of up to `limit` cases from `offset` (the page byte budget,
   * docs/limits.md), read from the record headers without the text.
   */
  async sizes(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<number[]> {
    return (this.page('sizes', dictionaryId, q, limit, offset) as { size: number }[]).map((r) => r.size);
  }

  /** Up to `limit` whole cases from `offset`, in the query's order. */
  async cases(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<PositionedCase[]> {
    return (this.page('cases', dictionaryId, q, limit, offset) as (RawCase & { position: number })[]).map(toPositioned);
  }
}
