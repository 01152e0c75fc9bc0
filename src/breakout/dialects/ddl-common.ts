/**
 * The dialect-neutral skeleton of CREATE TABLE: which constraints and indexes a table gets. The
 * dialects supply quoting and column types; the shape is decided once, here.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors.js';
import type { ColumnPlan, TablePlan } from '../plan-model.js';
import type { CreateTableOptions } from './dialect.js';

/** The column every case-level table carries and foreign keys / per-case deletes use. */
export const CASE_ID = 'case_id';

/** The cases table referenced by `table`'s foreign key, or undefined when it gets none. */
function foreignKeyTarget(table: TablePlan, opts: CreateTableOptions = {}): string | undefined {
  if (!opts.foreignKeys) return undefined;
  if (!opts.casesTable) throw new AppError('INTERNAL', 'foreignKeys needs the name of the cases table');
  if (table.name === opts.casesTable) return undefined;
  return table.columns.some((c) => c.name === CASE_ID) ? opts.casesTable : undefined;
}

/**
 * Whether `table` needs its own index on case_id: per-case deletes filter on it, and only a
 * primary key that starts with case_id already serves them (e.g. the notes table has none).
 */
export function needsCaseIdIndex(table: TablePlan): boolean {
  return table.columns.some((c) => c.name === CASE_ID) && table.primaryKey[0] !== CASE_ID;
}

/**
 * Name of the case_id index: `<table>_case_id_idx`, shortened to `maxLen` with a hash of the
 * full name so two long tables never share an index name (PostgreSQL and SQLite index names are
 * unique per schema, not per table).
 */
export function caseIdIndexName(table: string, maxLen: number): string {
  const full = `${table}_case_id_idx`;
  if (full.length <= maxLen) return full;
  const hash = createHash('sha1').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, maxLen - 9)}_${hash}`;
}

/** Column definitions, PRIMARY KEY and FOREIGN KEY lines of a CREATE TABLE body. */
export function tableBodyLines(
  table: TablePlan,
  opts: CreateTableOptions,
  quote: (name: string) => string,
  columnDef: (index: number) => string,
): string[] {
  const lines = table.columns.map((_, i) => columnDef(i));
  if (table.primaryKey.length) lines.push(`PRIMARY KEY (${table.primaryKey.map(quote).join(', ')})`);
  const fk = foreignKeyTarget(table, opts);
  if (fk) lines.push(`FOREIGN KEY (${quote(CASE_ID)}) REFERENCES ${quote(fk)} (${quote(CASE_ID)}) ON DELETE CASCADE`);
  return lines;
}

/** `line1,\n  line2` with two-space indentation, the layout every dialect prints. */
export function joinLines(lines: string[]): string {
  return lines.map((l) => `  ${l}`).join(',\n');
}

/** How one dialect writes a column: its quoting and its type names. */
export interface ColumnSyntax {
  quote: (name: string) => string;
  columnType: (col: ColumnPlan) => string;
  maxIdentifierLength: number;
}

/**
 * CREATE TABLE [IF NOT EXISTS] plus a separate CREATE INDEX for case_id: the form PostgreSQL
 * and SQLite share (MySQL declares the index inline, SQL Server has no IF NOT EXISTS).
 */
export function createTableWithIndexSql(table: TablePlan, opts: CreateTableOptions, syntax: ColumnSyntax): string[] {
  const { quote } = syntax;
  const ine = opts.ifNotExists ? 'IF NOT EXISTS ' : '';
  const body = joinLines(
    tableBodyLines(table, opts, quote, (i) => {
      const col = table.columns[i]!;
      return `${quote(col.name)} ${syntax.columnType(col)}${col.nullable ? '' : ' NOT NULL'}`;
    }),
  );
  const out = [`CREATE TABLE ${ine}${quote(table.name)} (\n${body}\n)`];
  if (needsCaseIdIndex(table)) {
    const ix = quote(caseIdIndexName(table.name, syntax.maxIdentifierLength));
    out.push(`CREATE INDEX ${ine}${ix} ON ${quote(table.name)} (${quote(CASE_ID)})`);
  }
  return out;
}
