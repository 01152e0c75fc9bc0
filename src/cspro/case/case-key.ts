/**
 * Case keys and level keys (docs/cspro-formats.md#case-keys): the id items' fixed-width text concatenated —
 * numerics formatted with their own width, zero fill and decimals (as numeric-text.ts writes them), alpha padded to their
 * length. `caseids` of a case is the level-1 key; a deeper node's `levelKey` is its own ids' text.
 */

import type { DictItem, Dictionary } from '../dictionary/model.js';
import type { ItemValue, LevelObject, RecordObject } from './model.js';
import { fieldText, specialCodes } from './item-codec.js';
import { encodeNumericText, isSpecialName } from './numeric-text.js';

/** The fixed-width text of one id value as found in an id object (undefined = blank). */
export function idItemText(item: DictItem, value: ItemValue | undefined): string {
  // Ids never repeat in practice; if one does, the key uses its first occurrence.
  const scalar = Array.isArray(value) ? value[0] : value;
  if (item.contentType === 'alpha') {
    const text = scalar === undefined ? '' : String(scalar).replaceAll('\n', '\u2424');
    return fieldText(text, 0, item.length);
  }
  if (scalar === undefined || scalar === '') return ' '.repeat(item.length);
  if (typeof scalar === 'number') return encodeNumericText(scalar, item);
  if (isSpecialName(scalar)) {
    const code = specialCodes(item).toCode.get(scalar);
    return encodeNumericText(code ?? scalar, item);
  }
  return '*'.repeat(item.length);
}

/** The key of a level node: its id items' text concatenated (subitems overlap their parent and are left out). */
export function levelKeyOf(ids: readonly DictItem[], idObject: RecordObject): string {
  let key = '';
  for (const item of ids) if (!item.subitem) key += idItemText(item, idObject[item.name] as ItemValue | undefined); // id items are never binary
  return key;
}

/** `caseids` of a case: the level-1 key. */
export function caseKeyOf(dict: Dictionary, level1: LevelObject): string {
  const ids = dict.levels[0]?.ids ?? [];
  return levelKeyOf(ids, level1.id);
}

/**
 * The raw text of the id columns of levels 1..`levels` on a fixed-width line (padded with blanks
 * past the end), in dictionary order. Used to group `.dat` lines into cases and level nodes
 * without decoding them.
 */
export function lineKeyText(dict: Dictionary, line: string, levels = 1): string {
  let key = '';
  for (const level of dict.levels.slice(0, levels)) {
    for (const item of level.ids) if (!item.subitem) key += fieldText(line, item.start - 1, item.length * Math.max(1, item.occurrences));
  }
  return key;
}
