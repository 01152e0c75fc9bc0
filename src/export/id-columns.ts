/**
 * Id items in every record table (docs/export.md#id-items): a record row of level L gets the id
 * items of levels 1 … L (a `level_N` row those of levels 1 … N-1) right after `case_id`, copied
 * from the rows the flattener made for the same case: the cases row for level 1, the row of the
 * ancestor node in `level_N` for level N. Pure; nothing outlives a case.
 */
import type { ExportPlan, ExportTablePlan } from './export-plan.js';
import type { ExportCell } from './model.js';

/** Adds the id columns to a row of one case; made per case by `caseIds`. */
export type IdInserter = (table: ExportTablePlan, row: ExportCell[]) => ExportCell[];

/**
 * The id values of one case, from its flattened rows (`rows[planIndex]`, flatten.ts), as a
 * function that returns a table's row with the id columns inserted after `case_id`. A table
 * without `idLevels` gets its row back as it is.
 */
export function caseIds(plan: ExportPlan, rows: readonly (readonly ExportCell[][])[]): IdInserter {
  // Per level ≥ 2: the node's path (level_2_occ … occ) → its id values; made on first use.
  const byLevel = new Map<number, Map<string, ExportCell[]>>();
  const level1 = (() => {
    const src = plan.idSources[0];
    const main = src ? rows[src.planIndex]?.[0] : undefined;
    return src ? (main?.slice(src.offset, src.offset + src.count) ?? new Array<ExportCell>(src.count).fill(null)) : [];
  })();
  const nodes = (level: number): Map<string, ExportCell[]> => {
    let m = byLevel.get(level);
    if (m) return m;
    m = new Map();
    const src = plan.idSources[level - 1]!;
    for (const r of rows[src.planIndex] ?? []) m.set(pathKey(r, level), r.slice(src.offset, src.offset + src.count));
    byLevel.set(level, m);
    return m;
  };
  return (table, row) => {
    const upTo = table.idLevels ?? 0;
    if (upTo === 0) return row;
    const ids: ExportCell[] = [...level1];
    for (let level = 2; level <= upTo; level++) {
      const src = plan.idSources[level - 1]!;
      ids.push(...(nodes(level).get(pathKey(row, level)) ?? new Array<ExportCell>(src.count).fill(null)));
    }
    return [row[0]!, ...ids, ...row.slice(1)];
  };
}

/**
 * The occurrences that name a level-N node: cells 1 … N-1 of its own `level_N` row
 * (`level_2_occ` … `occ`) and of every row below it (`level_2_occ` … `level_N_occ`).
 */
function pathKey(row: readonly ExportCell[], level: number): string {
  return row.slice(1, level).join('/');
}
