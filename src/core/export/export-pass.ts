/**
 * One pass over the cases of an export (docs/export.md#how-an-export-runs): pages of cases read
 * from a store snapshot, each case flattened exactly as the SQLite breakout flattens it
 * (src/breakout/flatten.ts), its rows handed to the table that exports them. Nothing is kept
 * between cases, so memory does not grow with the number of cases.
 */
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { createFlattener } from '../../breakout/flatten.js';
import { flattenInput } from '../../breakout/flatten-input.js';
import type { ExportCell } from '../../export/model.js';
import type { ExportPlan } from '../../export/export-plan.js';
import { caseIds } from '../../export/id-columns.js';
import { labelInserter } from '../../export/label-columns.js';
import type { Store } from '../home/index.js';

/** Which cases a pass reads: those changed after `after` up to revision `upTo`. */
export interface CaseSelection {
  dictionaryId: number;
  /** For counting (`countChanged`); the pass reads revisions above `after.revision`. */
  after: { revision: number; guid: string };
  upTo: number;
  /** False with --include-deleted. */
  activeOnly: boolean;
  pageSize: number;
}

export interface PassResult {
  cases: number;
  /** Values written as NULL or truncated, and cases left out because they could not be read. */
  warnings: number;
  /** Cases left out (unreadable data, BRK-003). */
  skipped: number;
}

/** Receives one row of the export table at `tableIndex` (index in `plan.tables`). */
export type RowSink = (tableIndex: number, row: ExportCell[]) => void | Promise<void>;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Reads the selected cases of `snapshot` in pages and sends every row of the exported tables to
 * `onRow`, in case-key order (then guid) and, inside a case, in breakout order (occurrence),
 * each record row with its case's id items (id-columns.ts) and, with `--labels both`, its label
 * cells (label-columns.ts). `exportTime` fills the cases table's `breakout_time`. `onCases` is
 * told the cases done after each page; a `signal` stops the pass between pages with its reason.
 */
export async function exportPass(
  snapshot: Store,
  dict: Dictionary,
  plan: ExportPlan,
  sel: CaseSelection,
  exportTime: string,
  onRow: RowSink,
  opts: { onCases?: (done: number) => void; signal?: AbortSignal } = {},
): Promise<PassResult> {
  const flatten = createFlattener(plan.breakout, dict);
  const tables = plan.tables;
  const mainIndex = tables.findIndex((t) => t.kind === 'main');
  // `--labels both`: the label cells after the codes (docs/export.md#codes-and-labels-side-by-side).
  const addLabels = tables.map((t) => labelInserter(t.table.columns));
  // Case-key order (docs/export.md#row-order): keyset pages by (case_key, guid).
  let after = { caseKey: '', guid: '' };
  let cases = 0;
  let warnings = 0;
  let skipped = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    const page = await snapshot.cases.keyOrderPage(sel.dictionaryId, after, sel.after.revision, sel.upTo, sel.pageSize, sel.activeOnly);
    if (page.length === 0) break;
    for (const c of page) {
      let flat;
      try {
        flat = flatten(flattenInput(c, exportTime));
      } catch {
        // As the breakout does (BRK-003): a case that cannot be read is left out, the rest goes on.
        skipped += 1;
        warnings += 1;
        continue;
      }
      warnings += flat.warnings.length;
      const withIds = caseIds(plan, flat.rows);
      for (let t = 0; t < tables.length; t++) {
        const table = tables[t]!;
        const rows = flat.rows[table.planIndex]!;
        for (const row of rows) {
          if (t === mainIndex && plan.deletedColumn) row.push(c.deleted);
          const cells = withIds(table, row);
          const label = addLabels[t];
          await onRow(t, label ? label(cells) : cells);
        }
      }
      cases += 1;
    }
    const last = page[page.length - 1]!;
    after = { caseKey: last.caseKey, guid: last.guid };
    opts.onCases?.(cases + skipped);
    await yieldToEventLoop();
  }
  return { cases, warnings, skipped };
}
