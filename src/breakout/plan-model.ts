/**
 * Types of a breakout plan: the dialect-neutral description of the tables a dictionary breaks
 * out into (docs/breakout.md), and of the rows a case becomes. The planner (plan.ts) builds it, the
 * flattener (flatten.ts) fills rows in its column order, and each dialect turns it into DDL and
 * bulk-load encodings.
 */

export type ColumnType =
  /** Numeric item with 0 decimals; `digits` is the item length (sign included). */
  | { kind: 'integer'; digits: number }
  /** Numeric item with decimals. */
  | { kind: 'decimal'; precision: number; scale: number }
  /** Alpha item: a Unicode string of at most `length` characters. */
  | { kind: 'varchar'; length: number }
  /** Unbounded text (case labels, note contents, messages). */
  | { kind: 'text' }
  /** Case GUID, 36 characters, lower case with dashes. */
  | { kind: 'guid' }
  | { kind: 'boolean' }
  /** UTC instant; row values are ISO 8601 strings (`2024-03-01T10:00:00.000Z`). */
  | { kind: 'timestamp' };

export interface ColumnPlan {
  name: string;
  type: ColumnType;
  nullable: boolean;
}

/**
 * `value_sets` and `items` are the label tables (docs/breakout.md#value-sets-and-item-labels):
 * filled from the dictionary, not from cases, and outside the structure hash.
 */
export type TableKind = 'main' | 'level' | 'record' | 'notes' | 'jobs' | 'value_sets' | 'items';

/** Whether a table holds dictionary labels rather than case data. */
export function isLabelTable(table: { kind: TableKind }): boolean {
  return table.kind === 'value_sets' || table.kind === 'items';
}

export interface TablePlan {
  /** Full table name, prefix included, already within the dialect's identifier limit. */
  name: string;
  kind: TableKind;
  columns: ColumnPlan[];
  primaryKey: string[];
  /** For level and record tables: the 1-based dictionary level, and the record name. */
  level?: number;
  record?: string;
}

export interface BreakoutPlan {
  dictionary: string;
  /** Lower-cased dictionary label, the table prefix without its trailing underscore. */
  prefix: string;
  tables: TablePlan[];
  /**
   * Hash of everything in the dictionary that shapes the data tables: a change means rebuild.
   * The label tables are not in it: new labels rewrite only them (label-sync.ts).
   */
  structureHash: string;
}

export type CellValue = string | number | boolean | null;
export type Row = CellValue[];

/** Rows as a bulk load takes them: a list, or a stream read as it comes. */
export type RowSource = Iterable<Row> | AsyncIterable<Row>;
