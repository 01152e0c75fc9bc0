/**
 * `--labels both` (docs/export.md#codes-and-labels-side-by-side): after each column whose value
 * set labels something, a text column `<name>_label` holding the label of each row's code, for
 * formats without value labels of their own (CSV, Parquet). The planner adds the columns
 * (`withLabelColumns`); each pass fills them from the code cells (`labelInserter`). Pure.
 */
import { AppError } from '../shared/errors.js';
import { codeLabels, type CodeLabels } from './code-labels.js';
import type { ExportNames } from './export-names.js';
import type { ExportCell, ExportColumn } from './model.js';

/**
 * `columns` with a label column right after each coded one. The label columns' names are claimed
 * from `names` after every other column's, so no column is renamed by them: `p03_sex_label`,
 * or `p03_sex_label_2` when the table has a column of that name (shortened within 32 characters
 * as every export name, docs/export.md#names).
 */
export function withLabelColumns(columns: readonly ExportColumn[], names: ExportNames): ExportColumn[] {
  const out: ExportColumn[] = [];
  for (const c of columns) {
    out.push(c);
    if (!codeLabels(c)) continue;
    const label: ExportColumn = {
      name: names.claim(`${c.name}_label`),
      source: c.source,
      label: `${c.label} (value label)`,
      type: { kind: 'text' },
      labelsOf: c.name,
    };
    if (c.item !== undefined) label.item = c.item;
    if (c.occurrence !== undefined) label.occurrence = c.occurrence;
    out.push(label);
  }
  return out;
}

/** Adds the label cells to a row of code cells (one cell per column that is no label column). */
export type LabelInserter = (row: ExportCell[]) => ExportCell[];

/**
 * The inserter of a table's label cells, or undefined when it has no label column. Each label
 * cell is the label of the code before it (its value's, else its range's); NULL for a blank code
 * and for a code without a label.
 */
export function labelInserter(columns: readonly ExportColumn[]): LabelInserter | undefined {
  if (!columns.some((c) => c.labelsOf !== undefined)) return undefined;
  // Per output column: the code column's labels for a label column, else undefined (a cell to copy).
  const plan: (CodeLabels | undefined)[] = columns.map((c, i) => {
    if (c.labelsOf === undefined) return undefined;
    const code = columns[i - 1];
    const labels = code?.name === c.labelsOf ? codeLabels(code) : undefined;
    if (!labels) throw new AppError('INTERNAL', `label column ${c.name} does not follow its coded column ${c.labelsOf}`);
    return labels;
  });
  return (row) => {
    const out = new Array<ExportCell>(plan.length);
    let k = 0;
    for (let j = 0; j < plan.length; j++) {
      const labels = plan[j];
      out[j] = labels === undefined ? row[k++]! : (labels.label(row[k - 1]!) ?? null);
    }
    return out;
  };
}
