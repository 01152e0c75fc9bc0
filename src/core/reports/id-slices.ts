/**
 * Where the id items a geographic report groups by sit in a case key (docs/cspro-formats.md#case-keys),
 * pure: the key is the level-1 id items' text concatenated in dictionary order, so each item is a
 * fixed slice of it, and a subitem of an id item a slice of its parent's.
 */
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { AppError } from '../../shared/errors.js';
import type { KeySlice } from '../../store/sync-report-sql.js';
import { MAX_REPORT_IDS } from './report-options.js';

/** An id item of a report and its slice of the key. */
export interface IdSlice extends KeySlice {
  name: string;
}

/** The level-1 id items and subitems of a dictionary with their key slices. */
export function keySlicesOf(dict: Pick<Dictionary, 'levels'>): IdSlice[] {
  const ids = dict.levels[0]?.ids ?? [];
  const out: IdSlice[] = [];
  let offset = 1;
  const parents: { start: number; length: number; keyStart: number }[] = [];
  for (const item of ids) {
    if (item.subitem) continue;
    out.push({ name: item.name, start: offset, length: item.length });
    parents.push({ start: item.start, length: item.length, keyStart: offset });
    offset += item.length;
  }
  for (const item of ids) {
    if (!item.subitem) continue;
    const p = parents.find((q) => item.start >= q.start && item.start + item.length <= q.start + q.length);
    if (p) out.push({ name: item.name, start: p.keyStart + item.start - p.start, length: item.length });
  }
  return out;
}

/**
 * The slices of the named id items, in the order asked (names compared without case, as CSPro
 * does). REPORT_IDS_INVALID for none, too many, a repeat, or a name that is not a level-1 id item.
 */
export function idSlices(dict: Pick<Dictionary, 'name' | 'levels'>, names: readonly string[]): IdSlice[] {
  const all = keySlicesOf(dict);
  const invalid = (message: string) =>
    new AppError('REPORT_IDS_INVALID', message, { dictionary: dict.name, id_items: all.map((s) => s.name) });
  if (names.length === 0) throw invalid('name at least one id item to group by');
  if (names.length > MAX_REPORT_IDS) throw invalid(`a report groups by at most ${MAX_REPORT_IDS} id items; got ${names.length}`);
  const seen = new Set<string>();
  return names.map((raw) => {
    const name = raw.trim().toUpperCase();
    const slice = all.find((s) => s.name.toUpperCase() === name);
    if (!slice) throw invalid(`${raw} is not an id item of ${dict.name} (its id items: ${all.map((s) => s.name).join(', ')})`);
    if (seen.has(slice.name)) throw invalid(`${slice.name} is named twice`);
    seen.add(slice.name);
    return slice;
  });
}
