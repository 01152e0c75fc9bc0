/**
 * MySQL/MariaDB `LOAD DATA` text format (pure), matching the clauses of loadDataStatement:
 * fields end with a tab, lines with a newline, the escape character is a backslash, no
 * enclosing quotes. With that escape character the server reads `\N` as NULL and `\\`, `\t`,
 * `\n`, `\r`, `\0` as the characters they name
 * (https://dev.mysql.com/doc/refman/8.0/en/load-data.html#load-data-field-line-handling).
 */
import type { CellValue, ColumnType, Row, TablePlan } from '../../plan-model.js';
import { booleanValue, decimalText, integerText, textValue, utcDateTimeText } from '../encode-common.js';
import { tabLineEncoder, type CellEncoder } from '../row-stream.js';
import { quoteIdent } from './ddl.js';

const NEEDS_ESCAPE = /[\\\t\n\r\0]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };

/** Escapes a string for LOAD DATA with ESCAPED BY '\'. */
export function escapeLoadDataText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(/[\\\t\n\r\0]/g, (c) => ESCAPES[c]!) : s;
}

/** The encoder of one non-null cell of a column type. */
function loadDataCellEncoder(type: ColumnType): CellEncoder {
  switch (type.kind) {
    case 'integer':
      return integerText;
    case 'decimal':
      return (v) => decimalText(v, type.scale);
    case 'boolean':
      return (v) => (booleanValue(v) ? '1' : '0');
    case 'timestamp':
      // DATETIME has no zone: write the UTC wall time without the trailing Z.
      return utcDateTimeText;
    case 'guid':
      return (v) => String(v);
    default:
      return (v) => escapeLoadDataText(textValue(v));
  }
}

/** Encodes a row as one LOAD DATA line (newline included). */
export function loadDataLineEncoder(table: TablePlan): (row: Row) => string {
  return tabLineEncoder(table.columns.map((c) => loadDataCellEncoder(c.type)));
}

/**
 * The LOAD DATA statement whose format matches loadDataLineEncoder. Terminators are hex literals
 * so the statement means the same under sql_mode NO_BACKSLASH_ESCAPES. The file name is only a
 * label: mysql2 asks the query's infileStreamFactory for the data.
 */
export function loadDataStatement(table: TablePlan): string {
  const cols = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  return (
    `LOAD DATA LOCAL INFILE 'sds-rows.tsv' INTO TABLE ${quoteIdent(table.name)} CHARACTER SET utf8mb4 ` +
    `FIELDS TERMINATED BY X'09' ESCAPED BY X'5C' LINES TERMINATED BY X'0A' (${cols})`
  );
}

/** A cell as a bind parameter (multi-row INSERT fallback, upserts, filters). */
export function paramValue(type: ColumnType, v: CellValue): unknown {
  if (v === null) return null;
  if (type.kind === 'boolean') return booleanValue(v) ? 1 : 0;
  if (type.kind === 'timestamp') return utcDateTimeText(v);
  if (type.kind === 'decimal') return decimalText(v, type.scale);
  if (type.kind === 'varchar' || type.kind === 'text') return textValue(v);
  return v;
}
