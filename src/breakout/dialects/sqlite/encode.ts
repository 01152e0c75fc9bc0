/**
 * SQLite bound parameters (pure). better-sqlite3 binds numbers, strings, bigints, buffers and
 * null, but not booleans (https://github.com/WiseLibs/better-sqlite3/blob/master/docs/api.md#binding-parameters).
 */
import type { CellValue, ColumnType, Row, TablePlan } from '../../plan-model.js';
import { booleanValue, decimalText, textValue } from '../encode-common.js';
import { quoteIdent } from './ddl.js';

/** A cell as the value bound for a column of this type. */
export function paramValue(type: ColumnType, v: CellValue): string | number | null {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'boolean':
      return booleanValue(v) ? 1 : 0;
    case 'decimal':
      // Bound as text so NUMERIC affinity converts the exact decimal digits, not a binary double.
      return decimalText(v, type.scale);
    case 'integer':
      return typeof v === 'boolean' ? (v ? 1 : 0) : v;
    case 'varchar':
    case 'text':
      // better-sqlite3 would write a lone surrogate as invalid UTF-8 bytes (docs/breakout.md).
      return textValue(v);
    default:
      return String(v);
  }
}

/** Converts a row to the parameters of insertStatement. */
export function rowEncoder(table: TablePlan): (row: Row) => (string | number | null)[] {
  const types = table.columns.map((c) => c.type);
  return (row) => types.map((t, i) => paramValue(t, row[i] ?? null));
}

/** The prepared single-row INSERT of the bulk path. */
export function insertStatement(table: TablePlan): string {
  const cols = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  return `INSERT INTO ${quoteIdent(table.name)} (${cols}) VALUES (${table.columns.map(() => '?').join(', ')})`;
}
