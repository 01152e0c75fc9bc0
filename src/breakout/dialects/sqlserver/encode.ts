/**
 * SQL Server values for tedious (pure): column definitions for `BulkLoad.addColumn` and row
 * arrays for `execBulkLoad` (https://tediousjs.github.io/tedious/bulk-load.html), plus typed
 * parameters for ordinary statements. Type names are keys of tedious' TYPES, resolved by the
 * session once the driver is loaded.
 */
import type { CellValue, ColumnType, Row, TablePlan } from '../../plan-model.js';
import { booleanValue, decimalText, integerText, textValue } from '../encode-common.js';
import { MAX_NVARCHAR } from './ddl.js';

type TdsTypeName = 'SmallInt' | 'Int' | 'BigInt' | 'Decimal' | 'NVarChar' | 'UniqueIdentifier' | 'Bit' | 'DateTime2';

export interface TdsTypeSpec {
  type: TdsTypeName;
  /** NVarChar length (Infinity = MAX), Decimal precision/scale, DateTime2 scale. */
  length?: number;
  precision?: number;
  scale?: number;
}

/** The tedious type of a plan column type; it must match columnType() of ddl.ts. */
function tdsType(type: ColumnType): TdsTypeSpec {
  switch (type.kind) {
    case 'integer':
      if (type.digits <= 4) return { type: 'SmallInt' };
      if (type.digits <= 9) return { type: 'Int' };
      if (type.digits <= 18) return { type: 'BigInt' };
      return { type: 'Decimal', precision: type.digits, scale: 0 };
    case 'decimal':
      return { type: 'Decimal', precision: type.precision, scale: type.scale };
    case 'varchar':
      return { type: 'NVarChar', length: type.length <= MAX_NVARCHAR ? type.length : Infinity };
    case 'text':
      return { type: 'NVarChar', length: Infinity };
    case 'guid':
      return { type: 'UniqueIdentifier' };
    case 'boolean':
      return { type: 'Bit' };
    case 'timestamp':
      return { type: 'DateTime2', scale: 3 };
  }
}

export interface BulkColumn extends TdsTypeSpec {
  name: string;
  nullable: boolean;
}

/** Column definitions for BulkLoad.addColumn, in plan order. */
export function bulkColumns(table: TablePlan): BulkColumn[] {
  return table.columns.map((c) => ({ name: c.name, nullable: c.nullable, ...tdsType(c.type) }));
}

/** A cell as the JavaScript value tedious sends for a column of this type. */
function tdsValue(type: ColumnType, v: CellValue): unknown {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'integer':
      // Small integers as numbers; BigInt and wide Decimal columns take digit strings exactly.
      return type.digits <= 9 ? Number(v) : integerText(v);
    case 'decimal':
      // tedious parses Decimal with parseFloat: exact up to 15 significant digits.
      return decimalText(v, type.scale);
    case 'boolean':
      return booleanValue(v);
    case 'timestamp':
      // A Date is an instant; with useUTC (the default) tedious writes its UTC wall time.
      return new Date(String(v));
    case 'varchar':
    case 'text':
      return textValue(v);
    default:
      return String(v);
  }
}

/** Converts a row to the array execBulkLoad expects. */
export function bulkRowEncoder(table: TablePlan): (row: Row) => unknown[] {
  const types = table.columns.map((c) => c.type);
  return (row) => types.map((t, i) => tdsValue(t, row[i] ?? null));
}

/** A typed statement parameter (upserts, filters). */
export interface TdsParam extends TdsTypeSpec {
  value: unknown;
}

/** A cell as a typed parameter for a column of this type. */
export function paramValue(type: ColumnType, v: CellValue): TdsParam {
  return { ...tdsType(type), value: tdsValue(type, v) };
}
