/** SQL Server DML and catalog queries (pure). Tables live in the login's default schema, SCHEMA_ID(). */
import type { SqlStyle } from '../queries-common.js';
import { quoteIdent } from './ddl.js';

export const style: SqlStyle = {
  quote: quoteIdent,
  placeholder: (i) => `@p${i}`,
  limit: (n) => ({ afterSelect: `TOP (${Math.trunc(n)})` }),
};

/**
 * Name, reserved bytes and creation time (converted from server local time to UTC) of the tables
 * of the default schema. sys.allocation_units needs no VIEW DATABASE STATE permission, unlike
 * sys.dm_db_partition_stats.
 */
export const LIST_TABLES_SQL = `SELECT t.name,
  CAST(COALESCE(SUM(a.total_pages), 0) AS BIGINT) * 8192,
  DATEADD(minute, DATEDIFF(minute, SYSDATETIME(), SYSUTCDATETIME()), t.create_date)
FROM sys.tables t
LEFT JOIN sys.partitions p ON p.object_id = t.object_id
LEFT JOIN sys.allocation_units a ON a.container_id = p.partition_id
WHERE t.schema_id = SCHEMA_ID()
GROUP BY t.name, t.create_date
ORDER BY t.name`;

/** Foreign keys: name, referencing table, referenced table (to drop them before their tables). */
export const FOREIGN_KEYS_SQL = `SELECT fk.name, OBJECT_NAME(fk.parent_object_id), OBJECT_NAME(fk.referenced_object_id)
FROM sys.foreign_keys fk WHERE fk.schema_id = SCHEMA_ID()`;

export const VERSION_SQL = "SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128))";

/** Drops one foreign key constraint. */
export function dropForeignKeySql(table: string, constraint: string): string {
  return `ALTER TABLE ${quoteIdent(table)} DROP CONSTRAINT ${quoteIdent(constraint)}`;
}

/**
 * Completion time of the newest completed job of a breakout's jobs table (the status endpoint's
 * `last_processed_time`). MAX over the DATETIME2 column, a UTC wall time (useUTC).
 */
export function lastCompletedJobSql(jobsTable: string): string {
  return `SELECT MAX(${quoteIdent('completed_time')}) FROM ${quoteIdent(jobsTable)} WHERE ${quoteIdent('status')} = 'completed'`;
}
