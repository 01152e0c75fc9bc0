/**
 * SQLite DDL (pure). Declared types are chosen for their affinity
 * (https://www.sqlite.org/datatype3.html#determination_of_column_affinity) and for tools that
 * read them: VARCHAR/CHAR/TEXT give TEXT affinity, DECIMAL and BOOLEAN give NUMERIC.
 */
import type { ColumnType, TablePlan } from '../../plan-model.js';
import type { CreateTableOptions } from '../dialect.js';
import { createTableWithIndexSql } from '../ddl-common.js';

/**
 * SQLite has no identifier limit; 128 (SQL Server's) keeps names portable to the other targets
 * while shortening fewer names than PostgreSQL's or MySQL's limits would.
 */
export const MAX_IDENTIFIER_LENGTH = 128;

/** `"name"` with embedded double quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** SQL type of a plan column type. */
export function columnType(type: ColumnType): string {
  switch (type.kind) {
    case 'integer':
      // INTEGER is a 64-bit integer: up to 18 digits; wider items keep NUMERIC affinity.
      return type.digits <= 18 ? 'INTEGER' : `DECIMAL(${type.digits},0)`;
    case 'decimal':
      return `DECIMAL(${type.precision},${type.scale})`;
    case 'varchar':
      return `VARCHAR(${type.length})`;
    case 'text':
      return 'TEXT';
    case 'guid':
      // Not "UUID": that name would give NUMERIC affinity.
      return 'CHAR(36)';
    case 'boolean':
      return 'BOOLEAN';
    case 'timestamp':
      // ISO 8601 text, which SQLite's date and time functions read.
      return 'TEXT';
  }
}

/** CREATE TABLE (and its case_id index when the primary key does not start with case_id). */
export function createTableSql(table: TablePlan, opts: CreateTableOptions = {}): string[] {
  return createTableWithIndexSql(table, opts, {
    quote: quoteIdent,
    columnType: (c) => columnType(c.type),
    maxIdentifierLength: MAX_IDENTIFIER_LENGTH,
  });
}

/** DROP TABLE IF EXISTS. */
export function dropTableSql(name: string): string {
  return `DROP TABLE IF EXISTS ${quoteIdent(name)}`;
}
