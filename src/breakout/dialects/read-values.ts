/**
 * Canonical form of values read back from any target (see TargetSession): one function so the
 * four drivers' representations (pg strings for int8/numeric, mysql2 date strings, tedious
 * numbers and Dates, SQLite REALs and BigInts) compare equal to what the flattener wrote.
 */
import type { CellValue, ColumnType, Row, TablePlan } from '../plan-model.js';

function integer(raw: unknown): CellValue {
  if (typeof raw === 'number') return raw;
  const big = typeof raw === 'bigint' ? raw : BigInt(String(raw));
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big.toString();
}

function decimal(raw: unknown, scale: number): string {
  if (typeof raw === 'number') return raw.toFixed(scale);
  if (typeof raw === 'bigint') return scale > 0 ? `${raw.toString()}.${'0'.repeat(scale)}` : raw.toString();
  const s = String(raw);
  const dot = s.indexOf('.');
  const have = dot < 0 ? 0 : s.length - dot - 1;
  if (have === scale) return s;
  if (have < scale) return (dot < 0 ? `${s}.` : s) + '0'.repeat(scale - have);
  return Number(s).toFixed(scale);
}

function timestamp(raw: unknown): string {
  if (raw instanceof Date) return raw.toISOString();
  const s = String(raw);
  // MySQL DATETIME and SQLite text without a zone are UTC by our convention.
  const iso = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?$/.test(s) ? `${s.replace(' ', 'T')}Z` : s;
  return new Date(iso).toISOString();
}

/** Converts one driver value to its canonical CellValue for a column type. */
export function canonicalCell(type: ColumnType, raw: unknown): CellValue {
  if (raw === null || raw === undefined) return null;
  switch (type.kind) {
    case 'integer':
      return integer(raw);
    case 'decimal':
      return decimal(raw, type.scale);
    case 'boolean':
      return raw === true || raw === 1 || raw === 1n || raw === '1' || raw === 't';
    case 'timestamp':
      return timestamp(raw);
    case 'guid':
      return String(raw).toLowerCase();
    default:
      return Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw);
  }
}

/** Converts a driver row (array in column order) to a canonical Row. */
export function canonicalRow(table: TablePlan, raw: readonly unknown[]): Row {
  return table.columns.map((c, i) => canonicalCell(c.type, raw[i]));
}
