/**
 * The rows of the label tables (docs/breakout.md#value-sets-and-item-labels): every value of
 * every value set of the dictionary, and one row per item column of the plan, with the hash that
 * tells whether a target already holds exactly these rows. Pure.
 */
import { createHash } from 'node:crypto';
import type { BreakoutPlan, CellValue, Row, TablePlan } from './plan-model.js';
import type { DictItem, Dictionary, ValueSet } from '../cspro/dictionary/model.js';
import { labelOf } from '../cspro/dictionary/model.js';
import { AppError } from '../shared/errors.js';
import { buildLayout, type ItemSlot, type LevelLayout } from './flatten-layout.js';

/** Bumped when the rows built here change for the same dictionary: targets then get them again. */
const LABELS_FORMAT = 'sds-breakout-labels/1';

/** Decimals kept in `value_from_num` / `value_to_num` (their column is DECIMAL(28,9), plan.ts). */
const CODE_SCALE = 9;
const NUMERIC_CODE = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

export interface LabelRows {
  valueSets: { table: TablePlan; rows: Row[] };
  items: { table: TablePlan; rows: Row[] };
  /** SHA-256 over the format and every row: equal hashes mean equal tables. */
  hash: string;
}

/** The label tables of `plan` and their rows for `dict`, the dictionary the plan was made from. */
export function labelRows(plan: BreakoutPlan, dict: Dictionary): LabelRows {
  const vsTable = labelTable(plan, 'value_sets');
  const itemsTable = labelTable(plan, 'items');
  const byName = itemsByName(dict);

  const valueSetRows: Row[] = [];
  for (const { item } of byName.values()) {
    item.valueSets.forEach((vs, v) => {
      for (const row of valueSetRowsOf(item, vs, v + 1)) valueSetRows.push(row);
    });
  }

  // Item columns are found by position, as the flattener fills them (flatten-layout.ts).
  const itemRows: Row[] = [];
  const addSlots = (table: TablePlan, offset: number, slots: readonly ItemSlot[]): void => {
    let col = offset;
    for (const slot of slots) {
      const found = byName.get(slot.key);
      if (!found) throw new AppError('INTERNAL', `table ${table.name} has a column of item ${slot.key}, not in the dictionary`);
      for (let k = 1; k <= slot.count; k++) {
        itemRows.push(itemRow(table.name, table.columns[col]!.name, found, slot.count > 1 ? k : 0));
        col += 1;
      }
    }
  };
  for (let level: LevelLayout | null = buildLayout(plan, dict).root; level; level = level.child) {
    addSlots(plan.tables[level.tableIndex]!, level.idOffset, level.ids);
    for (const record of level.records) addSlots(plan.tables[record.tableIndex]!, record.keyWidth, record.slots);
  }

  const hash = createHash('sha256')
    .update(JSON.stringify({ format: LABELS_FORMAT, vs: vsTable.name, items: itemsTable.name, valueSetRows, itemRows }), 'utf8')
    .digest('hex');
  for (const row of itemRows) row.push(hash);
  return { valueSets: { table: vsTable, rows: valueSetRows }, items: { table: itemsTable, rows: itemRows }, hash };
}

/** The name of the column of the items table that holds the labels hash. */
export const LABELS_HASH_COLUMN = 'labels_hash';

function labelTable(plan: BreakoutPlan, kind: 'value_sets' | 'items'): TablePlan {
  const table = plan.tables.find((t) => t.kind === kind);
  if (!table) throw new AppError('INTERNAL', `the plan of ${plan.dictionary} has no ${kind} table`);
  return table;
}

interface FoundItem {
  item: DictItem;
  /** Null for an id item (it belongs to its level, not to a record). */
  record: string | null;
}

/** Every item of the dictionary (id items first per level, then records), by its unique name. */
function itemsByName(dict: Dictionary): Map<string, FoundItem> {
  const out = new Map<string, FoundItem>();
  for (const level of dict.levels) {
    for (const item of level.ids) out.set(item.name, { item, record: null });
    for (const record of level.records) for (const item of record.items) out.set(item.name, { item, record: record.name });
  }
  return out;
}

/**
 * One row per pair of each value: a value with two ranges (`1:5, 8:9` → "Low") gives two rows
 * with the same label, so a `BETWEEN` join finds it through either range. A single value has
 * `value_to` NULL and `value_to_num` = `value_from_num`, so the same join works for both.
 */
function valueSetRowsOf(item: DictItem, vs: ValueSet, vsOrder: number): Row[] {
  const numeric = item.contentType === 'numeric';
  const rows: Row[] = [];
  vs.values.forEach((value, v) => {
    // A value without pairs (seen in hand-edited dictionaries) still has its label: one row.
    const pairs = value.pairs.length > 0 ? value.pairs : [{ from: '' }];
    pairs.forEach((pair, p) => {
      const from = numeric ? numericCode(pair.from) : null;
      const to = pair.to === undefined ? from : numeric ? numericCode(pair.to) : null;
      rows.push([
        item.name,
        vsOrder,
        v + 1,
        p + 1,
        vs.name,
        labelOf(vs),
        pair.from,
        pair.to ?? null,
        from,
        to,
        labelOf(value),
        value.special ?? null,
      ]);
    });
  });
  return rows;
}

/**
 * A numeric code as decimal text for the DECIMAL(28,9) column, or null when the text is not a
 * number (blank for NOTAPPL) or has more than 19 digits before the point (CSPro allows 15).
 */
function numericCode(text: string): string | null {
  const t = text.trim();
  if (!NUMERIC_CODE.test(t)) return null;
  const n = Number(t);
  if (!Number.isFinite(n) || Math.abs(n) >= 1e19) return null;
  const dot = t.indexOf('.');
  if (dot >= 0 && t.length - dot - 1 > CODE_SCALE) return n.toFixed(CODE_SCALE);
  return t.startsWith('+') ? t.slice(1) : t;
}

function itemRow(table: string, column: string, found: FoundItem, occurrence: number): CellValue[] {
  const { item, record } = found;
  const occurrenceLabel = occurrence > 0 ? (item.occurrenceLabels.find((o) => o.occurrence === occurrence)?.labels[0] ?? null) : null;
  return [
    table,
    column,
    item.name,
    labelOf(item),
    record,
    item.contentType,
    item.length,
    item.decimals,
    occurrence > 0 ? occurrence : null,
    occurrenceLabel,
    item.valueSets[0]?.name ?? null,
  ];
}
