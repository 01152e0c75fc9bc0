/**
 * The data source's queries over one dictionary's cases on the PostgreSQL store
 * (docs/sync.md#the-81-data-source): the SQLite repository's queries (../case-queries-repo.ts),
 * read a page at a time with LIMIT and OFFSET. Reads only: nothing to lock.
 */
import type { RawCase } from '../cases-repo.js';
import {
  CASE_QUERY_KINDS,
  toIdentifier,
  toPositioned,
  toSummaryQueryRow,
  type CaseIdentifierRow,
  type CaseQueriesRepo,
  type CaseQueryKind,
  type CaseSummaryQueryRow,
  type PositionedCase,
  type RawIdentifier,
  type RawQuerySummary,
} from '../case-queries-repo.js';
import type { CaseQuery } from '../case-query-sql.js';
import type { RepoContract } from '../store-contract.js';
import { pgCaseQuery } from './case-query-sql.js';
import type { PgRunner } from './pg-runner.js';

/** The data source's case queries, on PostgreSQL. */
export class PgCaseQueriesRepo implements RepoContract<CaseQueriesRepo> {
  constructor(private readonly db: PgRunner) {}

  private page<T extends object>(kind: CaseQueryKind, dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<T[]> {
    const { sql, params } = pgCaseQuery(q, dictionaryId, CASE_QUERY_KINDS[kind], { limit, offset });
    return this.db.rows<T & Record<string, unknown>>(sql, params);
  }

  /** How many cases the query selects (no paging). */
  async count(dictionaryId: number, q: CaseQuery): Promise<number> {
    const { sql, params } = pgCaseQuery(q, dictionaryId, 'count(*) AS n');
    return (await this.db.row<{ n: number }>(sql, params))!.n;
  }

  /** Up to `limit` identifiers from `offset`, in the query's order. */
  async identifiers(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<CaseIdentifierRow[]> {
    return (await this.page<RawIdentifier>('identifiers', dictionaryId, q, limit, offset)).map(toIdentifier);
  }

  /** Up to `limit` summaries from `offset`, in the query's order. */
  async summaries(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<CaseSummaryQueryRow[]> {
    return (await this.page<RawQuerySummary>('summaries', dictionaryId, q, limit, offset)).map(toSummaryQueryRow);
  }

  /** The stored size in bytes of each of up to `limit` cases from `offset` (the page byte budget, docs/limits.md). */
  async sizes(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<number[]> {
    return (await this.page<{ size: number }>('sizes', dictionaryId, q, limit, offset)).map((r) => r.size);
  }

  /** Up to `limit` whole cases from `offset`, in the query's order. */
  async cases(dictionaryId: number, q: CaseQuery, limit: number, offset: number): Promise<PositionedCase[]> {
    return (await this.page<RawCase & { position: number }>('cases', dictionaryId, q, limit, offset)).map(toPositioned);
  }
}
