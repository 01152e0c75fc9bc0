/**
 * Builders of the small DML statements every dialect needs, parameterised by the dialect's
 * quoting, placeholder style and row-limit syntax (pure). Values always travel as parameters.
 */
import type { TablePlan } from '../plan-model.js';
import type { ReadOptions } from './dialect.js';
import { CASE_ID } from './ddl-common.js';

export interface SqlStyle {
  quote: (name: string) => string;
  /** Placeholder of the 0-based parameter `i`: `$1`, `?`, `@p0`. */
  placeholder: (i: number) => string;
  /** Wraps a SELECT for a row limit: `LIMIT n` at the end or `TOP (n)` after SELECT. */
  limit: (n: number) => { afterSelect?: string; atEnd?: string };
}

/** `INSERT INTO t (cols) VALUES (…), (…)` for `rows` rows, parameters numbered row by row. */
export function insertSql(style: SqlStyle, table: TablePlan, rows = 1): string {
  const n = table.columns.length;
  const cols = table.columns.map((c) => style.quote(c.name)).join(', ');
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    const ph: string[] = [];
    for (let c = 0; c < n; c++) ph.push(style.placeholder(r * n + c));
    tuples.push(`(${ph.join(', ')})`);
  }
  return `INSERT INTO ${style.quote(table.name)} (${cols}) VALUES ${tuples.join(', ')}`;
}

/** `DELETE … WHERE pk1 = ? AND pk2 = ?`: parameters are the key values in primaryKey order. */
export function deleteByKeySql(style: SqlStyle, table: TablePlan): string {
  const where = table.primaryKey.map((k, i) => `${style.quote(k)} = ${style.placeholder(i)}`).join(' AND ');
  return `DELETE FROM ${style.quote(table.name)} WHERE ${where}`;
}

/** `DELETE … WHERE case_id IN (?, …)` for `count` case ids. */
export function deleteCaseRowsSql(style: SqlStyle, table: string, count: number): string {
  const ph = Array.from({ length: count }, (_, i) => style.placeholder(i)).join(', ');
  return `DELETE FROM ${style.quote(table)} WHERE ${style.quote(CASE_ID)} IN (${ph})`;
}

/** `DELETE FROM t`, every row. */
export function deleteAllRowsSql(style: SqlStyle, table: string): string {
  return `DELETE FROM ${style.quote(table)}`;
}

/** SELECT of all plan columns with optional equality filters, order and limit; parameters are the `where` values. */
export function selectSql(style: SqlStyle, table: TablePlan, opts: ReadOptions = {}): { sql: string; params: unknown[] } {
  const cols = table.columns.map((c) => style.quote(c.name)).join(', ');
  const entries = Object.entries(opts.where ?? {});
  const where = entries.length ? ` WHERE ${entries.map(([k], i) => `${style.quote(k)} = ${style.placeholder(i)}`).join(' AND ')}` : '';
  const order = opts.orderBy?.length
    ? ` ORDER BY ${opts.orderBy.map((o) => `${style.quote(o.column)}${o.desc ? ' DESC' : ''}`).join(', ')}`
    : '';
  const lim = opts.limit !== undefined ? style.limit(opts.limit) : {};
  const top = lim.afterSelect ? `${lim.afterSelect} ` : '';
  const end = lim.atEnd ? ` ${lim.atEnd}` : '';
  return { sql: `SELECT ${top}${cols} FROM ${style.quote(table.name)}${where}${order}${end}`, params: entries.map(([, v]) => v) };
}

/** `SELECT COUNT(*) AS n FROM t`. */
export function countSql(style: SqlStyle, table: string): string {
  return `SELECT COUNT(*) AS n FROM ${style.quote(table)}`;
}

/** Splits `items` into chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
