/** MySQL/MariaDB DML and catalog queries (pure). Tables live in the connection's DATABASE(). */
import type { SqlStyle } from '../queries-common.js';
import { quoteIdent } from './ddl.js';

export const style: SqlStyle = {
  quote: quoteIdent,
  placeholder: () => '?',
  limit: (n) => ({ atEnd: `LIMIT ${Math.trunc(n)}` }),
};

/**
 * Name, size and creation time of the base tables of the current database. DATA_LENGTH and
 * INDEX_LENGTH are InnoDB statistics (updated after about 10% of a table changes), so sizes are
 * approximate; CREATE_TIME is in the session time zone, which the session sets to UTC.
 */
export const LIST_TABLES_SQL = `SELECT TABLE_NAME, COALESCE(DATA_LENGTH, 0) + COALESCE(INDEX_LENGTH, 0), CREATE_TIME
FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'
ORDER BY TABLE_NAME`;

export const VERSION_SQL = 'SELECT VERSION()';

/** The TLS version of this session as the server sees it ('' when plain). */
export const TLS_VERSION_SQL = "SHOW SESSION STATUS LIKE 'Ssl_version'";

/** Session settings: UTC for CREATE_TIME and NOW(), full Unicode on the wire. */
export const SESSION_SETUP_SQL = ["SET time_zone = '+00:00'", 'SET NAMES utf8mb4'];

export const SHOW_WARNINGS_SQL = 'SHOW WARNINGS LIMIT 5';

/**
 * Completion time of the newest completed job of a breakout's jobs table (the status endpoint's
 * `last_processed_time`). MAX over the DATETIME column, a UTC wall time (the session's time zone is +00:00).
 */
export function lastCompletedJobSql(jobsTable: string): string {
  return `SELECT MAX(${quoteIdent('completed_time')}) FROM ${quoteIdent(jobsTable)} WHERE ${quoteIdent('status')} = 'completed'`;
}
