/** SQLite DML and catalog queries (pure). Tables live in the `main` database of the file. */
import type { SqlStyle } from '../queries-common.js';
import { quoteIdent } from './ddl.js';

export const style: SqlStyle = {
  quote: quoteIdent,
  placeholder: () => '?',
  limit: (n) => ({ atEnd: `LIMIT ${Math.trunc(n)}` }),
};

export const LIST_TABLES_SQL = `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`;

/** Bytes per table, its indexes included, from the dbstat virtual table (https://www.sqlite.org/dbstat.html). */
export const TABLE_SIZES_SQL = `SELECT s.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_schema s ON s.name = d.name GROUP BY s.tbl_name`;

export const VERSION_SQL = 'SELECT sqlite_version()';

/**
 * Per-connection settings: WAL for concurrent readers, foreign keys enforced when declared, and
 * every commit fsynced (FULL): the store's cursor advances over a page of cases once the target
 * committed it, and the cursor itself is durable, so a target commit lost to a power cut would
 * leave those cases missing from the target for good (docs/durability.md). A page is one
 * transaction of thousands of rows, so the fsync is paid once per page.
 */
export const SESSION_PRAGMAS = ['journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON'];

/** Rows per transaction when bulkLoad runs outside a caller's transaction. */
export const ROWS_PER_TRANSACTION = 10_000;

/**
 * Completion time of the newest completed job of a breakout's jobs table (the status endpoint's
 * `last_processed_time`). MAX over the ISO 8601 text column: the strings sort as the instants do.
 */
export function lastCompletedJobSql(jobsTable: string): string {
  return `SELECT MAX(${quoteIdent('completed_time')}) FROM ${quoteIdent(jobsTable)} WHERE ${quoteIdent('status')} = 'completed'`;
}
