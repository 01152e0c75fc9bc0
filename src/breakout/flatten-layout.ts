/**
 * The flattener's precomputed view of a plan: per level and per record, the plan table it
 * fills, where its item columns start, and one slot per item with everything the inner loop
 * needs (JSON key, conversion kind, column count, range bound). Built once per plan so the hot
 * path only indexes arrays.
 */
import type { BreakoutPlan, TablePlan } from './plan-model.js';
import type { DictItem, Dictionary } from '../cspro/dictionary/model.js';
import { levelKey } from '../cspro/case/model.js';
import { AppError } from '../shared/errors.js';
import { itemColumns } from './item-columns.js';

export const KIND_INTEGER = 0;
export const KIND_DECIMAL = 1;
export const KIND_ALPHA = 2;
const KIND_BINARY = 3;

/** Columns of the main table before the level-1 id items: case_id, case_key, case_label. */
export const MAIN_LEAD = 3;
/** Columns of the main table after the id items: verified, revision, modified_time, breakout_time. */
const MAIN_TAIL = 4;
/** Columns of a notes row (see plan.ts). */
const NOTES_WIDTH = 10;

/** One item: the JSON key it is read from and the `count` consecutive columns it fills. */
export class ItemSlot {
  constructor(
    /** Item name, the key in the record (or id) object. */
    readonly key: string,
    /** KIND_* constant. */
    readonly kind: number,
    /** Number of columns (occurrences). */
    readonly count: number,
    /**
     * Exclusive magnitude bound for numerics (integer: 10^digits; decimal: the smallest value
     * that rounds past the precision); maximum characters for alpha; 0 for binary.
     */
    readonly bound: number,
    /** Human description of the bound, for warnings. */
    readonly limitText: string,
  ) {}
}

export interface RecordLayout {
  name: string;
  tableIndex: number;
  /** Columns before the items: case_id, level path, occ. */
  keyWidth: number;
  width: number;
  slots: ItemSlot[];
}

export interface LevelLayout {
  /** 1-based level number. */
  level: number;
  /** Table of the level's nodes: the main table for level 1. */
  tableIndex: number;
  /** Column where the id items start. */
  idOffset: number;
  width: number;
  ids: ItemSlot[];
  records: RecordLayout[];
  /** Key of the child level array in a node (`level-(N+1)`), and its layout. */
  childKey: string;
  child: LevelLayout | null;
}

export interface FlattenLayout {
  tableCount: number;
  mainIndex: number;
  notesIndex: number;
  root: LevelLayout;
}

/** Builds the layout; throws INTERNAL when the plan was not made from this dictionary. */
export function buildLayout(plan: BreakoutPlan, dict: Dictionary): FlattenLayout {
  const tables = plan.tables;
  const mainIndex = indexOf(tables, (t) => t.kind === 'main', 'the cases table');
  const notesIndex = indexOf(tables, (t) => t.kind === 'notes', 'the notes table');
  const recordTables = tables.filter((t) => t.kind === 'record').length;
  const dictRecords = dict.levels.reduce((n, l) => n + l.records.length, 0);
  if (recordTables !== dictRecords) mismatch(`${recordTables} record tables for ${dictRecords} records`);

  let child: LevelLayout | null = null;
  for (let n = dict.levels.length; n >= 1; n--) {
    const level = dict.levels[n - 1]!;
    const tableIndex = n === 1 ? mainIndex : indexOf(tables, (t) => t.kind === 'level' && t.level === n, `the level ${n} table`);
    const ids = slotsOf(level.ids);
    const idOffset = n === 1 ? MAIN_LEAD : n;
    const width = idOffset + columnCount(ids) + (n === 1 ? MAIN_TAIL : 0);
    checkWidth(tables[tableIndex]!, width);
    const records = level.records.map((record): RecordLayout => {
      const index = indexOf(
        tables,
        (t) => t.kind === 'record' && t.level === n && t.record === record.name,
        `the table of record ${record.name}`,
      );
      const slots = slotsOf(record.items);
      const keyWidth = n + 1;
      const layout = { name: record.name, tableIndex: index, keyWidth, width: keyWidth + columnCount(slots), slots };
      checkWidth(tables[index]!, layout.width);
      return layout;
    });
    child = { level: n, tableIndex, idOffset, width, ids, records, childKey: levelKey(n + 1), child };
  }
  checkWidth(tables[notesIndex]!, NOTES_WIDTH);
  return { tableCount: tables.length, mainIndex, notesIndex, root: child! };
}

function slotsOf(items: readonly DictItem[]): ItemSlot[] {
  return itemColumns(items).map(({ item, occurrences, type }) => {
    switch (type.kind) {
      case 'integer':
        return new ItemSlot(item.name, KIND_INTEGER, occurrences, 10 ** type.digits, `at most ${type.digits} digits`);
      case 'decimal': {
        const whole = type.precision - type.scale;
        const bound = 10 ** whole - 0.5 * 10 ** -type.scale;
        return new ItemSlot(item.name, KIND_DECIMAL, occurrences, bound, `at most ${whole} digits before the decimal point`);
      }
      case 'varchar':
        return new ItemSlot(item.name, KIND_ALPHA, occurrences, type.length, `at most ${type.length} characters`);
      default:
        // Binary items: a text column with the descriptor (item-columns.ts).
        return new ItemSlot(item.name, KIND_BINARY, occurrences, 0, '');
    }
  });
}

function columnCount(slots: ItemSlot[]): number {
  let n = 0;
  for (const s of slots) n += s.count;
  return n;
}

function indexOf(tables: TablePlan[], test: (t: TablePlan) => boolean, what: string): number {
  const i = tables.findIndex(test);
  if (i < 0) mismatch(`no ${what}`);
  return i;
}

function checkWidth(table: TablePlan, width: number): void {
  if (table.columns.length !== width) mismatch(`table ${table.name} has ${table.columns.length} columns, the dictionary gives ${width}`);
}

function mismatch(what: string): never {
  throw new AppError('INTERNAL', `The breakout plan does not match the dictionary: ${what}`);
}
