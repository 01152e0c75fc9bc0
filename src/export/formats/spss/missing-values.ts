/**
 * CSPro special values as SPSS user-missing values (docs/export.md#spss). A numeric variable
 * holds at most three discrete missing values, or one range, or one range plus one value. The
 * codes keep their values in the data; only the dictionary marks them missing.
 */
import type { SpecialName } from '../../../cspro/dictionary/model.js';
import type { ExportValueSet } from '../../model.js';

export type MissingValues =
  { kind: 'none' } | { kind: 'discrete'; values: number[] } | { kind: 'range'; low: number; high: number; value?: number };

/** The order in which specials are kept when not all of them fit (the last is dropped first). */
const PRIORITY: readonly SpecialName[] = ['MISSING', 'REFUSED', 'DEFAULT', 'NOTAPPL'];

/**
 * The user-missing values of a numeric variable: the codes that its value set maps to special
 * values. Up to three codes are discrete values. With more (four specials on distinct codes), a
 * range is used only where it holds nothing but special codes: all of them when they are
 * consecutive integers, or all but the lowest or highest as a range plus that one as the
 * discrete value. Otherwise the first three in the order MISSING, REFUSED, DEFAULT, NOTAPPL are
 * kept and the last is left a plain code (its value label still says what it is).
 */
export function missingValues(valueSet: ExportValueSet | undefined, integerColumn: boolean): MissingValues {
  if (!valueSet?.numeric) return { kind: 'none' };
  const bySpecial = new Map<SpecialName, number>();
  for (const v of valueSet.values) {
    if (!v.special || typeof v.value !== 'number' || !Number.isFinite(v.value)) continue;
    if (!bySpecial.has(v.special)) bySpecial.set(v.special, v.value);
  }
  const ordered = PRIORITY.filter((s) => bySpecial.has(s)).map((s) => bySpecial.get(s)!);
  const codes = [...new Set(ordered)];
  if (codes.length === 0) return { kind: 'none' };
  if (codes.length <= 3) return { kind: 'discrete', values: codes };
  const sorted = [...codes].sort((a, b) => a - b);
  if (integerColumn && sorted.every(Number.isInteger)) {
    if (consecutive(sorted)) return { kind: 'range', low: sorted[0]!, high: sorted.at(-1)! };
    const upper = sorted.slice(1);
    if (consecutive(upper)) return { kind: 'range', low: upper[0]!, high: upper.at(-1)!, value: sorted[0]! };
    const lower = sorted.slice(0, -1);
    if (consecutive(lower)) return { kind: 'range', low: lower[0]!, high: lower.at(-1)!, value: sorted.at(-1)! };
  }
  return { kind: 'discrete', values: codes.slice(0, 3) };
}

function consecutive(sorted: readonly number[]): boolean {
  return sorted.every((v, i) => i === 0 || v === sorted[i - 1]! + 1);
}
