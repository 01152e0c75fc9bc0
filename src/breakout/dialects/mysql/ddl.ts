/** MySQL/MariaDB DDL (pure). Every identifier is back-quoted, so reserved words like `order` are safe. */
import type { ColumnType, TablePlan } from '../../plan-model.js';
import type { CreateTableOptions } from '../dialect.js';
import { CASE_ID, caseIdIndexName, joinLines, needsCaseIdIndex, tableBodyLines } from '../ddl-common.js';
import { varcharsAsText } from './row-size.js';

/** MySQL's identifier limit (error 1059 beyond it). */
export const MAX_IDENTIFIER_LENGTH = 64;

/** Fixed table options: InnoDB (transactions, foreign keys) and full Unicode whatever the server default. */
const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

/** `` `name` `` with embedded back-quotes doubled. */
export function quoteIdent(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** SQL type of a plan column type; `asText` turns a VARCHAR into TEXT (row-size fallback). */
export function columnType(type: ColumnType, asText = false): string {
  switch (type.kind) {
    case 'integer':
      if (type.digits <= 4) return 'SMALLINT';
      if (type.digits <= 9) return 'INT';
      if (type.digits <= 18) return 'BIGINT';
      return `DECIMAL(${type.digits},0)`;
    case 'decimal':
      return `DECIMAL(${type.precision},${type.scale})`;
    case 'varchar':
      // TEXT holds 65,535 bytes = 16,383 utf8mb4 characters; longer needs MEDIUMTEXT.
      if (asText) return type.length <= 16_383 ? 'TEXT' : 'MEDIUMTEXT';
      return `VARCHAR(${type.length})`;
    case 'text':
      return 'MEDIUMTEXT';
    case 'guid':
      // ascii: 36 bytes instead of 144 in utf8mb4, which matters for keys and row size.
      return 'CHAR(36) CHARACTER SET ascii';
    case 'boolean':
      return 'BOOLEAN';
    case 'timestamp':
      // DATETIME, not TIMESTAMP: no 2038 limit and no session time-zone conversion; values are UTC.
      return 'DATETIME(3)';
  }
}

/** CREATE TABLE with the case_id index inline (MySQL indexes are per table). */
export function createTableSql(table: TablePlan, opts: CreateTableOptions = {}): string[] {
  const ine = opts.ifNotExists ? 'IF NOT EXISTS ' : '';
  const asText = varcharsAsText(table);
  const lines = tableBodyLines(table, opts, quoteIdent, (i) => {
    const col = table.columns[i]!;
    return `${quoteIdent(col.name)} ${columnType(col.type, asText[i])}${col.nullable ? '' : ' NOT NULL'}`;
  });
  if (needsCaseIdIndex(table)) {
    lines.push(`KEY ${quoteIdent(caseIdIndexName(table.name, MAX_IDENTIFIER_LENGTH))} (${quoteIdent(CASE_ID)})`);
  }
  return [`CREATE TABLE ${ine}${quoteIdent(table.name)} (\n${joinLines(lines)}\n) ${TABLE_OPTIONS}`];
}

/** DROP TABLE IF EXISTS (foreign keys between dropped tables are handled by the session). */
export function dropTableSql(name: string): string {
  return `DROP TABLE IF EXISTS ${quoteIdent(name)}`;
}
