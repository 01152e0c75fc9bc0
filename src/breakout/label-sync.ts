/**
 * Brings a target's label tables up to date with the dictionary (docs/breakout.md#value-sets-and-item-labels).
 * The hash of the rows the target got last is kept in the target itself, in the `labels_hash`
 * column of the items table: one small read tells whether anything changed, so an incremental
 * run every minute rewrites nothing when the labels are the same, and a target restored from a
 * backup or shared by two stores still says what it holds.
 */
import type { BreakoutPlan } from './plan-model.js';
import type { Dictionary } from '../cspro/dictionary/model.js';
import type { TargetSession } from './dialects/dialect.js';
import { LABELS_HASH_COLUMN, labelRows } from './label-rows.js';

/** What a label sync did: `written` false when the target already held these labels. */
export interface LabelSync {
  written: boolean;
  valueSetRows: number;
  itemRows: number;
  tables: string[];
}

/**
 * Rewrites the value sets and items tables of `plan` in one transaction when the target's
 * labels hash differs from the dictionary's (or the items table is empty); otherwise leaves them.
 * The tables must exist (the breakout creates them with the others).
 */
export async function syncLabels(session: TargetSession, plan: BreakoutPlan, dict: Dictionary): Promise<LabelSync> {
  const { valueSets, items, hash } = labelRows(plan, dict);
  const result = {
    valueSetRows: valueSets.rows.length,
    itemRows: items.rows.length,
    tables: [valueSets.table.name, items.table.name],
  };
  const hashIndex = items.table.columns.findIndex((c) => c.name === LABELS_HASH_COLUMN);
  const [first] = await session.readRows(items.table, { limit: 1 });
  if (first && first[hashIndex] === hash) return { written: false, ...result };
  await session.transaction(async () => {
    await session.deleteAllRows(valueSets.table.name);
    await session.deleteAllRows(items.table.name);
    if (valueSets.rows.length > 0) await session.bulkLoad(valueSets.table, valueSets.rows);
    if (items.rows.length > 0) await session.bulkLoad(items.table, items.rows);
  });
  return { written: true, ...result };
}
