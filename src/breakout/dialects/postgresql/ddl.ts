/** PostgreSQL DDL (pure). Every identifier is quoted, so reserved words like `order` are safe. */
import type { ColumnType, TablePlan } from '../../plan-model.js';
import type { CreateTableOptions } from '../dialect.js';
import { createTableWithIndexSql } from '../ddl-common.js';

/** PostgreSQL's identifier limit (NAMEDATALEN - 1); longer names would be silently truncated. */
export const MAX_IDENTIFIER_LENGTH = 63;

/** `"name"` with embedded double quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** SQL type of a plan column type. */
export function columnType(type: ColumnType): string {
  switch (type.kind) {
    case 'integer':
      // digits include the sign position; 4 digits fit SMALLINT (32,767), 9 INTEGER, 18 BIGINT.
      if (type.digits <= 4) return 'SMALLINT';
      if (type.digits <= 9) return 'INTEGER';
      if (type.digits <= 18) return 'BIGINT';
      return `NUMERIC(${type.digits},0)`;
    case 'decimal':
      return `NUMERIC(${type.precision},${type.scale})`;
    case 'varchar':
      return `VARCHAR(${type.length})`;
    case 'text':
      return 'TEXT';
    case 'guid':
      return 'UUID';
    case 'boolean':
      return 'BOOLEAN';
    case 'timestamp':
      // timestamptz: the value is an instant, and pg returns it as a Date whatever the session TimeZone.
      return 'TIMESTAMPTZ(3)';
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

/** DROP TABLE IF EXISTS; no CASCADE, so views an analyst built on the table are never dropped silently. */
export function dropTableSql(name: string): string {
  return `DROP TABLE IF EXISTS ${quoteIdent(name)}`;
}
