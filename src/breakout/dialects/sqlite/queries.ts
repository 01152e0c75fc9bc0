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
 * commits not fsynced (NORMAL): a commit's frames reach the WAL file but not necessarily the
 * disk. Before a breakout saves its store cursor over committed pages it fsyncs the WAL
 * (`makeDurable`), once for a group of pages, so the cursor never gets ahead of what survives a
 * power cut (docs/durability.md). SQLite's own checkpoints fsync the WAL before they copy it and
 * the database file after, so frames already checkpointed are durable in the database file.
 */
export const JOURNAL_MODE_PRAGMA = 'journal_mode = WAL';
export const SESSION_PRAGMAS = ['synchronous = NORMAL', 'foreign_keys = ON'];

/**
 * Where the file cannot run in WAL mode (SQLite then keeps its rollback journal, e.g. on a file
 * system without shared memory), every commit is fsynced instead: there is no WAL to sync later.
 */
export const NO_WAL_PRAGMAS = ['synchronous = FULL', 'foreign_keys = ON'];

/** The file SQLite itself opened for the main database (symbolic links resolved): its WAL is this name plus `-wal`. */
export const MAIN_FILE_SQL = `SELECT file FROM pragma_database_list WHERE name = 'main'`;

/** Rows per transaction when bulkLoad runs outside a caller's transaction. */
export const ROWS_PER_TRANSACTION = 10_000;

/**
 * Completion time of the newest completed job of a breakout's jobs table (the status endpoint's
 * `last_processed_time`). MAX over the ISO 8601 text column: the strings sort as the instants do.
 */
export function lastCompletedJobSql(jobsTable: string): string {
  return `SELECT MAX(${quoteIdent('completed_time')}) FROM ${quoteIdent(jobsTable)} WHERE ${quoteIdent('status')} = 'completed'`;
}
