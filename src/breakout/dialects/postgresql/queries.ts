/** PostgreSQL DML and catalog queries (pure). Tables live in the session's current_schema(). */
import type { SqlStyle } from '../queries-common.js';
import { quoteIdent } from './ddl.js';

export const style: SqlStyle = {
  quote: quoteIdent,
  placeholder: (i) => `$${i + 1}`,
  limit: (n) => ({ atEnd: `LIMIT ${Math.trunc(n)}` }),
};

/** Name and total size (heap + indexes + TOAST) of every ordinary table of the current schema. */
export const LIST_TABLES_SQL = `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS size_bytes
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
ORDER BY c.relname`;

/** Per-case delete with one array parameter instead of one parameter per case. */
export function deleteCaseRowsSql(table: string): string {
  return `DELETE FROM ${quoteIdent(table)} WHERE ${quoteIdent('case_id')} = ANY($1)`;
}

export const VERSION_SQL = 'SHOW server_version';

/** The TLS version of this session as the server sees it (no row or NULL: plain). */
export const TLS_VERSION_SQL = 'SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl';

/**
 * Completion time of the newest completed job of a breakout's jobs table (the status endpoint's
 * `last_processed_time`). MAX over the timestamptz column; pg returns a Date.
 */
export function lastCompletedJobSql(jobsTable: string): string {
  return `SELECT MAX(${quoteIdent('completed_time')}) FROM ${quoteIdent(jobsTable)} WHERE ${quoteIdent('status')} = 'completed'`;
}
