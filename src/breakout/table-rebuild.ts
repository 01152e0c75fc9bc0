/**
 * What the next incremental breakout will do to a dictionary's tables, from what the last
 * breakout recorded (its tables and structure hash) and the plan of the dictionary now. Pure:
 * no target connection, so a dictionary upload can announce a rebuild before it happens
 * (docs/breakout.md#destructive-changes).
 */
import type { BreakoutPlan } from './plan-model.js';

/**
 * Why a breakout drops or creates tables: `label` (new table prefix), `structure` (new plan),
 * `target` (the tables were recorded in another target), `overwrite` (a full breakout asked to
 * rebuild), `first` (nothing recorded yet), `missing` (tables dropped outside sds are recreated).
 */
export type RebuildReason = 'label' | 'structure' | 'target' | 'overwrite' | 'first' | 'missing';

export interface TableRebuild {
  reason: RebuildReason;
  /** One sentence saying why, naming the old and new table prefix for a label change. */
  detail: string;
  /** Tables the breakout drops (those the last breakout recorded), if the target still holds them. */
  drop: string[];
  /** Tables it creates in their place (every case is loaded again). */
  create: string[];
}

/** What the last breakout recorded about a dictionary's tables (the store's breakout state). */
export interface RecordedTables {
  structureHash: string;
  tables: string[];
}

/**
 * The rebuild the next incremental breakout will make, or null when the recorded tables fit the
 * plan (or nothing was recorded: the first breakout only creates). A label change moves every
 * table to the new prefix; any other change of the plan's structure hash rebuilds them in place.
 */
export function pendingRebuild(recorded: RecordedTables | undefined, plan: BreakoutPlan): TableRebuild | null {
  if (!recorded || recorded.structureHash === plan.structureHash) return null;
  return { ...rebuildReason(recorded, plan), drop: [...recorded.tables], create: plan.tables.map((t) => t.name) };
}

/** The reason for rebuilding `recorded` as `plan`: a new table prefix, else a new structure. */
export function rebuildReason(recorded: RecordedTables, plan: BreakoutPlan): { reason: RebuildReason; detail: string } {
  const oldPrefix = commonPrefix(recorded.tables);
  // The cases table is named by the prefix alone, so it moves exactly when the prefix does.
  if (recorded.tables.length > 0 && !recorded.tables.includes(plan.tables[0]!.name)) {
    return { reason: 'label', detail: `the label changed: table prefix ${oldPrefix || '(unknown)'} becomes ${plan.prefix}_` };
  }
  const was = new Set(recorded.tables);
  const now = new Set(plan.tables.map((t) => t.name));
  const added = [...now].filter((n) => !was.has(n));
  const removed = [...was].filter((n) => !now.has(n));
  const parts = [
    added.length ? `new tables ${added.join(', ')}` : '',
    removed.length ? `tables no longer planned ${removed.join(', ')}` : '',
  ].filter(Boolean);
  return {
    reason: 'structure',
    detail: `the dictionary's structure changed (records, items, their types or lengths)${parts.length ? `: ${parts.join('; ')}` : ''}`,
  };
}

/** The longest start shared by all names, cut after its last `_` (`census_cases`, `census_notes` → `census_`). */
export function commonPrefix(names: readonly string[]): string {
  if (names.length === 0) return '';
  let p = names[0]!;
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  return p.slice(0, p.lastIndexOf('_') + 1);
}
