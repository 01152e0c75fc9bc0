/**
 * SQL Server DDL (pure), for SQL Server 2016 or later (DROP TABLE IF EXISTS). Identifiers are
 * bracket-quoted, which works whatever QUOTED_IDENTIFIER says.
 */
import type { ColumnPlan, ColumnType, TablePlan } from '../../plan-model.js';
import type { CreateTableOptions } from '../dialect.js';
import { CASE_ID, caseIdIndexName, joinLines, needsCaseIdIndex, tableBodyLines } from '../ddl-common.js';

/** SQL Server's identifier limit (sysname). */
export const MAX_IDENTIFIER_LENGTH = 128;

/** NVARCHAR(n) accepts n up to 4,000; longer items become NVARCHAR(MAX). */
export const MAX_NVARCHAR = 4000;

/** `[name]` with embedded closing brackets doubled. */
export function quoteIdent(name: string): string {
  return `[${name.replace(/]/g, ']]')}]`;
}

/** `N'text'` Unicode string literal. */
function stringLiteral(s: string): string {
  return `N'${s.replace(/'/g, "''")}'`;
}

/** SQL type of a plan column type. */
export function columnType(type: ColumnType): string {
  switch (type.kind) {
    case 'integer':
      if (type.digits <= 4) return 'SMALLINT';
      if (type.digits <= 9) return 'INT';
      if (type.digits <= 18) return 'BIGINT';
      return `DECIMAL(${type.digits},0)`;
    case 'decimal':
      return `DECIMAL(${type.precision},${type.scale})`;
    case 'varchar':
      return type.length <= MAX_NVARCHAR ? `NVARCHAR(${type.length})` : 'NVARCHAR(MAX)';
    case 'text':
      return 'NVARCHAR(MAX)';
    case 'guid':
      return 'UNIQUEIDENTIFIER';
    case 'boolean':
      return 'BIT';
    case 'timestamp':
      return 'DATETIME2(3)';
  }
}

function columnDef(col: ColumnPlan): string {
  return `${quoteIdent(col.name)} ${columnType(col.type)}${col.nullable ? ' NULL' : ' NOT NULL'}`;
}

/**
 * CREATE TABLE (and its case_id index when the primary key does not start with case_id). SQL
 * Server has no CREATE TABLE IF NOT EXISTS: with `ifNotExists` both go in one guarded batch.
 */
export function createTableSql(table: TablePlan, opts: CreateTableOptions = {}): string[] {
  const name = quoteIdent(table.name);
  const body = joinLines(tableBodyLines(table, opts, quoteIdent, (i) => columnDef(table.columns[i]!)));
  const out = [`CREATE TABLE ${name} (\n${body}\n)`];
  if (needsCaseIdIndex(table)) {
    out.push(`CREATE INDEX ${quoteIdent(caseIdIndexName(table.name, MAX_IDENTIFIER_LENGTH))} ON ${name} (${quoteIdent(CASE_ID)})`);
  }
  if (!opts.ifNotExists) return out;
  return [`IF OBJECT_ID(${stringLiteral(name)}, N'U') IS NULL\nBEGIN\n${out.map((s) => `${s};`).join('\n')}\nEND`];
}

/** DROP TABLE IF EXISTS (SQL Server 2016+); referencing foreign keys are dropped first by the session. */
export function dropTableSql(name: string): string {
  return `DROP TABLE IF EXISTS ${quoteIdent(name)}`;
}
