/**
 * An item's value set in the export model (docs/export.md#value-sets): the item's first value set
 * (the one the breakout maps special values with), its single codes as labelled values and its
 * numeric ranges as labelled ranges. Pure.
 */
import type { DictItem } from '../cspro/dictionary/model.js';
import { labelOf } from '../cspro/dictionary/model.js';
import type { ExportValueLabel, ExportValueRange, ExportValueSet } from './model.js';

/**
 * True when `label` names its code: a blank label (a CSPro range `0:98` of valid ages written
 * without text) names nothing, so no format puts it in a code's place (docs/export.md#value-sets).
 */
function namesCode(label: string): boolean {
  return label.trim() !== '';
}

/**
 * The part of `valueSet` that labels codes: its single codes and ranges whose label is not blank,
 * or undefined when nothing is left (the column then holds codes only, whatever `--labels`). Every
 * format reads value labels through this, so a blank label never hides a code; the codebook and
 * the Parquet metadata still list the whole value set (docs/export.md#value-sets).
 */
export function labellingPart(valueSet: ExportValueSet | undefined): ExportValueSet | undefined {
  if (!valueSet) return undefined;
  const values = valueSet.values.filter((v) => namesCode(v.label));
  const ranges = valueSet.ranges.filter((r) => namesCode(r.label));
  if (values.length === 0 && ranges.length === 0) return undefined;
  return { ...valueSet, values, ranges };
}

/**
 * The export value set of `item`, or undefined when it has none. A pair with a blank code (the
 * usual form of NOTAPPL, which the data holds as NULL) has no code to label and is left out, as
 * is a numeric pair that is not a number and a range of an alpha item (no format labels those).
 */
export function exportValueSet(item: DictItem): ExportValueSet | undefined {
  const vs = item.valueSets[0];
  if (!vs) return undefined;
  const numeric = item.contentType === 'numeric';
  const values: ExportValueLabel[] = [];
  const ranges: ExportValueRange[] = [];
  for (const v of vs.values) {
    const label = labelOf(v);
    for (const pair of v.pairs) {
      const from = pair.from.trimEnd();
      const to = pair.to?.trimEnd();
      if (!numeric) {
        if (from === '' || (to !== undefined && to !== '' && to !== from)) continue;
        values.push(withSpecial({ value: from, label }, v.special));
        continue;
      }
      if (from.trim() === '') continue;
      const a = Number(from);
      if (!Number.isFinite(a)) continue;
      if (to === undefined || to.trim() === '' || Number(to) === a) {
        values.push(withSpecial({ value: a, label }, v.special));
        continue;
      }
      const b = Number(to);
      if (Number.isFinite(b)) ranges.push({ from: Math.min(a, b), to: Math.max(a, b), label });
    }
  }
  return { name: vs.name, label: labelOf(vs), numeric, values, ranges };
}

function withSpecial(v: ExportValueLabel, special: ExportValueLabel['special'] | undefined): ExportValueLabel {
  if (special !== undefined) v.special = special;
  return v;
}
