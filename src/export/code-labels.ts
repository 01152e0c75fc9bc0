/**
 * The value label of a code (docs/export.md#value-sets): the label of its single value, else the
 * label of the range that holds it. Only labels that are not blank count (`labellingPart`), so a
 * blank label never stands for a code. Numeric codes are compared at the column's scale (`5`,
 * `5.0` and `"5.00"` are one code at scale 2), alpha codes without trailing spaces. Pure.
 */
import { formatUnscaled, toUnscaled } from './formats/parquet/decimal.js';
import type { ExportCell, ExportColumn } from './model.js';
import { labellingPart } from './value-sets.js';

/** Labels of one column's codes. */
export interface CodeLabels {
  /** The label of a cell's code, or undefined when it has none (a blank cell has none). */
  label(cell: ExportCell): string | undefined;
  /** The code of a cell as canonical text (numeric codes at the column's scale). */
  codeText(cell: number | string): string;
}

/** The code labels of `column`, or undefined when its value set labels nothing. */
export function codeLabels(column: ExportColumn): CodeLabels | undefined {
  const valueSet = labellingPart(column.valueSet);
  if (!valueSet) return undefined;
  const scale = column.type.kind === 'decimal' ? column.type.scale : 0;
  const codeText = (v: number | string): string => {
    if (!valueSet.numeric) return String(v).trimEnd();
    const unscaled = toUnscaled(v, scale);
    return unscaled === undefined ? String(v).trim() : formatUnscaled(unscaled, scale);
  };
  const byCode = new Map<string, string>();
  for (const v of valueSet.values) {
    const k = codeText(v.value);
    if (!byCode.has(k)) byCode.set(k, v.label);
  }
  const ranges = valueSet.numeric ? valueSet.ranges : [];
  return {
    codeText,
    label(cell) {
      if (cell === null || typeof cell === 'boolean') return undefined;
      const label = byCode.get(codeText(cell));
      if (label !== undefined || ranges.length === 0) return label;
      const n = Number(cell);
      for (const r of ranges) if (n >= r.from && n <= r.to) return r.label;
      return undefined;
    },
  };
}
