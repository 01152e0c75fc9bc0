/**
 * Linked value sets share one list of values under a link code. CSPro 8 writes the values only
 * on the first value set of a link (later ones carry `link` and no `values`), while the text form
 * repeats them; resolving by link code gives every member the same values in both forms.
 */

import type { Dictionary, ValueSet } from './model.js';

/**
 * Gives every value set of a link group the values of the member with the most values, and drops
 * the link of a value set that is alone under its code, as CSPro's SyncLinkedValueSets does.
 */
export function resolveLinkedValueSets(dict: Dictionary): void {
  const groups = new Map<string, ValueSet[]>();
  for (const level of dict.levels) {
    for (const record of [{ items: level.ids }, ...level.records]) {
      for (const item of record.items) {
        for (const vs of item.valueSets) {
          if (vs.link === undefined) continue;
          const group = groups.get(vs.link) ?? [];
          group.push(vs);
          groups.set(vs.link, group);
        }
      }
    }
  }
  for (const group of groups.values()) {
    const first = group[0];
    if (group.length === 1 && first !== undefined) {
      delete first.link;
      continue;
    }
    const source = group.reduce((best, vs) => (vs.values.length > best.values.length ? vs : best));
    for (const vs of group) if (vs !== source) vs.values = structuredClone(source.values);
  }
}
